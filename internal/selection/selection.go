package selection

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/wildcard"
)

// Errors of a selection. Test them with errors.Is.
var (
	// ErrNoMatch is what NoMatch wraps: the patterns chose nothing.
	ErrNoMatch = errors.New("no files matched the patterns")
	// ErrListFile marks an @LISTFILE that could not be opened.
	ErrListFile = errors.New("list file")
)

// Selector decides which entries a command works on, with 7-Zip's
// wildcard rules (see the package documentation).
type Selector struct {
	includes  []pattern
	excludes  []pattern
	recursive bool
}

// pattern is one wildcard with its recursion.
type pattern struct {
	text string
	wildcard.Pattern
	recursion wildcard.Recursion
}

// Recursion prefixes of a pattern's text (the argv rewriter writes them
// for 7-Zip's -xr!, -xr-!, -ir! …).
const (
	anyDepth = "**/"
	rootOnly = "./"
)

// newPattern compiles text; a pattern without a recursion prefix is
// recursive when -r was given, anchored at the root otherwise.
func newPattern(text string, recursive bool) pattern {
	r := wildcard.NotRecursive
	if recursive {
		r = wildcard.Recursive
	}
	t := text // '\' separates on Windows only (wildcard.NewPattern)
	switch {
	case strings.HasPrefix(t, anyDepth):
		r = wildcard.Recursive
		for strings.HasPrefix(t, anyDepth) {
			t = t[len(anyDepth):]
		}
	case strings.HasPrefix(t, rootOnly):
		r = wildcard.NotRecursive
	}
	return pattern{text: text, Pattern: wildcard.NewPattern(t, r), recursion: r}
}

// New builds a Selector. Arguments that start with '@' name list
// files holding one pattern per line; a recursion prefix before the '@'
// ("**/@FILE", "./@FILE") applies to each line.
func New(includes, excludes []string, recursive bool) (*Selector, error) {
	s := &Selector{recursive: recursive}
	inc, err := ExpandListFiles(includes)
	if err != nil {
		return nil, err
	}
	exc, err := ExpandListFiles(excludes)
	if err != nil {
		return nil, err
	}
	for _, p := range inc {
		s.includes = append(s.includes, newPattern(p, recursive))
	}
	for _, p := range exc {
		s.excludes = append(s.excludes, newPattern(p, recursive))
	}
	return s, nil
}

// Excludes returns the compiled exclude patterns (for collect.Options).
func (s *Selector) Excludes() []wildcard.Pattern {
	out := make([]wildcard.Pattern, len(s.excludes))
	for i := range s.excludes {
		out[i] = s.excludes[i].Pattern
	}
	return out
}

// ExpandListFiles replaces each "@file" by the non-empty lines of file,
// and "**/@file" or "./@file" by the lines with that prefix.
// A list file that cannot be opened is an error wrapping ErrListFile.
func ExpandListFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		prefix := ""
		for _, p := range []string{anyDepth, rootOnly} {
			if strings.HasPrefix(a, p+"@") {
				prefix, a = p, a[len(p):]
			}
		}
		if !strings.HasPrefix(a, "@") || len(a) == 1 {
			out = append(out, prefix+a)
			continue
		}
		f, err := os.Open(a[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrListFile, err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
			if line != "" {
				out = append(out, prefix+line)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("list file %s: %w", a[1:], err)
		}
	}
	return out, nil
}

// Filtered reports whether any pattern restricts the selection.
func (s *Selector) Filtered() bool { return len(s.includes) > 0 || len(s.excludes) > 0 }

// Want reports whether e is selected: it matches an include (or there
// are none) and no exclude.
func (s *Selector) Want(e *archive.Entry) bool {
	if !s.Filtered() {
		return true
	}
	var buf [16]string // components of most names, on the stack
	comps := appendComponents(buf[:0], e.Name)
	isDir := e.IsDir()
	if len(s.includes) > 0 {
		ok := false
		for i := range s.includes {
			if s.includes[i].Match(comps, isDir) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for i := range s.excludes {
		if s.excludes[i].Match(comps, isDir) {
			return false
		}
	}
	return true
}

// components splits an entry name into its path components.
func components(name string) []string { return appendComponents(nil, name) }

// appendComponents appends the path components of an entry name to dst:
// the name is split at '/', the separator of archive.Entry names (a '\\'
// is a character of the name there), after removing leading and trailing
// separators (an empty name is one empty component). The components are
// substrings of name, so nothing is allocated while dst has room.
func appendComponents(dst []string, name string) []string {
	isSep := func(c byte) bool { return c == '/' }
	i, j := 0, len(name)
	for i < j && isSep(name[i]) {
		i++
	}
	for j > i && isSep(name[j-1]) {
		j--
	}
	start := i
	for k := i; k < j; k++ {
		if isSep(name[k]) {
			dst = append(dst, name[start:k])
			start = k + 1
		}
	}
	return append(dst, name[start:j])
}

// NoMatch is the error for an archive in which the Selector chose
// nothing (exit 10). It names each include pattern that matched no entry
// with the usual cause: a pattern that would match below the top level
// without -r, or, when extracting, a destination directory written
// without its trailing '/' or -o. With every include matched, the
// excludes left nothing.
func (s *Selector) NoMatch(archiveName string, entries []*archive.Entry, extracting bool) error {
	var unmatched []string
	for i := range s.includes {
		p := &s.includes[i]
		hits, deeper := 0, 0
		deep := newPattern(anyDepth+strings.TrimPrefix(p.text, rootOnly), true)
		for _, e := range entries {
			comps := components(e.Name)
			switch {
			case p.Match(comps, e.IsDir()):
				hits++
			case p.recursion != wildcard.Recursive && deep.Match(comps, e.IsDir()):
				deeper++
			}
		}
		if hits > 0 {
			continue
		}
		msg := fmt.Sprintf("%q", p.text)
		switch {
		case deeper > 0:
			msg += fmt.Sprintf(" (matches %d below the top level: patterns start at the archive root; -r or **/ matches at any depth)", deeper)
		case extracting && !strings.ContainsAny(p.text, "*?[") && len(unmatched) == 0 && i == len(s.includes)-1:
			msg += " (if it is the destination directory, write it with a trailing / or as -o DIR)"
		}
		unmatched = append(unmatched, msg)
	}
	if len(unmatched) == 0 {
		if len(s.excludes) == 0 {
			return fmt.Errorf("%s: %w", archiveName, ErrNoMatch)
		}
		var exc []string
		for _, p := range s.excludes {
			exc = append(exc, fmt.Sprintf("%q", p.text))
		}
		return fmt.Errorf("%s: %w: every selected entry is excluded by %s", archiveName, ErrNoMatch, strings.Join(exc, ", "))
	}
	return fmt.Errorf("%s: %w: nothing matches %s", archiveName, ErrNoMatch, strings.Join(unmatched, ", "))
}
