package sevenzip

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
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

// knownFailures lists corpus units (by unit path) expected to fail, with
// the reason. Drive it to zero.
var knownFailures = map[string]string{}

// findSignature returns the offset of the first 7z signature header with a
// valid start-header CRC (SFX archives carry a stub in front).
func findSignature(b []byte) int {
	for off := 0; ; {
		i := bytes.Index(b[off:], signature)
		if i < 0 {
			return -1
		}
		p := off + i
		if p+signatureHeaderSize <= len(b) &&
			crc32.ChecksumIEEE(b[p+12:p+32]) == binary.LittleEndian.Uint32(b[p+8:]) {
			return p
		}
		off = p + 1
	}
}

// loadUnit returns the archive bytes of a unit, from its signature on.
func loadUnit(t testing.TB, root string, u *corpus.Unit) []byte {
	t.Helper()
	var data []byte
	if u.Kind == "raw-split" {
		for _, m := range u.Members {
			b, err := os.ReadFile(filepath.Join(root, m))
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b...)
		}
	} else {
		b, err := os.ReadFile(u.Path(root))
		if err != nil {
			t.Fatal(err)
		}
		data = b
	}
	if off := findSignature(data); off > 0 {
		data = data[off:]
	}
	return data
}

type extracted struct {
	size   int64
	sha    string
	dir    bool
	link   bool
	target string
	// windows: the entry has Windows attributes only, so a '\' in its
	// stored name separates (7zz on Unix keeps it in the name).
	windows bool
}

// extractAll opens data and extracts every entry into memory.
func extractAll(data []byte, name, password string, threads int) (map[string]extracted, archive.Reader, error) {
	opts := &archive.Options{Name: name, Threads: threads}
	if password != "" {
		opts.Password = func() (string, error) { return password, nil }
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]extracted{}
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			return err
		}
		if e.Anti {
			return nil
		}
		x := extracted{size: n, sha: hex.EncodeToString(h.Sum(nil)), dir: e.IsDir(), windows: e.HostOS == archive.HostWindows}
		if e.Type == archive.TypeSymlink {
			x.link, x.target = true, e.LinkTarget
		}
		out[cleanName(e.Name)] = x
		return nil
	})
	return out, rd, err
}

func cleanName(n string) string {
	n = strings.TrimPrefix(path.Clean("/"+n), "/")
	return n
}

func TestCorpus(t *testing.T) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	var pass, fail, errOK, unknown int
	for i := range units {
		u := &units[i]
		if u.Format != "7z" {
			continue
		}
		t.Run(strings.TrimPrefix(u.Unit, "files/"), func(t *testing.T) {
			data := loadUnit(t, root, u)
			switch {
			case strings.HasPrefix(u.Expect, "error-"):
				_, _, err := extractAll(data, filepath.Base(u.Unit), u.Password, 2)
				if err == nil {
					fail++
					t.Errorf("%s: no error", u.Expect)
					return
				}
				if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) &&
					!errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) &&
					!errors.Is(err, archive.ErrNotArchive) {
					t.Errorf("error without a sentinel: %v", err)
				}
				errOK++
				t.Logf("error as expected: %v", err)
			case u.Expect == "unknown" || u.Expected == "" || u.GTNote != "":
				_, _, err := extractAll(data, filepath.Base(u.Unit), u.Password, 2)
				unknown++
				t.Logf("finished: %v", err)
			default:
				reason, known := knownFailures[u.Unit]
				err := checkListing(root, u, data)
				if err != nil {
					fail++
					if known {
						t.Skipf("known failure (%s): %v", reason, err)
					}
					t.Error(err)
					return
				}
				if known {
					t.Errorf("known failure %q passes now: remove it from knownFailures", reason)
				}
				pass++
			}
		})
	}
	t.Logf("7z corpus: %d pass, %d fail, %d expected errors, %d unknown finished", pass, fail, errOK, unknown)
}

func checkListing(root string, u *corpus.Unit, data []byte) error {
	want, err := corpus.Listing(root, u.Expected)
	if err != nil {
		return err
	}
	got, rd, err := extractAll(data, filepath.Base(u.Unit), u.Password, 1)
	if err != nil {
		return err
	}
	if len(rd.(*Reader).hdr.main.folders) < 2 {
		// Nothing to decode in parallel.
		return compareListing(root, u, want, got)
	}
	// Parallel folder decoding must give the same result.
	got2, _, err := extractAll(data, filepath.Base(u.Unit), u.Password, 2)
	if err != nil {
		return fmt.Errorf("threads 2: %w", err)
	}
	if len(got2) != len(got) {
		return fmt.Errorf("threads 2: %d entries, want %d", len(got2), len(got))
	}
	for k, v := range got {
		if got2[k] != v {
			return fmt.Errorf("threads 2: %s differs", k)
		}
	}
	return compareListing(root, u, want, got)
}

// compareListing compares an extraction with a ground-truth listing.
func compareListing(root string, u *corpus.Unit, want []corpus.ExpectedEntry, got map[string]extracted) error {
	// Listings made from 7zz -so (links through links) list directories
	// as files holding the concatenation of their contents.
	fromStream := false
	if b, err := os.ReadFile(filepath.Join(root, u.Expected)); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		fromStream = strings.Contains(first, "-so")
	}
	var problems []string
	wantSet := map[string]bool{}
	for _, w := range want {
		p := cleanName(w.Path)
		g, ok := got[p]
		if q := strings.ReplaceAll(p, `\`, "/"); !ok && q != p && got[q].windows {
			// 7zz on Unix keeps a '\' in every 7z name; garc splits at
			// it in entries with Windows attributes only.
			p = q
			g, ok = got[p]
		}
		wantSet[p] = true
		if !ok {
			if w.IsDir && hasChild(got, p) {
				continue
			}
			problems = append(problems, "missing "+p)
			continue
		}
		switch {
		case fromStream && g.dir && !w.IsDir:
		case w.IsDir != g.dir:
			problems = append(problems, fmt.Sprintf("%s: dir %v, want %v", p, g.dir, w.IsDir))
		case w.IsSymlink != g.link:
			problems = append(problems, fmt.Sprintf("%s: symlink %v, want %v", p, g.link, w.IsSymlink))
		case w.IsSymlink:
			if g.target != w.LinkTarget {
				problems = append(problems, fmt.Sprintf("%s: target %q, want %q", p, g.target, w.LinkTarget))
			}
		case !w.IsDir:
			if g.size != w.Size || g.sha != w.SHA256 {
				problems = append(problems, fmt.Sprintf("%s: size %d sha %.12s, want %d %.12s", p, g.size, g.sha, w.Size, w.SHA256))
			}
		}
	}
	for p := range got {
		if !wantSet[p] {
			problems = append(problems, "extra "+p)
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		if len(problems) > 8 {
			problems = append(problems[:8], fmt.Sprintf("... %d more", len(problems)-8))
		}
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func hasChild(got map[string]extracted, dir string) bool {
	for p := range got {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
