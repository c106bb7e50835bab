package tar

import (
	stdtar "archive/tar"
	"bytes"
	"compress/gzip"
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
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/testenv"
)

// openBytes opens data the way the opener will: a compressed stream is
// recognised by content, a plain tar by its first header.
func openBytes(name string, data []byte, opts *archive.Options) (*Reader, error) {
	var kind stream.Kind
	if k, ok := stream.Identify(data[:min(len(data), stream.HeadSize)]); ok {
		kind = k
	} else if h := data[:min(len(data), 1024)]; !IsHeader(h) && !IsEmpty(h) {
		return nil, fmt.Errorf("not a tar: %w", archive.ErrFormat)
	}
	if opts == nil {
		opts = &archive.Options{}
	}
	opts.Name = name
	return Open(bytes.NewReader(data), int64(len(data)), kind, opts)
}

// extracted is an archive's content as a tree: path → "file SIZE SHA" or
// "symlink -> TARGET"; hard links take their target's content.
func extracted(r *Reader) (map[string]string, error) {
	tree := map[string]string{}
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		name := path.Clean(strings.TrimPrefix(e.Name, "./"))
		switch e.Type {
		case archive.TypeDir:
			return nil
		case archive.TypeSymlink:
			tree[name] = "symlink -> " + e.LinkTarget
		case archive.TypeHardlink:
			t, ok := tree[path.Clean(strings.TrimPrefix(e.LinkTarget, "./"))]
			if !ok {
				return fmt.Errorf("hard link %s to %s, which is not extracted", e.Name, e.LinkTarget)
			}
			tree[name] = t
		default:
			h := sha256.New()
			n, err := io.Copy(h, rd)
			if err != nil {
				return err
			}
			tree[name] = fmt.Sprintf("file %d %s", n, hex.EncodeToString(h.Sum(nil)))
		}
		return nil
	})
	return tree, err
}

func TestRoundTripWithArchiveTar(t *testing.T) {
	var buf bytes.Buffer
	tw := stdtar.NewWriter(&buf)
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	files := []struct {
		h    stdtar.Header
		data string
	}{
		{stdtar.Header{Name: "dir/", Typeflag: stdtar.TypeDir, Mode: 0o755, ModTime: mtime}, ""},
		{stdtar.Header{Name: "dir/a.txt", Typeflag: stdtar.TypeReg, Mode: 0o644, ModTime: mtime, Uname: "me"}, "alpha"},
		{stdtar.Header{Name: "dir/" + strings.Repeat("long", 60), Typeflag: stdtar.TypeReg, Mode: 0o600, ModTime: mtime, Format: stdtar.FormatPAX}, "pax name"},
		{stdtar.Header{Name: "link", Typeflag: stdtar.TypeSymlink, Linkname: "dir/a.txt", ModTime: mtime}, ""},
		{stdtar.Header{Name: "hard", Typeflag: stdtar.TypeLink, Linkname: "dir/a.txt", ModTime: mtime}, ""},
		{stdtar.Header{Name: "fifo", Typeflag: stdtar.TypeFifo, ModTime: mtime}, ""},
		{stdtar.Header{Name: "big", Typeflag: stdtar.TypeReg, Mode: 0o644, ModTime: mtime}, strings.Repeat("x", 100000)},
	}
	for _, f := range files {
		h := f.h
		h.Size = int64(len(f.data))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, f.data)
	}
	tw.Close()
	r, err := openBytes("t.tar", buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	es := r.Entries()
	var names []string
	for _, e := range es {
		names = append(names, e.Type.String()+":"+e.Name)
	}
	// The FIFO is listed, a file with its type in the mode, and named by
	// Skipped: extraction never hands it out.
	want := "dir:dir file:dir/a.txt file:dir/" + strings.Repeat("long", 60) + " symlink:link hardlink:hard file:fifo file:big"
	if strings.Join(names, " ") != want {
		t.Fatalf("entries %v\nwant %v", names, want)
	}
	if len(r.Skipped()) != 1 || r.Skipped()[0] != "fifo" {
		t.Fatalf("skipped %v", r.Skipped())
	}
	if fifo := es[5]; fifo.Mode.Type() != fs.ModeNamedPipe || fifo.Attributes&0o170000 != 0o010000 || fifo.Size != 0 {
		t.Fatalf("fifo: mode %v, attributes %o, size %d", fifo.Mode, fifo.Attributes, fifo.Size)
	}
	if e := es[1]; e.Size != 5 || !e.ModTime.Equal(mtime) || e.Mode.Perm() != 0o644 || e.Owner() != "me" {
		t.Fatalf("entry metadata %+v", e)
	}
	tree, err := extracted(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, fifo := tree["fifo"]; fifo || tree["hard"] != tree["dir/a.txt"] || tree["link"] != "symlink -> dir/a.txt" || !strings.HasPrefix(tree["big"], "file 100000 ") {
		t.Fatalf("tree %v", tree)
	}
	// Streamed (a compressed tar read once by Extract): the same.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(buf.Bytes())
	zw.Close()
	zr, err := openBytes("t.tar.gz", gz.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ztree, err := extracted(zr); err != nil || len(ztree) != len(tree) || len(zr.Entries()) != len(es) || !slices.Equal(zr.Skipped(), []string{"fifo"}) {
		t.Fatalf("streamed: tree %v, %d entries, skipped %v, %v", ztree, len(zr.Entries()), zr.Skipped(), err)
	}

	// Truncation inside data and inside a header is an error wrapping
	// ErrFormat with the offset, in Open or in Extract.
	for _, cut := range []int{len(buf.Bytes()) - 2000, 700} {
		r, err := openBytes("t.tar", buf.Bytes()[:cut], nil)
		if err == nil {
			_, err = extracted(r)
		}
		if !errors.Is(err, archive.ErrFormat) || !strings.Contains(err.Error(), "t.tar") {
			t.Fatalf("cut at %d: error %v", cut, err)
		}
	}

	// The memory limit bounds the entry list, which Entries reads (Open
	// reads no header: Extract builds the list as it goes).
	r, err = openBytes("t.tar", buf.Bytes(), &archive.Options{MaxDict: 1000})
	if err != nil || !r.Streaming() {
		t.Fatalf("open: %v, streaming %v", err, r.Streaming())
	}
	if r.Entries(); !errors.Is(r.Err(), archive.ErrLimit) {
		t.Fatalf("limit: error %v", r.Err())
	}
}

// knownFailures are corpus-more tar units that do not behave yet. A listed
// unit that passes fails the test, so the list shrinks as work lands.
var knownFailures = map[string]string{}

// TestCorpusMore runs every tar and tar.* unit of ../shared/corpus-more.
func TestCorpusMore(t *testing.T) {
	root := testenv.MoreCorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range units {
		if u.Format != "tar" && !strings.HasPrefix(u.Format, "tar.") {
			continue
		}
		n++
		t.Run(filepath.Base(u.Unit), func(t *testing.T) {
			err := checkUnit(root, &u)
			reason, known := knownFailures[u.Unit]
			switch {
			case known && err == nil:
				t.Errorf("listed as a known failure (%s) but passes: remove it from knownFailures", reason)
			case known:
				t.Logf("known failure (%s): %v", reason, err)
			case err != nil:
				t.Errorf("%s (%s; %s): %v", u.Unit, u.Expect, u.Features, err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no tar units in the index")
	}
}

func checkUnit(root string, u *corpus.Unit) error {
	var data []byte
	for _, m := range u.Members {
		b, err := os.ReadFile(filepath.Join(root, m))
		if err != nil {
			return err
		}
		data = append(data, b...)
	}
	r, err := openBytes(filepath.Base(u.Unit), data, nil)
	var tree map[string]string
	if err == nil {
		tree, err = extracted(r)
	}
	switch u.Expect {
	case "ok":
		if err != nil {
			return err
		}
		if u.Expected == "" || u.GTNote != "" {
			return nil
		}
		list, err := corpus.Listing(root, u.Expected)
		if err != nil {
			return err
		}
		want := map[string]string{}
		for _, l := range list {
			p := path.Clean(strings.ReplaceAll(l.Path, `\`, "/"))
			switch {
			case l.IsDir:
			case l.IsSymlink:
				want[p] = "symlink -> " + l.LinkTarget
			default:
				want[p] = fmt.Sprintf("file %d %s", l.Size, l.SHA256)
			}
		}
		got := map[string]string{}
		for p, v := range tree {
			got[strings.TrimPrefix(p, "/")] = v
		}
		var diffs []string
		for p, v := range want {
			if got[p] != v {
				diffs = append(diffs, fmt.Sprintf("%s: got %q want %q", p, got[p], v))
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				diffs = append(diffs, p+": not expected")
			}
		}
		sort.Strings(diffs)
		if len(diffs) > 0 {
			return fmt.Errorf("%d differences: %s", len(diffs), strings.Join(diffs[:min(5, len(diffs))], "; "))
		}
	case "error-corrupt":
		if err == nil {
			return errors.New("corrupt archive read without error")
		}
		if !archive.HasSentinel(err) {
			return fmt.Errorf("error %v wraps no sentinel", err)
		}
	default:
		if err != nil && !archive.HasSentinel(err) {
			return fmt.Errorf("error %v wraps no sentinel", err)
		}
	}
	return nil
}

func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	tw := stdtar.NewWriter(&buf)
	tw.WriteHeader(&stdtar.Header{Name: "a", Typeflag: stdtar.TypeReg, Size: 3, Mode: 0o644})
	tw.Write([]byte("abc"))
	tw.WriteHeader(&stdtar.Header{Name: "l", Typeflag: stdtar.TypeLink, Linkname: "a"})
	tw.Close()
	f.Add(buf.Bytes())
	sparseMap := "1\n4\n3\n"
	f.Add(tarOf(
		rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") + paxRecord("GNU.sparse.realsize", "9")}.bytes(),
		rawHeader{name: "sp", typeflag: '0', size: fmt.Sprintf("%011o\x00", blockSize+3),
			data: sparseMap + strings.Repeat("\x00", blockSize-len(sparseMap)) + "abc"}.bytes()))
	f.Add(tarOf(
		rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.map", "0,1,5,2") + paxRecord("GNU.sparse.size", "8") + paxRecord("path", "p")}.bytes(),
		rawHeader{name: "L", typeflag: 'L', data: "long"}.bytes(),
		rawHeader{name: "sp", typeflag: '0', data: "abc"}.bytes()))
	f.Add(tarOf(
		rawHeader{name: "G", typeflag: 'g', data: paxRecord("comment", "global")}.bytes(),
		rawHeader{name: "P", typeflag: 'x', data: paxRecord("comment", "c") + paxRecord("mtime", "1.50") + paxRecord("SCHILY.fflags", "nodump")}.bytes(),
		rawHeader{name: "f", typeflag: '0', data: "abc"}.bytes(),
		rawHeader{name: "G2", typeflag: 'g', data: "9 a=bcd\n"}.bytes()))
	var segs [][2]int64
	for i := int64(0); i < 30; i++ {
		segs = append(segs, [2]int64{5 * i, 2})
	}
	f.Add(tarOf(oldGNUSparse("old", 1<<40, segs, strings.Repeat("ab", 30)), rawHeader{name: "f", typeflag: '0', data: "abc"}.bytes()))
	f.Add(tarOf(
		rawHeader{name: "./PaxHeaders.1/f", typeflag: 'X', data: paxRecord("path", "s") + paxRecord("mtime", "1.5")}.bytes(),
		rawHeader{name: "P1", typeflag: 'x', data: paxRecord("GNU.sparse.map", "0,1,5,2") + paxRecord("GNU.sparse.size", "8")}.bytes(),
		rawHeader{name: "P2", typeflag: 'x', data: paxRecord("path", "p")}.bytes(),
		rawHeader{name: "", typeflag: '5'}.bytes(),
		rawHeader{name: "sp", typeflag: '0', data: "abc"}.bytes()))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 512 {
			return
		}
		mem := archive.NewMemoryBudget(1 << 20)
		r, err := Open(bytes.NewReader(data), int64(len(data)), 0, &archive.Options{Name: "f", MaxDict: 1 << 20, Memory: mem})
		if err != nil {
			if !archive.HasSentinel(err) {
				t.Fatalf("open: error %v wraps no sentinel", err)
			}
			if in := mem.InUse(); in != 0 {
				t.Fatalf("open failed and left %d bytes charged", in)
			}
			return
		}
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
			// A sparse file may declare any size in a few bytes: its
			// holes are skipped and at most 16 MiB of it read.
			var n int64
			var err error
			if hs, ok := rd.(archive.HoleSkipper); ok && e.IsSparse() {
				buf := make([]byte, 64<<10)
				for read := 0; read < 16<<20; {
					h, err := hs.SkipHole()
					if err != nil {
						return nil
					}
					k, err := rd.Read(buf)
					n += h + int64(k)
					read += k
					if err == io.EOF {
						if n != e.Size {
							t.Fatalf("%s: %d bytes with its holes, declared %d", e.Name, n, e.Size)
						}
						return nil
					}
					if err != nil {
						return nil
					}
				}
				return nil
			}
			if e.Index%2 == 1 { // lent chunks, as the extractor reads them
				b, err := chunkContent(rd)
				if e.Type == archive.TypeFile && err == nil && int64(len(b)) != e.Size {
					t.Fatalf("%s: %d bytes in chunks, declared %d", e.Name, len(b), e.Size)
				}
				return nil
			}
			n, err = io.Copy(io.Discard, io.LimitReader(rd, 16<<20))
			if e.Type == archive.TypeFile && err == nil && n != min(e.Size, 16<<20) {
				t.Fatalf("%s: %d bytes, declared %d", e.Name, n, e.Size)
			}
			return nil
		})
		if err != nil && !archive.HasSentinel(err) {
			t.Fatalf("extract: error %v wraps no sentinel", err)
		}
		r.Close()
		if in := mem.InUse(); in != 0 {
			t.Fatalf("%d bytes still charged after Close", in)
		}
	})
}
