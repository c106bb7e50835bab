package tar

import (
	stdtar "archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// writerCase is an entry of the test archive and its data.
type writerCase struct {
	h    WriteHeader
	data string
}

func writerCases() []writerCase {
	t0 := time.Unix(1700000000, 0)
	long := strings.Repeat("d/", 60) + "file.txt"   // 128 bytes: split into prefix and name
	longer := strings.Repeat("long-dir/", 40) + "f" // beyond 255: pax path
	sparse := "abc" + strings.Repeat("\x00", 2045) + "xyz" + strings.Repeat("\x00", 3000)
	return []writerCase{
		{h: WriteHeader{Name: "dir", Type: archive.TypeDir, Mode: 0o755, ModTime: t0}},
		{h: WriteHeader{Name: "dir/a.txt", Type: archive.TypeFile, Mode: 0o644, Size: 5, ModTime: t0, Uname: "user", Gname: "group", UID: 1000, GID: 1000}, data: "hello"},
		{h: WriteHeader{Name: long, Type: archive.TypeFile, Mode: 0o600, Size: 3, ModTime: t0}, data: "abc"},
		{h: WriteHeader{Name: longer, Type: archive.TypeFile, Mode: 0o644, Size: 1, ModTime: t0}, data: "x"},
		{h: WriteHeader{Name: "ünïcode-名前.txt", Type: archive.TypeFile, Mode: 0o644, Size: 2, ModTime: t0, Uname: "üser"}, data: "ok"},
		{h: WriteHeader{Name: "link", Type: archive.TypeSymlink, Linkname: strings.Repeat("t/", 70), Mode: 0o777, ModTime: t0}},
		{h: WriteHeader{Name: "hard", Type: archive.TypeHardlink, Linkname: "dir/a.txt", Mode: 0o644, ModTime: t0}},
		{h: WriteHeader{Name: "bigid", Type: archive.TypeFile, Mode: 0o4755, Size: 0, ModTime: time.Unix(-100, 0), UID: 1 << 22, GID: 1 << 23}},
		{h: WriteHeader{Name: "future", Type: archive.TypeFile, Mode: 0o644, Size: 0, ModTime: time.Unix(1<<34, 0),
			AccessTime: time.Unix(5, 500000000), ChangeTime: time.Unix(6, 0)}},
		{h: WriteHeader{Name: "sparse", Type: archive.TypeFile, Mode: 0o644, Size: int64(len(sparse)), ModTime: t0,
			Sparse: AlignSparse([]SparseSegment{{0, 3}, {2048, 3}}, 5051)}, data: sparse},
	}
}

// writeCases writes the cases as a tar.
func writeCases(t *testing.T, cases []writerCase) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := NewWriter(&buf)
	for _, c := range cases {
		if err := tw.WriteHeader(&c.h); err != nil {
			t.Fatal(err)
		}
		data := c.data
		if c.h.Sparse != nil {
			var segs []byte
			for _, s := range c.h.Sparse {
				segs = append(segs, data[s.Offset:s.Offset+s.Length]...)
			}
			data = string(segs)
		}
		if _, err := io.WriteString(tw, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len()%recordSize != 0 {
		t.Errorf("archive of %d bytes: not whole records", buf.Len())
	}
	return buf.Bytes()
}

// The Writer's archive is read back, entry by entry and field by field,
// by Go's archive/tar and by this package's reader.
func TestWriterRoundTrip(t *testing.T) {
	cases := writerCases()
	b := writeCases(t, cases)
	tr := stdtar.NewReader(bytes.NewReader(b))
	for i, c := range cases {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name != c.h.Name || h.Linkname != c.h.Linkname || h.Mode&0o7777 != c.h.Mode || h.Uid != c.h.UID ||
			h.Gid != c.h.GID || h.Uname != c.h.Uname || !h.ModTime.Equal(c.h.ModTime) || h.Size != int64(len(c.data)) {
			t.Errorf("entry %d: archive/tar read %+v, want %+v", i, h, c.h)
		}
		if !c.h.AccessTime.IsZero() && (!h.AccessTime.Equal(c.h.AccessTime) || !h.ChangeTime.Equal(c.h.ChangeTime)) {
			t.Errorf("entry %d: times %v %v", i, h.AccessTime, h.ChangeTime)
		}
		got, err := io.ReadAll(tr)
		if err != nil || string(got) != c.data {
			t.Errorf("entry %d: data %q, %v", i, got, err)
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("after the entries: %v", err)
	}

	r, err := Open(bytes.NewReader(b), int64(len(b)), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ents := r.Entries()
	if len(ents) != len(cases) {
		t.Fatalf("%d entries, want %d", len(ents), len(cases))
	}
	got := map[string]string{}
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		d, err := io.ReadAll(rd)
		got[e.Name] = string(d)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if ents[i].Name != c.h.Name {
			t.Errorf("entry %d named %q, want %q", i, ents[i].Name, c.h.Name)
		}
		if c.h.Type == archive.TypeFile && got[c.h.Name] != c.data {
			t.Errorf("%s: %q", c.h.Name, got[c.h.Name])
		}
	}
	if !ents[len(ents)-1].IsSparse() {
		t.Error("the sparse entry is not listed sparse")
	}
}

// GNU tar, bsdtar and Python's tarfile list and extract the archive
// without a warning, with the same content.
func TestWriterInterop(t *testing.T) {
	cases := writerCases()
	b := writeCases(t, cases)
	// The times outside ustar's range are listed without a warning;
	// extracting them would warn of the times themselves.
	for _, tool := range []string{"tar", "bsdtar"} {
		cmd := exec.Command(testenv.Tool(t, tool), "-tvf", "-")
		cmd.Stdin = bytes.NewReader(b)
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "1969-12-31") && !strings.Contains(string(out), "Dec 31  1969") {
			t.Errorf("%s -tvf: %v\n%s", tool, err, out)
		}
	}
	for i := range cases {
		cases[i].h.ModTime = time.Unix(1700000000, 0)
	}
	b = writeCases(t, cases)
	check := func(tool string, dir string) {
		for _, c := range cases {
			if c.h.Type != archive.TypeFile {
				continue
			}
			got, err := os.ReadFile(filepath.Join(dir, c.h.Name))
			if err != nil || string(got) != c.data {
				t.Errorf("%s: %s: %q, %v", tool, c.h.Name, got, err)
			}
		}
		if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != cases[5].h.Linkname {
			t.Errorf("%s: link: %q, %v", tool, target, err)
		}
		if a, err := os.Stat(filepath.Join(dir, "hard")); err != nil {
			t.Errorf("%s: hard: %v", tool, err)
		} else if b, err := os.Stat(filepath.Join(dir, "dir/a.txt")); err != nil || !os.SameFile(a, b) {
			t.Errorf("%s: hard is not a link of dir/a.txt", tool)
		}
	}
	run := func(name string, args ...string) {
		dir := t.TempDir()
		cmd := exec.Command(testenv.Tool(t, name), args...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(b)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("%s %q: %v\n%s", name, args, err, stderr.String())
		}
		check(name, dir)
	}
	run("tar", "-xf", "-")
	run("bsdtar", "-xf", "-")
	py := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		py = "/usr/bin/python3" // not a version manager's slower shim
	}
	run(py, "-c", "import sys, tarfile; kw = {'filter': 'tar'} if hasattr(tarfile, 'data_filter') else {}; "+
		"tarfile.open(fileobj=sys.stdin.buffer, mode='r|').extractall('.', **kw)")
}

// Write beyond the size and an entry cut short are errors.
func TestWriterSizes(t *testing.T) {
	tw := NewWriter(io.Discard)
	if err := tw.WriteHeader(&WriteHeader{Name: "f", Type: archive.TypeFile, Size: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte("abc")); !errors.Is(err, ErrWriteTooLong) {
		t.Errorf("3 bytes into 2: %v", err)
	}
	tw = NewWriter(io.Discard)
	tw.WriteHeader(&WriteHeader{Name: "f", Type: archive.TypeFile, Size: 2})
	if err := tw.Close(); !errors.Is(err, ErrShort) {
		t.Errorf("close after no data: %v", err)
	}
}

// pax records carry their own length, also across a power of ten.
func TestPaxRecordLength(t *testing.T) {
	for n := 0; n < 200; n++ {
		r := paxRecordOf("path", strings.Repeat("x", n))
		var l int
		if _, err := fmtSscan(r, &l); err != nil || l != len(r) {
			t.Fatalf("%q: length %d, is %d", r, l, len(r))
		}
	}
}

func fmtSscan(s string, n *int) (int, error) {
	i := strings.IndexByte(s, ' ')
	v, err := strconv.Atoi(s[:i])
	*n = v
	return 1, err
}

// AlignSparse widens segments to blocks and joins those that touch;
// WriteHeader refuses maps that are not aligned.
func TestAlignSparse(t *testing.T) {
	if AlignSparse([]SparseSegment{{0, 3}, {2048, 3}}, 5051)[1] != (SparseSegment{2048, 512}) {
		t.Error("a segment before a final hole is not widened to its block")
	}
	got := AlignSparse([]SparseSegment{{3, 3}, {600, 10}, {1030, 2}, {5000, 100}}, 5050)
	want := []SparseSegment{{0, 1536}, {4608, 442}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, segs := range [][]SparseSegment{{{3, 3}}, {{0, 100}, {512, 3}}, {{512, 512}, {0, 512}}, {{0, 2048}}} {
		tw := NewWriter(io.Discard)
		if err := tw.WriteHeader(&WriteHeader{Name: "s", Type: archive.TypeFile, Size: 1030, Sparse: segs}); !errors.Is(err, ErrSparseMap) {
			t.Errorf("%v: %v", segs, err)
		}
	}
}

// ASCII control characters in a link target or an owner name are
// stored as they are (ustar's fields hold any byte but NUL), not as '_'
// with nothing in a pax record to restore them.
func TestWriterControlCharacters(t *testing.T) {
	cases := []writerCase{
		{h: WriteHeader{Name: "link", Type: archive.TypeSymlink, Linkname: "a\tb\nc\x7f", Mode: 0o777, Uname: "us\ter", Gname: "gr\x01oup"}},
		{h: WriteHeader{Name: "hard", Type: archive.TypeHardlink, Linkname: "x\ry", Mode: 0o644}},
	}
	tr := stdtar.NewReader(bytes.NewReader(writeCases(t, cases)))
	for i, c := range cases {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if h.Linkname != c.h.Linkname || h.Uname != c.h.Uname || h.Gname != c.h.Gname {
			t.Errorf("entry %d: link %q, owners %q %q; want %q, %q %q", i, h.Linkname, h.Uname, h.Gname, c.h.Linkname, c.h.Uname, c.h.Gname)
		}
	}
}

// An entry that ustar holds (short ASCII name, owner names, small ids
// and times) is written without allocating: no header block, octal
// field, checksum or padding on the heap per entry, which a source tree
// of thousands of files turned into garbage collections.
func TestWriteHeaderAllocs(t *testing.T) {
	tw := NewWriter(io.Discard)
	h := WriteHeader{Name: "dir/file.go", Type: archive.TypeFile, Mode: 0o644, Size: 1000, ModTime: time.Unix(1700000000, 0),
		UID: 1000, GID: 1000, Uname: "user", Gname: "group"}
	data := make([]byte, h.Size)
	allocs := testing.AllocsPerRun(100, func() {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per entry, want 0", allocs)
	}
}
