package rar

import (
	"context"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Bounds on the work Entries does to fill the targets of RAR 1.5–4.x
// symbolic links, whose target is stored as the entry's data.
const (
	// maxListedLinkTarget is the largest link data decoded for a
	// listing; a larger link keeps an empty LinkTarget until extracted.
	maxListedLinkTarget = 4 << 10
	// maxLinkListWork bounds the unpacked bytes decoded for listing link
	// targets, predecessors in a solid stream included: a link deep in a
	// large solid archive is left for extraction.
	maxLinkListWork = 2 << 20
)

// fillLinkTargets decodes the targets of the RAR 1.5–4.x symbolic links
// that Entries can show: unencrypted links of at most
// maxListedLinkTarget bytes whose decoding (with their solid predecessors)
// stays within maxLinkListWork in total and needs no password. The others
// keep an empty LinkTarget, which Extract fills. A link whose data does
// not decode or check is left empty too: Extract reports the error.
func (r *reader) fillLinkTargets() {
	chosen := linksToList(r.files)
	if len(chosen) == 0 {
		return
	}
	// Extract sets LinkTarget of the links it visits; errors leave the
	// target empty and are reported again when the entry is extracted.
	_ = r.Extract(context.Background(), func(e *archive.Entry) bool { return chosen[e] },
		func(*archive.Entry, io.Reader) error { return nil })
}

// linksToList chooses the links fillLinkTargets decodes, in archive
// order while the work stays within maxLinkListWork.
func linksToList(files []*fileInfo) map[*archive.Entry]bool {
	// pending is, per decoder family, the unpacked bytes of the solid
	// stream since the last entry chosen (what choosing the next entry
	// of the stream costs on top of its own size); pendingLocked says
	// whether that span holds an encrypted entry.
	var pending [numAlgos]int64
	var pendingLocked [numAlgos]bool
	var work int64
	chosen := make(map[*archive.Entry]bool)
	for _, f := range files {
		dec := f.usesDecoder()
		if dec && !f.solid {
			pending[f.algo], pendingLocked[f.algo] = 0, false
		}
		cost := f.e.Size
		if dec {
			cost += pending[f.algo]
		}
		ok := f.linkData && f.e.LinkTarget == "" && f.enc == encNone && !f.badMethod &&
			f.e.Size >= 0 && f.e.Size <= maxListedLinkTarget &&
			!(dec && pendingLocked[f.algo]) && work+cost <= maxLinkListWork
		if ok {
			chosen[&f.e] = true
			work += cost
			if dec {
				pending[f.algo] = 0
			}
			continue
		}
		if dec {
			if f.e.Size < 0 {
				pending[f.algo] = maxLinkListWork + 1
			} else {
				pending[f.algo] = min(pending[f.algo]+f.e.Size, maxLinkListWork+1)
			}
			pendingLocked[f.algo] = pendingLocked[f.algo] || f.enc != encNone
		}
	}
	return chosen
}
