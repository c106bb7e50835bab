package zip

import (
	"context"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Bounds on the work Entries does to fill the targets of symbolic links,
// which ZIP stores as the entries' data.
const (
	// maxListedLinkTarget is the largest link data decoded for a
	// listing; a larger link keeps an empty LinkTarget until extracted.
	maxListedLinkTarget = 4 << 10
	// maxListedLinkPacked bounds the compressed data of a listed link
	// (a Deflate stream can spend any input on little output).
	maxListedLinkPacked = 2 * maxListedLinkTarget
	// maxLinkListWork bounds the bytes decoded for listing link targets
	// in all.
	maxLinkListWork = 2 << 20
)

// fillLinkTargets reads the targets of the symbolic links Entries can
// show: unencrypted links stored or deflated, of at most
// maxListedLinkTarget bytes, while the data read stays within
// maxLinkListWork in total. No password is asked for. The others keep an
// empty LinkTarget, which Extract fills; a link whose data does not
// decode or check is left empty too, and Extract reports the error.
func (rd *Reader) fillLinkTargets() {
	var chosen map[*archive.Entry]bool
	var work int64
	for i, e := range rd.entries {
		f := &rd.files[i]
		if e.Type != archive.TypeSymlink || e.LinkTarget != "" ||
			f.flags&(flagEncrypted|flagStrong|flagMasked) != 0 || f.method == methodAES ||
			(f.realMethod != methodStore && f.realMethod != methodDeflate) ||
			f.usize < 0 || f.usize > maxListedLinkTarget || f.csize < 0 || f.csize > maxListedLinkPacked ||
			work+f.usize+f.csize > maxLinkListWork {
			continue
		}
		if chosen == nil {
			chosen = make(map[*archive.Entry]bool)
		}
		chosen[e] = true
		work += f.usize + f.csize
	}
	if len(chosen) == 0 {
		return
	}
	_ = rd.Extract(context.Background(), func(e *archive.Entry) bool { return chosen[e] },
		func(*archive.Entry, io.Reader) error { return nil })
}
