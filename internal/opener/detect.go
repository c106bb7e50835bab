package opener

import (
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sfxscan"
)

// MaxSFXScan is how far into a file the opener looks for an archive
// signature behind a self-extractor stub or other prefix: 4 MiB, as unrar
// (sfxscan.Limit).
const MaxSFXScan = sfxscan.Limit

// Detection is where a signature was found and which format it names.
type Detection struct {
	Format archive.Format
	Offset int64
}

// Detect looks for the first 7z or RAR signature in the first MaxSFXScan
// bytes of r (of the given size), by the rules of package sfxscan. ok is
// false when there is none.
func Detect(r io.ReaderAt, size int64) (d Detection, ok bool, err error) {
	m, ok, err := sfxscan.Find(r, size, 0, sfxscan.All)
	if err != nil || !ok {
		return Detection{}, false, err
	}
	return Detection(m), true, nil
}

// detectAtStart recognises a 7z or RAR signature at offset 0.
func detectAtStart(head []byte) (Detection, bool) {
	m, ok := sfxscan.AtStart(head, sfxscan.All)
	return Detection(m), ok
}
