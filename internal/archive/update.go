package archive

import "time"

// UpdateReplaces is 7-Zip's default update rule, which `a` applies to an
// existing archive of any format: an input of type typ, size bytes (as
// the format stores it: a symbolic link's target length where the link's
// content is its target) and modification time mtime replaces the
// archived entry e of the same name when one is a directory and the other
// not, when the sizes differ, when e has no time, or when mtime is later
// than e's at the precision the format stores times with (prec: 100 ns
// for 7z, a second for tar and ZIP). Two directories never replace each
// other; otherwise the entry stays and the input is skipped as unchanged.
func UpdateReplaces(typ EntryType, size int64, mtime time.Time, e *Entry, prec time.Duration) bool {
	if typ == TypeDir && e.Type == TypeDir {
		return false
	}
	if (typ == TypeDir) != (e.Type == TypeDir) {
		return true
	}
	if size != e.Size || e.ModTime.IsZero() {
		return true
	}
	return mtime.Truncate(prec).After(e.ModTime.Truncate(prec))
}
