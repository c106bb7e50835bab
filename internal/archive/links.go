package archive

// WithLinkTargets extends a selection of entries by the entries that the
// selected hard links and file copies (TypeHardlink, TypeCopy) are made
// from, transitively: an extractor creates those from files it has
// already written, so the targets must come along. The target of a link
// is the last entry before it whose Name equals its LinkTarget, as in
// RAR and 7-Zip.
//
// entries are in archive order. It takes time and memory linear in their
// number: one forward pass maps every link to its target, one backward
// pass adds the targets of selected links (a target always precedes its
// link, so the backward pass closes chains of any length). It returns
// want itself when no selected entry is such a link.
func WithLinkTargets(entries []*Entry, want func(*Entry) bool) func(*Entry) bool {
	selected := make([]bool, len(entries))
	links := false
	for i, e := range entries {
		selected[i] = want(e)
		links = links || selected[i] && isMadeFromEntry(e)
	}
	if !links {
		return want
	}
	// target[i] is the index of the entry link i is made from, or -1.
	target := make([]int32, len(entries))
	last := make(map[string]int32, len(entries))
	for i, e := range entries {
		target[i] = -1
		if isMadeFromEntry(e) {
			if j, ok := last[e.LinkTarget]; ok {
				target[i] = j
			}
		}
		last[e.Name] = int32(i)
	}
	added := make(map[*Entry]bool)
	for i := len(entries) - 1; i >= 0; i-- {
		if j := target[i]; selected[i] && j >= 0 && !selected[j] {
			selected[j] = true
			added[entries[j]] = true
		}
	}
	return func(e *Entry) bool { return added[e] || want(e) }
}

// isMadeFromEntry reports whether an entry's content comes from an
// earlier entry of the same archive.
func isMadeFromEntry(e *Entry) bool {
	return e.Type == TypeHardlink || e.Type == TypeCopy
}
