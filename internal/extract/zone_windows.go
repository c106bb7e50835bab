package extract

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// zoneStream is the alternate data stream that carries the Mark of the
// Web.
const zoneStream = ":Zone.Identifier"

// readZone returns the Zone.Identifier stream of the file path, nil when
// it has none; at most maxZoneIdentifier+1 bytes, so that propagateZone
// sees one too long.
func readZone(path string) ([]byte, error) {
	f, err := os.Open(path + zoneStream)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxZoneIdentifier+1))
}

// namedStreams reports whether the volume holding the directory dir
// keeps alternate data streams (FILE_NAMED_STREAMS: NTFS and ReFS; not
// FAT, exFAT or network shares without them). Where it does not, a
// "name:Zone.Identifier" would be refused or, worse, made as a file of
// that name (Wine 8 does so on its Unix file systems, and reports no
// named streams: README "Windows"), so no mark is written.
func namedStreams(dir string) bool {
	p, err := windows.UTF16PtrFromString(longPath(filepath.Clean(dir)))
	if err != nil {
		return false
	}
	vol := make([]uint16, windows.MAX_LONG_PATH)
	if windows.GetVolumePathName(p, &vol[0], uint32(len(vol))) != nil {
		return false
	}
	var flags uint32
	if windows.GetVolumeInformation(&vol[0], nil, 0, nil, nil, &flags, nil, 0) != nil {
		return false
	}
	return flags&windows.FILE_NAMED_STREAMS != 0
}

// writeZone writes zone as the Zone.Identifier stream of the file p.
func writeZone(p string, zone []byte) error {
	return os.WriteFile(p+zoneStream, zone, 0o644)
}
