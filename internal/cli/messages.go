package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// errStdout is the failure to write extracted data to standard output
// (x -so into a full disk or /dev/full): exit 9, as for an output file.
var errStdout = errors.New("cannot write to standard output")

// userText is err's message in the user's terms: a file error of the
// operating system names the file and the cause without Go's operation,
// and a file that is missing is "no such file" ("stat x.7z: no such file
// or directory" reads "x.7z: no such file", "write /out/f: no space left
// on device" reads "/out/f: no space left on device").
func userText(err error) string {
	msg := err.Error()
	for _, pe := range pathErrors(err, nil) {
		msg = strings.Replace(msg, pe.Error(), pe.Path+": "+osCause(pe), 1)
	}
	return msg
}

// pathErrors appends the *fs.PathError values in err's tree to dst.
func pathErrors(err error, dst []*fs.PathError) []*fs.PathError {
	switch e := err.(type) {
	case nil:
		return dst
	case *fs.PathError:
		return append(dst, e)
	case interface{ Unwrap() []error }:
		for _, w := range e.Unwrap() {
			dst = pathErrors(w, dst)
		}
		return dst
	}
	return pathErrors(errors.Unwrap(err), dst)
}

// osCause is what went wrong in pe: "no such file" for a file that was
// to be opened and is missing, else the system's wording.
func osCause(pe *fs.PathError) string {
	switch pe.Op {
	case "open", "stat", "lstat":
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return "no such file"
		}
	}
	return pe.Err.Error()
}

// stdoutErr is the error of a failed write to standard output: errStdout
// with the system's cause (its name for standard output, "/dev/stdout",
// is not what the user redirected it to).
func stdoutErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%w: %w", errStdout, err)
}

// repeats keeps the diagnostics of one archive from repeating: a line
// printed already is not printed again (a stream's failure reported for
// its entry, then by the archive reader), and an error whose line differs
// from an earlier entry's only in the entry's name is counted instead, to
// be summed up when the archive is done (a solid block whose entries all
// fail for one cause). Only printed lines are kept: at most
// maxEntryDiagnostics about entries, and the archive's own.
type repeats struct {
	lines  map[string]bool
	causes map[string]int // an entry's line without its name → index in groups
	groups []repeatGroup
}

// repeatGroup is the entry whose line was printed for a cause and the
// number of entries counted with that cause since.
type repeatGroup struct {
	entry string
	more  int
}

// counted reports whether line, an error of entry, has the cause of a
// line printed for another entry; it is then counted.
func (r *repeats) counted(line, entry string) bool {
	i, ok := r.causes[repeatCause(line, entry)]
	if ok {
		r.groups[i].more++
	}
	return ok
}

// add records line, printed for entry ("" for the archive); group says
// that later entries with its cause are counted.
func (r *repeats) add(line, entry string, group bool) {
	if r.lines == nil {
		r.lines = make(map[string]bool)
	}
	r.lines[line] = true
	if group && entry != "" {
		if r.causes == nil {
			r.causes = make(map[string]int)
		}
		r.causes[repeatCause(line, entry)] = len(r.groups)
		r.groups = append(r.groups, repeatGroup{entry: entry})
	}
}

// repeatCause is an entry's diagnostic line without the entry's name.
func repeatCause(line, entry string) string {
	return strings.Replace(line, entry+": ", "", 1)
}

// summary returns a line per cause counting the entries not shown with
// it: "ARCHIVE: and 7 more files with the same error as ENTRY".
func (r *repeats) summary(archiveName string) []string {
	var out []string
	for _, g := range r.groups {
		if g.more > 0 {
			files := "files"
			if g.more == 1 {
				files = "file"
			}
			out = append(out, fmt.Sprintf("%s: and %d more %s with the same error as %s", archiveName, g.more, files, g.entry))
		}
	}
	return out
}
