package sevenzip

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// update runs Update on old and returns the target and the error.
func update(old []byte, ch *Changes, opts WriteOptions) (*memTarget, *WriteStats, error) {
	var out memTarget
	var base *Existing
	if old != nil {
		base = &Existing{bytes.NewReader(old), int64(len(old))}
	}
	st, err := Update(context.Background(), &out, base, ch, &opts)
	return &out, st, err
}

// TestUpdateCommitsOrAborts: Update commits its target on success and
// aborts it on every error, and never both.
func TestUpdateCommitsOrAborts(t *testing.T) {
	files := sampleTree()
	old := writeArchive(t, files, &WriteOptions{Level: 1})
	failing := []WriteItem{{Name: "bad.txt", Size: 10, ModTime: time.Unix(2e9, 0),
		Open: func() (io.ReadCloser, error) { return nil, errors.New("cannot read") }}}
	for _, c := range []struct {
		name string
		old  []byte
		ch   Changes
		opts WriteOptions
		ok   bool
	}{
		{"new", nil, Changes{Add: items(files)}, WriteOptions{}, true},
		{"add", old, Changes{Add: failing[:0]}, WriteOptions{}, true},
		{"input error", old, Changes{Add: failing}, WriteOptions{}, false},
		{"bad method", old, Changes{}, WriteOptions{Method: "LZMA2:fb=2"}, false},
		{"no match", old, Changes{Delete: func(*archive.Entry) bool { return false }}, WriteOptions{}, false},
		{"corrupt base", old[:len(old)/2], Changes{}, WriteOptions{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := update(c.old, &c.ch, c.opts)
			if (err == nil) != c.ok {
				t.Fatalf("error %v, want ok=%v", err, c.ok)
			}
			if out.committed == out.aborted || out.committed != c.ok {
				t.Errorf("committed %v, aborted %v", out.committed, out.aborted)
			}
		})
	}
	if _, _, err := update(old, &Changes{Delete: func(*archive.Entry) bool { return false }}, WriteOptions{}); !errors.Is(err, ErrNoMatch) {
		t.Errorf("deleting nothing: %v, want ErrNoMatch", err)
	}
	if _, _, err := update(old, &Changes{}, WriteOptions{Method: "LZMA2:fb=2"}); !errors.Is(err, ErrMethodParam) {
		t.Errorf("bad parameter: %v, want ErrMethodParam", err)
	}
}

// TestUpdateMixedEncryption: adding to an archive with encrypted entries
// without a password, or with another password, is refused unless
// MixedEncryption allows it; the right password, deleting, and archives
// without encrypted entries are unaffected.
func TestUpdateMixedEncryption(t *testing.T) {
	files := sampleTree()
	add := []testFile{{name: "new.txt", data: []byte("new entry"), mode: 0o100644, mtime: time.Unix(2e9, 0)}}
	plain := writeArchive(t, files, &WriteOptions{Level: 1})
	encData := writeArchive(t, files, &WriteOptions{Level: 1, Password: "right", KDFCycles: 4})
	encAll := writeArchive(t, files, &WriteOptions{Level: 1, Password: "right", EncryptHeaders: true, KDFCycles: 4})
	delNew := func(e *archive.Entry) bool { return e.Name == "dir/b.txt" }
	for _, c := range []struct {
		name  string
		old   []byte
		ch    Changes
		pw    string
		mixed bool
		want  []error // nil: success
	}{
		{"data, no password", encData, Changes{Add: items(add)}, "", false, []error{ErrMixedEncryption, archive.ErrPasswordRequired}},
		{"data, other password", encData, Changes{Add: items(add)}, "wrong", false, []error{ErrMixedEncryption, archive.ErrWrongPassword}},
		{"data, right password", encData, Changes{Add: items(add)}, "right", false, nil},
		{"data, no password, allowed", encData, Changes{Add: items(add)}, "", true, nil},
		{"data, other password, allowed", encData, Changes{Add: items(add)}, "wrong", true, nil},
		{"data, delete whole block", encData, Changes{Delete: func(*archive.Entry) bool { return true }}, "", false, nil},
		{"headers, no password", encAll, Changes{Add: items(add)}, "", false, []error{archive.ErrPasswordRequired}},
		{"headers, other password", encAll, Changes{Add: items(add)}, "wrong", false, []error{archive.ErrWrongPassword}},
		{"headers, right password", encAll, Changes{Add: items(add), Delete: delNew}, "right", false, nil},
		{"plain, password", plain, Changes{Add: items(add)}, "new", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := update(c.old, &c.ch, WriteOptions{Level: 1, Password: c.pw, KDFCycles: 4, MixedEncryption: c.mixed})
			if c.want == nil && err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v, want %v", err, w)
				}
			}
		})
	}
}
