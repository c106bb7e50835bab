package conformance

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/opener"
)

// KnownFailures reads a known-failures file: one "unit TAB reason" per
// line; '#' starts a comment line.
func KnownFailures(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		unit, reason, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: want unit TAB reason", path, n)
		}
		known[unit] = reason
	}
	return known, sc.Err()
}

// DifferencesEnv names the environment variable holding the path of a
// platform's expected differences (see KnownDifferences).
const DifferencesEnv = "GARC_KNOWN_DIFFERENCES"

// Difference is an expected difference of a platform for one unit: every
// problem the unit shows must match Pattern, and there must be at least
// one, so that the list stays true in both directions.
type Difference struct {
	Pattern *regexp.Regexp
	Reason  string
}

// Check returns "" when problems are what d expects, or what is wrong.
func (d Difference) Check(problems []string) string {
	if len(problems) == 0 {
		return "not seen any more: the unit passes; remove it from the list"
	}
	for _, p := range problems {
		if !d.Pattern.MatchString(p) {
			return fmt.Sprintf("problem %q does not match %q", p, d.Pattern)
		}
	}
	return ""
}

// KnownDifferences reads a list of expected differences: one
// "corpus/unit TAB pattern TAB reason" per line, where corpus is the
// corpus directory's name (corpus, corpus-more) and pattern a regular
// expression every problem of the unit must match; '#' starts a comment
// line.
func KnownDifferences(path string) (map[string]Difference, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	diffs := map[string]Difference{}
	for n, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" || strings.TrimSpace(f[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want corpus/unit TAB pattern TAB reason", path, n+1)
		}
		re, err := regexp.Compile(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if _, dup := diffs[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, n+1, f[0])
		}
		diffs[f[0]] = Difference{Pattern: re, Reason: f[2]}
	}
	return diffs, nil
}

// options returns the reader options for a unit.
func options(u *corpus.Unit, maxDict int64) *archive.Options {
	pw := u.Password
	return &archive.Options{
		Name:    u.Unit,
		MaxDict: maxDict,
		Password: func() (string, error) {
			if pw == "" {
				return "", archive.ErrPasswordRequired
			}
			return pw, nil
		},
	}
}

// protect runs f, turning a panic into an error with the stack.
func protect(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

// errPanic reports whether err came from protect's recovery.
func isPanic(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "panic: ") }

// testAll reads every entry of r to the end, as `garc t` does, and returns
// the per-entry errors and the error of Extract itself.
func testAll(ctx context.Context, r archive.Reader) (entryErrs []error, err error) {
	buf := make([]byte, 128<<10)
	err = r.Extract(ctx, nil, func(e *archive.Entry, rd io.Reader) error {
		if _, cerr := io.CopyBuffer(discard, rd, buf); cerr != nil {
			entryErrs = append(entryErrs, fmt.Errorf("%s: %w", e.Name, cerr))
		}
		return ctx.Err()
	})
	return entryErrs, err
}

// extractResult is what an extraction run reported.
type extractResult struct {
	refused  []string // entries refused by the extractor (warnings)
	entryErr []error  // other per-entry errors
	err      error    // New, Extract or Finish
}

// extractAll extracts every entry of r into dest through the safe
// extractor.
func extractAll(ctx context.Context, r archive.Reader, dest string) extractResult {
	var res extractResult
	x, err := newSink(dest, func(entry string, err error) {
		if errors.Is(err, errRefused) {
			res.refused = append(res.refused, entry)
		}
	})
	if err != nil {
		res.err = err
		return res
	}
	err = r.Extract(ctx, nil, func(e *archive.Entry, rd io.Reader) error {
		werr := x.Write(e, rd)
		switch {
		case werr == nil:
		case errors.Is(werr, errRefused):
			res.refused = append(res.refused, e.Name)
		default:
			res.entryErr = append(res.entryErr, fmt.Errorf("%s: %w", e.Name, werr))
		}
		return ctx.Err()
	})
	if err != nil {
		x.Abort()
		res.err = err
		return res
	}
	res.err = x.Finish()
	return res
}

// tree is what a directory holds: relative slash path → description.
type tree map[string]string

func fileDesc(size int64, sum string) string { return fmt.Sprintf("file %d %s", size, sum) }
func linkDesc(target string) string          { return "symlink -> " + target }

const dirDesc = "dir"

// expectedTree turns a ground-truth listing into a tree, in garc's terms:
//
//   - '\' is a path separator in every format (internal/extract treats it
//     so, on every platform, for safety), while 7zz on Linux keeps it as a
//     character of the name; listed paths are compared with '\' read as
//     '/'.
//   - Listings made from 7zz -so streams (gt_tool "7zz(-so stream)") show
//     directories as files holding the concatenation of their contents; a
//     listed path that is the parent of another listed path is a
//     directory.
func expectedTree(list []corpus.ExpectedEntry, fromStream bool) tree {
	t := tree{}
	parents := map[string]bool{}
	if fromStream {
		for _, e := range list {
			p := normalizeListed(e.Path)
			for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
				parents[dir] = true
			}
		}
	}
	for _, e := range list {
		p := normalizeListed(e.Path)
		switch {
		case e.IsSymlink:
			t[p] = linkDesc(e.LinkTarget)
		case e.IsDir || parents[p]:
			t[p] = dirDesc
		default:
			t[p] = fileDesc(e.Size, strings.ToLower(e.SHA256))
		}
	}
	return t
}

// normalizeListed maps a listed path to the slash path garc extracts it to.
func normalizeListed(p string) string {
	return strings.Trim(strings.ReplaceAll(p, "\\", "/"), "/")
}

// withParents returns t plus the parent directories of its paths, which
// extraction creates even when the listing does not name them.
func withParents(t tree) tree {
	out := tree{}
	for p, d := range t {
		out[p] = d
	}
	for p := range t {
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if _, ok := out[dir]; !ok {
				out[dir] = dirDesc
			}
		}
	}
	return out
}

// walkTree describes everything under dir.
func walkTree(dir string) (tree, error) {
	t := tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			t[rel] = linkDesc(target)
		case d.IsDir():
			t[rel] = dirDesc
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			n, err := io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			t[rel] = fileDesc(n, hex.EncodeToString(h.Sum(nil)))
		default:
			t[rel] = "special " + d.Type().String()
		}
		return nil
	})
	return t, err
}

// diffTrees lists the differences between want and got, at most max.
func diffTrees(want, got tree, max int) []string {
	var keys []string
	seen := map[string]bool{}
	for k := range want {
		keys = append(keys, k)
		seen[k] = true
	}
	for k := range got {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		w, wok := want[k]
		g, gok := got[k]
		switch {
		case !gok:
			out = append(out, fmt.Sprintf("x: missing %s (want %s)", k, w))
		case !wok:
			out = append(out, fmt.Sprintf("x: unexpected %s (%s)", k, g))
		case w != g:
			out = append(out, fmt.Sprintf("x: %s is %s, want %s", k, g, w))
		}
		if len(out) >= max {
			out = append(out, "…")
			break
		}
	}
	return out
}

// listNames compares the entry names garc lists (anti-items left out)
// with the listing: every listed file must be an entry and every entry
// must be listed (the listing may add parent directories the archive does
// not store).
func listNames(entries []string, want tree) []string {
	names := map[string]bool{}
	var out []string
	for _, e := range entries {
		n := strings.TrimPrefix(normalizeListed(e), "./")
		names[n] = true
		if _, ok := want[n]; !ok {
			out = append(out, fmt.Sprintf("l: lists %q, not in the listing", e))
		}
	}
	for p, d := range want {
		if d != dirDesc && !names[p] {
			out = append(out, fmt.Sprintf("l: does not list %q", p))
		}
	}
	sort.Strings(out)
	if len(out) > 10 {
		out = append(out[:10], "…")
	}
	return out
}

// escapesLexically reports whether a symbolic link at linkPath (a
// slash path relative to the destination) with the given target points
// outside the destination: an absolute or drive-letter target, or one
// that climbs above the root.
func escapesLexically(linkPath, target string) bool {
	t := strings.ReplaceAll(target, "\\", "/")
	if strings.HasPrefix(t, "/") || len(t) >= 2 && t[1] == ':' {
		return true
	}
	c := path.Clean(path.Join(path.Dir(linkPath), t))
	return c == ".." || strings.HasPrefix(c, "../")
}

// climbsOverNonDirectory reports whether the link target, followed from
// the link's directory, climbs with ".." back over a component the target
// itself named that the expected tree t does not hold as a directory: the
// meaning of such a target depends on what that name becomes later.
func climbsOverNonDirectory(linkPath, target string, t tree) bool {
	var stack []string
	if d := path.Dir(linkPath); d != "." {
		stack = strings.Split(d, "/")
	}
	base := len(stack) // components below this index are the link's own directory
	for _, c := range strings.Split(strings.ReplaceAll(target, "\\", "/"), "/") {
		switch c {
		case "", ".":
		case "..":
			if len(stack) > base && t[strings.Join(stack, "/")] != dirDesc {
				return true
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) < base {
				base = len(stack)
			}
		default:
			stack = append(stack, c)
		}
	}
	return false
}

// escapingLinks lists symbolic links under dir that resolve outside it.
func escapingLinks(dir string) []string {
	var out []string
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return []string{err.Error()}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		resolved, err := filepath.EvalSymlinks(p)
		if err != nil {
			// Dangling: judge the lexical target.
			target, _ := os.Readlink(p)
			if filepath.IsAbs(target) {
				resolved = target
			} else {
				resolved = filepath.Join(filepath.Dir(p), target)
			}
			if r2, err := filepath.Abs(resolved); err == nil {
				resolved = r2
			}
			if !strings.HasPrefix(resolved+string(filepath.Separator), dir+string(filepath.Separator)) {
				out = append(out, p+" -> "+target)
			}
			return nil
		}
		if !strings.HasPrefix(resolved+string(filepath.Separator), real+string(filepath.Separator)) {
			out = append(out, p+" -> "+resolved)
		}
		return nil
	})
	return out
}

// sandbox is a destination inside a parent directory that must hold
// nothing else afterwards.
type sandbox struct {
	parent, dest string
}

func newSandbox(tmp string) (sandbox, error) {
	s := sandbox{parent: filepath.Join(tmp, "parent")}
	s.dest = filepath.Join(s.parent, "dest")
	return s, os.MkdirAll(s.dest, 0o755)
}

// escaped lists what appeared beside the destination.
func (s sandbox) escaped() []string {
	var out []string
	for _, dir := range []string{filepath.Dir(s.parent), s.parent} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return []string{err.Error()}
		}
		for _, e := range ents {
			if filepath.Join(dir, e.Name()) != s.parent && filepath.Join(dir, e.Name()) != s.dest {
				out = append(out, "created outside the destination: "+filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

// openUnit opens the unit's archive.
func openUnit(root string, u *corpus.Unit, maxDict int64) (archive.Reader, error) {
	var r archive.Reader
	err := protect(func() error {
		var err error
		r, err = opener.Open(u.Path(root), options(u, maxDict))
		return err
	})
	return r, err
}

// discard hides io.Discard's ReadFrom so that io.CopyBuffer reads with
// our large buffer.
var discard = struct{ io.Writer }{io.Discard}
