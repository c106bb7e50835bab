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

// pattern is one wildcard split into path components.
type pattern struct {
	text     string
	parts    []string
	anyDepth bool // "**/" prefix, -r, or an exclude without '/'
}

func newPattern(text string, anyDepth bool) pattern {
	t := strings.ReplaceAll(text, "\\", "/")
	for strings.HasPrefix(t, "**/") {
		t = t[3:]
		anyDepth = true
	}
	t = strings.TrimPrefix(t, "./")
	t = strings.Trim(t, "/")
	return pattern{text: text, parts: strings.Split(t, "/"), anyDepth: anyDepth}
}

// New builds a Selector. Arguments that start with '@' name list
// files holding one pattern per line.
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
		// An exclude without a '/' applies at any depth, like 7-Zip's -xr!.
		s.excludes = append(s.excludes, newPattern(p, recursive || !strings.Contains(strings.Trim(strings.ReplaceAll(p, "\\", "/"), "/"), "/")))
	}
	return s, nil
}

// ExpandListFiles replaces each "@file" by the non-empty lines of file.
// A list file that cannot be opened is an error wrapping ErrListFile.
func ExpandListFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "@") || len(a) == 1 {
			out = append(out, a)
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
				out = append(out, line)
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
	name := strings.Trim(strings.ReplaceAll(e.Name, "\\", "/"), "/")
	comps := strings.Split(name, "/")
	if len(s.includes) > 0 {
		ok := false
		for i := range s.includes {
			if s.includes[i].match(comps) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for i := range s.excludes {
		if s.excludes[i].match(comps) {
			return false
		}
	}
	return true
}

// match reports whether the pattern matches the path (given as
// components) or one of its parent directories: a matched directory
// brings its whole subtree. With anyDepth the pattern may start at any
// component, otherwise it is anchored at the archive root.
func (p *pattern) match(comps []string) bool {
	last := 0
	if p.anyDepth {
		last = len(comps) - len(p.parts)
	}
	for start := 0; start <= last; start++ {
		if len(comps)-start < len(p.parts) {
			break
		}
		ok := true
		for j, pp := range p.parts {
			if !wildcard.Match(pp, comps[start+j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
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
		deep := *p
		deep.anyDepth = true
		for _, e := range entries {
			comps := strings.Split(strings.Trim(strings.ReplaceAll(e.Name, "\\", "/"), "/"), "/")
			switch {
			case p.match(comps):
				hits++
			case !p.anyDepth && deep.match(comps):
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
