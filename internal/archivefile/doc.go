// Package archivefile writes the output file of `garc a` and `garc d`
// without ever damaging what is already there: the new archive goes to
// temporary files beside the target (named by internal/tempname), which are
// flushed, fsynced and renamed over the target only by Commit. Abort, or a
// failed Commit, removes them and leaves the previous archive byte-identical.
// With a volume size the output is split into TARGET.001, TARGET.002 …, as
// 7-Zip's -v switch does.
package archivefile
