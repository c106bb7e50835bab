package unpack15_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar"
)

// ours reports whether an entry is decoded by this package.
func ours(e *archive.Entry) bool {
	for _, f := range []string{"RAR1.5 m", "RAR1.4 m"} {
		if strings.HasPrefix(e.Method, f) && !strings.HasPrefix(e.Method, f+"0") {
			return true
		}
	}
	return false
}

const family = "RAR 1.5/1.4"

// TestContainer extracts, through the RAR container, every corpus unit
// with entries this package decodes (encrypted and multi-volume ones
// included) and compares the contents with the listing; units expected to
// fail must fail with an error wrapping ErrFormat, ErrChecksum or
// ErrUnsupported.
func TestContainer(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skipf("corpus not found at %s", root)
	}
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
		r, err := rar.Open(u.Path(root), opts)
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
