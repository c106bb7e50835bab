package rar

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// knownFailures lists corpus units that do not pass yet, with the reason.
var knownFailures = map[string]string{}

func isRARFormat(f string) bool {
	return f == "rar5" || f == "rar4" || f == "rar1.5-2" || f == "rar1.4"
}

func corpusUnits(t testing.TB) (string, []corpus.Unit) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpus.Unit
	for _, u := range units {
		if isRARFormat(u.Format) {
			out = append(out, u)
		}
	}
	return root, out
}

// openUnit opens a corpus unit the way the opener would.
func openUnit(root string, u *corpus.Unit, opts *archive.Options) (archive.Reader, error) {
	if u.Kind == "raw-split" {
		var buf bytes.Buffer
		for _, m := range u.Members {
			b, err := os.ReadFile(root + "/" + m)
			if err != nil {
				return nil, err
			}
			buf.Write(b)
		}
		return NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), opts)
	}
	return Open(u.Path(root), opts)
}

func unitOptions(u *corpus.Unit) *archive.Options {
	o := &archive.Options{Name: u.Unit}
	if u.Password != "" {
		pw := u.Password
		o.Password = func() (string, error) { return pw, nil }
	}
	return o
}

type gotEntry struct {
	e    *archive.Entry
	sum  string
	size int64
	err  error
}

// extractAll extracts every entry, hashing contents.
func extractAll(r archive.Reader) (map[int]*gotEntry, error) {
	got := map[int]*gotEntry{}
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		h := sha256.New()
		n, err := io.Copy(h, rd)
		got[int(e.Index)] = &gotEntry{e: e, sum: hex.EncodeToString(h.Sum(nil)), size: n, err: err}
		return nil
	})
	return got, err
}

type unitResult struct {
	listOK, contentOK bool
	msg               string
}

// mixedPasswords reports units whose entries use two passwords; entries
// with the other password must fail with ErrWrongPassword.
func mixedPasswords(u *corpus.Unit) bool {
	return strings.Contains(u.GTNote, "two different passwords")
}

// checkUnit runs the listing and content checks of an expect=ok unit.
func checkUnit(root string, u *corpus.Unit) (res unitResult) {
	want, err := corpus.Listing(root, u.Expected)
	if err != nil {
		res.msg = err.Error()
		return
	}
	r, err := openUnit(root, u, unitOptions(u))
	if err != nil {
		res.msg = "open: " + err.Error()
		return
	}
	defer r.Close()
	if u.Kind == "rar-volumes" {
		var got []string
		for _, v := range r.Info().Volumes {
			rel, _ := filepath.Rel(root, v)
			got = append(got, rel)
		}
		if strings.Join(got, " ") != strings.Join(u.Members, " ") {
			res.msg = fmt.Sprintf("volumes %q, want %q", got, u.Members)
			return
		}
	}
	byName := map[string]*archive.Entry{}
	for _, e := range r.Entries() {
		byName[strings.TrimSuffix(e.Name, "/")] = e
	}
	dirs := map[string]bool{}
	for n := range byName {
		for d := path.Dir(n); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var problems []string
	wantNames := map[string]bool{}
	for _, w := range want {
		wantNames[w.Path] = true
		e := byName[w.Path]
		if e == nil {
			if w.IsDir && dirs[w.Path] {
				continue
			}
			problems = append(problems, "missing "+w.Path)
			continue
		}
		switch {
		case w.IsDir && e.Type != archive.TypeDir:
			problems = append(problems, w.Path+": not a dir")
		case w.IsSymlink && e.Type != archive.TypeSymlink:
			problems = append(problems, w.Path+": not a symlink, "+e.Type.String())
		case !w.IsDir && !w.IsSymlink && e.Type != archive.TypeFile && e.Type != archive.TypeHardlink && e.Type != archive.TypeCopy:
			problems = append(problems, w.Path+": type "+e.Type.String())
		case !w.IsDir && !w.IsSymlink && e.Size != w.Size && e.Size >= 0 && e.Type == archive.TypeFile:
			problems = append(problems, fmt.Sprintf("%s: size %d want %d", w.Path, e.Size, w.Size))
		}
	}
	linkEscape := strings.HasPrefix(u.GTNote, "LINK-ESCAPE:")
	for n, e := range byName {
		// The reference tool left out links escaping the destination.
		if linkEscape && e.Type == archive.TypeSymlink && strings.Contains(u.GTNote, path.Base(n)) {
			continue
		}
		if !wantNames[n] && !(e.Type == archive.TypeDir) {
			problems = append(problems, "unexpected "+n)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		res.msg = "listing: " + strings.Join(problems[:min(len(problems), 5)], "; ")
		return
	}
	res.listOK = true
	got, err := extractAll(r)
	if err != nil {
		res.msg = "extract: " + err.Error()
		return
	}
	sums := map[string]string{}
	skipped := map[string]bool{}
	for _, e := range r.Entries() {
		g := got[int(e.Index)]
		if g == nil {
			continue
		}
		if g.err != nil && mixedPasswords(u) && errors.Is(g.err, archive.ErrWrongPassword) {
			// encrypted with the other password: must fail as such
			skipped[e.Name] = true
			continue
		}
		if g.err != nil {
			problems = append(problems, g.err.Error())
			continue
		}
		switch e.Type {
		case archive.TypeFile:
			sums[strings.TrimSuffix(e.Name, "/")] = g.sum
		case archive.TypeHardlink, archive.TypeCopy:
			sums[e.Name] = sums[e.LinkTarget]
		}
	}
	for _, w := range want {
		e := byName[w.Path]
		if e == nil {
			continue
		}
		if w.IsSymlink {
			if e.LinkTarget != w.LinkTarget {
				problems = append(problems, fmt.Sprintf("%s: link %q want %q", w.Path, e.LinkTarget, w.LinkTarget))
			}
			continue
		}
		if w.IsDir || skipped[w.Path] {
			continue
		}
		if sums[w.Path] != w.SHA256 {
			problems = append(problems, w.Path+": sha256 mismatch")
		}
	}
	if len(problems) > 0 {
		res.msg = "content: " + strings.Join(problems[:min(len(problems), 5)], "; ")
		return
	}
	res.contentOK = true
	return
}

// checkErrorUnit opens and extracts a unit that must fail cleanly.
func checkErrorUnit(root string, u *corpus.Unit) error {
	r, err := openUnit(root, u, unitOptions(u))
	if err != nil {
		return err
	}
	defer r.Close()
	var first error
	got, err := extractAll(r)
	if err != nil {
		return err
	}
	for _, e := range r.Entries() {
		if g := got[int(e.Index)]; g != nil && g.err != nil && first == nil {
			first = g.err
		}
	}
	return first
}

func TestCorpus(t *testing.T) {
	root, units := corpusUnits(t)
	type count struct{ units, list, content, known int }
	counts := map[string]*count{}
	for i := range units {
		u := &units[i]
		c := counts[u.Format]
		if c == nil {
			c = &count{}
			counts[u.Format] = c
		}
		t.Run(strings.TrimPrefix(u.Unit, "files/"), func(t *testing.T) {
			switch {
			case u.Expect == "ok" && u.Expected != "" && (u.GTNote == "" || strings.HasPrefix(u.GTNote, "LINK-ESCAPE:") || mixedPasswords(u)):
				c.units++
				if testing.Short() && strings.Contains(u.Unit, "rar7-md6g") {
					t.Skip("6 GiB dictionary")
				}
				res := checkUnit(root, u)
				if res.listOK {
					c.list++
				}
				if res.contentOK {
					c.content++
				}
				reason, known := knownFailures[u.Unit]
				if !res.contentOK {
					if known {
						c.known++
						t.Logf("known failure (%s): %s", reason, res.msg)
						return
					}
					t.Errorf("%s", res.msg)
				} else if known {
					t.Logf("passes now; remove from knownFailures")
				}
			case strings.HasPrefix(u.Expect, "error"):
				err := checkErrorUnit(root, u)
				if err == nil {
					if reason, ok := knownFailures[u.Unit]; ok {
						t.Logf("known failure (%s): no error", reason)
						return
					}
					t.Errorf("expected an error")
					return
				}
				if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) &&
					!errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) &&
					!errors.Is(err, archive.ErrNotArchive) && !errors.Is(err, archive.ErrWrongPassword) {
					t.Errorf("error does not wrap a sentinel: %v", err)
				}
				t.Logf("error: %v", err)
			default:
				// unknown, or listings that are tool behaviour: must end
				// without a panic.
				err := checkErrorUnit(root, u)
				t.Logf("result: %v", err)
			}
		})
	}
	for _, f := range []string{"rar5", "rar4", "rar1.5-2", "rar1.4"} {
		if c := counts[f]; c != nil {
			t.Logf("%-8s ok-units %3d  listing %3d  content %3d  (known failures %d)",
				f, c.units, c.list, c.content, c.known)
		}
	}
}
