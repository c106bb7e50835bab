package sevenzip

import (
	"context"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Bounds on the work Entries does to fill the targets of symbolic links,
// which 7z stores as the entries' data.
const (
	// maxListedLinkTarget is the largest link data decoded for a
	// listing; a larger link keeps an empty LinkTarget until extracted.
	maxListedLinkTarget = 4 << 10
	// maxLinkListWork bounds the unpacked bytes decoded for listing link
	// targets, the entries in front of a link in its folder included: a
	// link deep in a large solid block is left for extraction.
	maxLinkListWork = 2 << 20
)

// fillLinkTargets decodes the targets of the symbolic links Entries can
// show: links of at most maxListedLinkTarget bytes in folders that are
// not encrypted, while the decoding (with the data in front of them in
// their folders) stays within maxLinkListWork in total. No password is
// asked for. The others keep an empty LinkTarget, which Extract fills;
// a link whose data does not decode or check is left empty too, and
// Extract reports the error.
func (rd *Reader) fillLinkTargets() {
	chosen := rd.linksToList()
	if len(chosen) == 0 {
		return
	}
	_ = rd.Extract(context.Background(), func(e *archive.Entry) bool { return chosen[e] },
		func(*archive.Entry, io.Reader) error { return nil })
}

// linksToList chooses the links fillLinkTargets decodes, in archive
// order while the work stays within maxLinkListWork.
func (rd *Reader) linksToList() map[*archive.Entry]bool {
	var chosen map[*archive.Entry]bool
	var work int64
	// decoded is how far the chosen links' folder is decoded already
	// (Extract keeps a folder open across its wanted entries).
	lastFolder, decoded := -1, int64(0)
	for i, e := range rd.entries {
		m := rd.meta[i]
		if e.Type != archive.TypeSymlink || e.LinkTarget != "" || m.folder() < 0 ||
			e.Size < 0 || e.Size > maxListedLinkTarget || folderEncrypted(&rd.hdr.main.folders[m.folder()]) {
			continue
		}
		if m.folder() != lastFolder {
			lastFolder, decoded = m.folder(), 0
		}
		end := m.offset + e.Size
		cost := end - decoded
		if cost < 0 || work+cost > maxLinkListWork {
			continue
		}
		if chosen == nil {
			chosen = make(map[*archive.Entry]bool)
		}
		chosen[e] = true
		work += cost
		decoded = end
	}
	return chosen
}
