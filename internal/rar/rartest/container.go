package rartest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// ContainerSweep extracts, through the RAR container (openFile is
// rar.OpenFile; rartest cannot import it, since the container imports the
// decoders),
// every RAR 1.4-4.x corpus unit with entries that ours accepts (encrypted
// and multi-volume ones included) and compares the contents with the
// listing; units expected to fail must fail with an error wrapping
// ErrFormat, ErrChecksum or ErrUnsupported. At least five units must pass.
func ContainerSweep(t *testing.T, family string, ours func(*archive.Entry) bool, openFile func(f *os.File, size int64, path string, opts *archive.Options) (archive.Reader, error)) {
	t.Helper()
	root := CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	pass, fail := 0, 0
	for _, u := range units {
		if u.Format != "rar4" && u.Format != "rar1.5-2" && u.Format != "rar1.4" || u.Kind == "raw-split" {
			continue
		}
		opts := &archive.Options{Name: u.Unit}
		if u.Password != "" {
			pw := u.Password
			opts.Password = func() (string, error) { return pw, nil }
		}
		r, err := openPath(u.Path(root), opts, openFile)
		if err != nil {
			continue
		}
		mine := false
		for _, e := range r.Entries() {
			mine = mine || ours(e)
		}
		if !mine {
			r.Close()
			continue
		}
		sums := map[string]string{}
		var extractErr error
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
			h := sha256.New()
			_, err := io.Copy(h, rd)
			if err != nil {
				if extractErr == nil {
					extractErr = err
				}
				return nil
			}
			if e.Type == archive.TypeFile {
				sums[e.Name] = hex.EncodeToString(h.Sum(nil))
			}
			return nil
		})
		r.Close()
		if err != nil && extractErr == nil {
			extractErr = err
		}
		switch {
		case strings.HasPrefix(u.Expect, "error-"):
			if extractErr == nil {
				t.Errorf("%s: expected an error (%s), extracted fine", u.Unit, u.Expect)
				fail++
				continue
			}
			if !errors.Is(extractErr, archive.ErrFormat) && !errors.Is(extractErr, archive.ErrChecksum) && !errors.Is(extractErr, archive.ErrUnsupported) {
				t.Errorf("%s: error %v wraps no expected sentinel", u.Unit, extractErr)
				fail++
				continue
			}
			t.Logf("%s: fails as expected: %v", u.Unit, extractErr)
			pass++
		case u.Expect == "ok" && u.Expected != "" && u.GTNote == "":
			want, err := corpus.Listing(root, u.Expected)
			if err != nil {
				t.Fatal(err)
			}
			bad := extractErr
			for _, w := range want {
				if w.IsDir || w.IsSymlink || bad != nil {
					continue
				}
				if sums[w.Path] != w.SHA256 {
					bad = errors.New(w.Path + ": sha256 mismatch")
				}
			}
			if bad != nil {
				t.Errorf("%s: %v", u.Unit, bad)
				fail++
				continue
			}
			pass++
		default:
			t.Logf("%s (expect %s): %v", u.Unit, u.Expect, extractErr)
		}
	}
	t.Logf("%s units through the container: %d pass, %d fail", family, pass, fail)
	if pass < 5 {
		t.Errorf("only %d units passed", pass)
	}
}

// openPath opens the file at path and hands it to openFile (rar.OpenFile),
// as internal/opener does.
func openPath(path string, opts *archive.Options, openFile func(*os.File, int64, string, *archive.Options) (archive.Reader, error)) (archive.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return openFile(f, st.Size(), path, opts)
}
