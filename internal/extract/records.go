package extract

// What a run did to file names is recorded for Rollback (what to remove
// or move back) and for hard links and file copies (which files they may
// be made from). An archive of many small files records one per file
// (issue 13), so a record is small (the entry's cleaned name, which is
// mostly the entry's own name string, and two words), the rare paths that
// differ from the entry's are kept aside, and the records live in chunks
// that never move: growing a slice of them would copy and discard
// several times the final size. The map hard links look names up in is
// built on the first hard link or copy, which most archives never have.

// placedFile records one entry placed at its name in this run.
type placedFile struct {
	key   string // the entry's cleaned name, for osPath
	paths int32  // index in recordList.paths; -1: at osPath's target, nothing moved aside
	flags placedFlags
}

// placedFlags say what a placedFile is for.
type placedFlags uint8

const (
	// placedNew: nothing existed at the name (or what existed was moved
	// aside): Rollback removes the file, link or hard link.
	placedNew placedFlags = 1 << iota
	// placedRegular: a regular file with the entry's content, which hard
	// links and copies of later entries may be made from.
	placedRegular
)

// placedPaths are a record's path, when not osPath's target, and where
// OverwriteRenameExisting moved the file that was there.
type placedPaths struct {
	path, aside string
}

// recordChunk is how many records a chunk holds.
const recordChunk = 1024

// recordList holds the records of a run in order.
type recordList struct {
	chunks [][]placedFile
	n      int
	paths  []placedPaths
	// byKey maps a cleaned entry name to its last placedRegular record;
	// nil until the first lookup.
	byKey map[string]int
}

// add appends a record of key with flags, at path (empty: osPath's
// target) after moving what was there to aside (empty: nothing).
func (l *recordList) add(key, path, aside string, flags placedFlags) {
	pf := placedFile{key: key, paths: -1, flags: flags}
	if path != "" || aside != "" {
		pf.paths = int32(len(l.paths))
		l.paths = append(l.paths, placedPaths{path, aside})
	}
	c := l.n / recordChunk
	if c == len(l.chunks) {
		l.chunks = append(l.chunks, make([]placedFile, 0, recordChunk))
	}
	l.chunks[c] = append(l.chunks[c], pf)
	if flags&placedRegular != 0 && l.byKey != nil {
		l.byKey[key] = l.n
	}
	l.n++
}

// at returns record i and its paths.
func (l *recordList) at(i int) (placedFile, placedPaths) {
	pf := l.chunks[i/recordChunk][i%recordChunk]
	var pp placedPaths
	if pf.paths >= 0 {
		pp = l.paths[pf.paths]
	}
	return pf, pp
}

// last returns a pointer to the last record, nil when there is none.
func (l *recordList) last() *placedFile {
	if l.n == 0 {
		return nil
	}
	i := l.n - 1
	return &l.chunks[i/recordChunk][i%recordChunk]
}

// markRegular marks the last record, which must be of key, as a regular
// file (see placedRegular).
func (l *recordList) markRegular(key string) {
	l.last().flags |= placedRegular
	if l.byKey != nil {
		l.byKey[key] = l.n - 1
	}
}

// regular returns the path of the last regular file recorded for key
// (empty: osPath's target for key).
func (l *recordList) regular(key string) (path string, ok bool) {
	if l.byKey == nil {
		l.byKey = make(map[string]int)
		for i := range l.n {
			if pf, _ := l.at(i); pf.flags&placedRegular != 0 {
				l.byKey[pf.key] = i
			}
		}
	}
	i, ok := l.byKey[key]
	if !ok {
		return "", false
	}
	_, pp := l.at(i)
	return pp.path, true
}

// reset forgets every record.
func (l *recordList) reset() { *l = recordList{} }
