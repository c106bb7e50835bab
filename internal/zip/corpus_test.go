package zip

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

// corpusMoreRoot returns ../shared/corpus-more, skipping (or failing, in
// CI) when it is absent.
func corpusMoreRoot(t *testing.T) string {
	t.Helper()
	root, _ := corpus.Root()
	more := filepath.Join(filepath.Dir(root), "corpus-more")
	if st, err := os.Stat(filepath.Join(more, "units.tsv")); err != nil || st.IsDir() {
		testenv.Missing(t, "the shared corpus at "+more)
	}
	return more
}

// knownFailures lists must-pass units the reader does not pass yet, with
// the reason. The conformance test fails when one of them starts passing
// (so the list shrinks) or another one fails.
var knownFailures = map[string]string{}

// extracted is one entry as the conformance test saw it.
type extracted struct {
	size   int64
	sha    string
	dir    bool
	link   bool
	target string
}

// openUnit opens a corpus unit: a single file, a raw split (parts
// concatenated) or a PKWARE split set (parts after the unit in members).
func openUnit(root string, u *corpus.Unit) (archive.Reader, error) {
	opts := &archive.Options{Name: u.Unit}
	if u.Password != "" {
		pw := u.Password
		opts.Password = func() (string, error) { return pw, nil }
	}
	switch u.Kind {
	case "raw-split":
		var all []byte
		for _, m := range u.Members {
			b, err := os.ReadFile(filepath.Join(root, m))
			if err != nil {
				return nil, err
			}
			all = append(all, b...)
		}
		return NewReader(bytes.NewReader(all), int64(len(all)), opts)
	case "zip-split":
		var all []byte
		var sizes []int64
		for _, m := range u.Members {
			b, err := os.ReadFile(filepath.Join(root, m))
			if err != nil {
				return nil, err
			}
			all = append(all, b...)
			sizes = append(sizes, int64(len(b)))
		}
		return NewSplitReader(bytes.NewReader(all), sizes, opts)
	}
	b, err := os.ReadFile(u.Path(root))
	if err != nil {
		return nil, err
	}
	return NewReader(bytes.NewReader(b), int64(len(b)), opts)
}

// extractUnit extracts every entry, returning what it saw by cleaned path
// and the first error.
func extractUnit(r archive.Reader) (map[string]extracted, error) {
	got := map[string]extracted{}
	var first error
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
		h := sha256.New()
		n, err := io.Copy(h, rc)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%s: %w", e.Name, err)
			}
			return nil
		}
		if n > e.Size && e.Size >= 0 {
			return fmt.Errorf("%s: %d bytes, declared %d", e.Name, n, e.Size)
		}
		name := strings.TrimSuffix(strings.ReplaceAll(e.Name, "\\", "/"), "/")
		got[name] = extracted{size: n, sha: hex.EncodeToString(h.Sum(nil)), dir: e.Type == archive.TypeDir,
			link: e.Type == archive.TypeSymlink, target: e.LinkTarget}
		return nil
	})
	if err == nil {
		err = first
	}
	return got, err
}

// compareListing checks the extracted entries against the ground truth.
func compareListing(got map[string]extracted, want []corpus.ExpectedEntry) error {
	var problems []string
	implied := map[string]bool{}
	seen := map[string]bool{}
	for _, w := range want {
		p := strings.TrimSuffix(strings.ReplaceAll(w.Path, "\\", "/"), "/")
		seen[p] = true
		g, ok := got[p]
		if w.IsDir {
			if !ok && !impliedDir(got, p) {
				problems = append(problems, "missing dir "+p)
			}
			continue
		}
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			implied[d] = true
		}
		switch {
		case !ok:
			problems = append(problems, "missing "+p)
		case w.IsSymlink:
			if !g.link || g.target != w.LinkTarget {
				problems = append(problems, fmt.Sprintf("%s: link %v %q, want %q", p, g.link, g.target, w.LinkTarget))
			}
		case g.dir || g.link:
			problems = append(problems, p+": not a file")
		case g.size != w.Size || g.sha != w.SHA256:
			problems = append(problems, fmt.Sprintf("%s: size %d sha %.8s, want %d %.8s", p, g.size, g.sha, w.Size, w.SHA256))
		}
	}
	for p, g := range got {
		if !seen[p] && !(g.dir && implied[p]) && !(g.dir && impliedDirWant(want, p)) {
			problems = append(problems, "unexpected "+p)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		if len(problems) > 4 {
			problems = append(problems[:4], fmt.Sprintf("… %d more", len(problems)-4))
		}
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func impliedDir(got map[string]extracted, dir string) bool {
	for p := range got {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

func impliedDirWant(want []corpus.ExpectedEntry, dir string) bool {
	for _, w := range want {
		if strings.HasPrefix(strings.ReplaceAll(w.Path, "\\", "/"), dir+"/") {
			return true
		}
	}
	return false
}

// wrapsSentinel reports whether err wraps one of the archive sentinels.
func wrapsSentinel(err error) bool {
	for _, s := range []error{archive.ErrFormat, archive.ErrChecksum, archive.ErrWrongPassword,
		archive.ErrPasswordRequired, archive.ErrUnsupported, archive.ErrLimit, archive.ErrNotArchive} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// TestCorpusMore runs every zip unit of ../shared/corpus-more: must-pass
// units (expect ok, a listing, no note) extract byte-exact, error-corrupt
// units fail with an error wrapping a sentinel, and the others end
// without a panic and with errors that wrap a sentinel.
func TestCorpusMore(t *testing.T) {
	root := corpusMoreRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	var mustPass, passed, bad, badOK int
	var failures []string
	for i := range units {
		u := &units[i]
		if u.Format != "zip" {
			continue
		}
		if u.Kind == "zip-split" {
			// The last part alone names the set's size.
			b, err := os.ReadFile(filepath.Join(root, u.Members[len(u.Members)-1]))
			if err != nil {
				t.Fatal(err)
			}
			_, err = NewReader(bytes.NewReader(b), int64(len(b)), nil)
			var se *SplitSetError
			if !errors.As(err, &se) || se.Parts != len(u.Members) || !errors.Is(err, archive.ErrFormat) {
				t.Errorf("%s alone: %v, want a SplitSetError of %d parts", u.Unit, err, len(u.Members))
			}
		}
		r, err := openUnit(root, u)
		var got map[string]extracted
		if err == nil {
			got, err = extractUnit(r)
			r.Close()
		}
		if err != nil && !wrapsSentinel(err) {
			t.Errorf("%s: error wraps no sentinel: %v", u.Unit, err)
		}
		switch {
		case u.Expect == "ok" && u.Expected != "" && u.GTNote == "":
			mustPass++
			if err == nil {
				var want []corpus.ExpectedEntry
				if want, err = corpus.Listing(root, u.Expected); err == nil {
					err = compareListing(got, want)
				}
			}
			reason, known := knownFailures[u.Unit]
			switch {
			case err == nil && known:
				t.Errorf("%s: passes now; remove it from knownFailures (%s)", u.Unit, reason)
				passed++
			case err == nil:
				passed++
			case known:
				failures = append(failures, fmt.Sprintf("%s (known: %s): %v", u.Unit, reason, err))
			default:
				t.Errorf("%s: %v", u.Unit, err)
				failures = append(failures, fmt.Sprintf("%s: %v", u.Unit, err))
			}
		case u.Expect == "error-corrupt":
			bad++
			if err != nil {
				badOK++
			} else {
				t.Errorf("%s: expected an error, extracted %d entries", u.Unit, len(got))
			}
		default:
			if err != nil {
				t.Logf("%s (%s): %v", u.Unit, u.Expect, err)
			}
		}
	}
	t.Logf("zip must-pass: %d/%d; error-corrupt refused: %d/%d", passed, mustPass, badOK, bad)
	for _, f := range failures {
		t.Log("failure: " + f)
	}
}
