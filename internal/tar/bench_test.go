package tar

import (
	stdtar "archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/testenv"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressedTar is a tar of one file of n bytes of the standard mixed
// data, compressed with kind (gzip -6 or zstd -3 equivalents).
func compressedTar(tb testing.TB, kind stream.Kind, n int) []byte {
	tb.Helper()
	data := testenv.MixedData(tb, n)
	var t bytes.Buffer
	tw := stdtar.NewWriter(&t)
	tw.WriteHeader(&stdtar.Header{Name: "mixed.bin", Typeflag: stdtar.TypeReg, Mode: 0o644, Size: int64(len(data))})
	tw.Write(data)
	tw.Close()
	var c bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case stream.Gzip:
		w, _ = gzip.NewWriterLevel(&c, 6)
	case stream.Zstd:
		w, _ = zstd.NewWriter(&c, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	default:
		tb.Fatalf("kind %v", kind)
	}
	w.Write(t.Bytes())
	w.Close()
	return c.Bytes()
}

// extractTo opens a compressed tar and extracts it to io.Discard the way
// `garc x` does (Extract only, no Entries first), with buf as the copy
// buffer; it returns the bytes extracted.
func extractTo(tb testing.TB, comp []byte, kind stream.Kind, buf []byte) int64 {
	r, err := Open(bytes.NewReader(comp), int64(len(comp)), kind, &archive.Options{Name: "b"})
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{rd}, buf)
		total += n
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

// BenchmarkExtract extracts a .tar.gz and a .tar.zst of 32 MiB of mixed
// data (compare with scripts/compare-read.sh for tar xzf / tar --zstd -xf).
func BenchmarkExtract(b *testing.B) {
	for _, c := range []struct {
		name string
		kind stream.Kind
	}{{"tar.gz", stream.Gzip}, {"tar.zst", stream.Zstd}} {
		b.Run(c.name, func(b *testing.B) {
			comp := compressedTar(b, c.kind, 32<<20)
			buf := make([]byte, 256<<10)
			b.SetBytes(32 << 20)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				extractTo(b, comp, c.kind, buf)
			}
		})
	}
}

// TestExtractAllocsFlat: allocations of extracting a compressed tar do
// not grow with the payload (1 MiB against 8 MiB).
func TestExtractAllocsFlat(t *testing.T) {
	testenv.Short(t, "compresses 9 MiB twice")
	for _, kind := range []stream.Kind{stream.Gzip, stream.Zstd} {
		small, large := compressedTar(t, kind, 1<<20), compressedTar(t, kind, 8<<20)
		buf := make([]byte, 256<<10)
		a1 := testing.AllocsPerRun(3, func() { extractTo(t, small, kind, buf) })
		a8 := testing.AllocsPerRun(3, func() { extractTo(t, large, kind, buf) })
		t.Logf("%v: %.0f allocations for 1 MiB, %.0f for 8 MiB", kind, a1, a8)
		if a8 > a1+16 {
			t.Errorf("%v: %.0f allocations for 8 MiB against %.0f for 1 MiB: not flat", kind, a8, a1)
		}
	}
}

// treeTar is a tar of n small files in directories, as a source tree's
// (`tar -cf` of Go sources): GNU headers with owner names, and every
// seventh name too long for the name field, in a ustar header with a
// prefix.
func treeTar(tb testing.TB, n int) []byte {
	tb.Helper()
	var t bytes.Buffer
	tw := stdtar.NewWriter(&t)
	data := bytes.Repeat([]byte("package tar // source\n"), 60)
	for i := range n {
		h := &stdtar.Header{Typeflag: stdtar.TypeReg, Mode: 0o644, Uname: "gopher", Gname: "staff", Uid: 1000, Gid: 100,
			Name: fmt.Sprintf("src/pkg%d/file%d.go", i/50, i), Size: int64(200 + i%(len(data)-200)), Format: stdtar.FormatGNU}
		if i%7 == 3 {
			h.Name = fmt.Sprintf("src/%s/pkg%d/file%d.go", strings.Repeat("deep/", 20), i/50, i)
			h.Format = stdtar.FormatUSTAR
		}
		if i%50 == 0 {
			dir := *h
			dir.Typeflag, dir.Name, dir.Size, dir.Mode = stdtar.TypeDir, fmt.Sprintf("src/pkg%d/", i/50), 0, 0o755
			if err := tw.WriteHeader(&dir); err != nil {
				tb.Fatal(err)
			}
		}
		if err := tw.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		tw.Write(data[:h.Size])
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return t.Bytes()
}

// readTree opens a plain tar and reads every entry's data the way `garc
// t` does (Open reads the headers, Extract hands out the data), into buf;
// it returns the number of entries.
func readTree(tb testing.TB, tarData []byte, buf []byte) int {
	r, err := Open(bytes.NewReader(tarData), int64(len(tarData)), 0, &archive.Options{Name: "b"})
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		n++
		for {
			if _, err := rd.Read(buf); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkTree reads the headers and data of a tar of 11,000 small
// files (the bench-matrix's srctree has 11,233 entries).
func BenchmarkTree(b *testing.B) {
	tarData := treeTar(b, 11000)
	buf := make([]byte, 256<<10)
	b.SetBytes(int64(len(tarData)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		readTree(b, tarData, buf)
	}
}

// TestAllocsPerEntry pins the allocations per entry of reading a tar of
// small files: entries, their Extra and details are cut from shared
// blocks, names from an arena, owner names reused, and the header, the
// data reader and the skip buffer are the pass's. Only the entry list's
// growth, the blocks and the arena allocate, far less than once an entry
// (the reading allocated 9 times an entry before).
func TestAllocsPerEntry(t *testing.T) {
	if per := allocsPerEntry(t, treeTar); per > 0.1 {
		t.Errorf("%.3f allocations an entry, want at most 0.1", per)
	}
}

// allocsPerEntry is the allocations per entry of reading tars of 500 and
// 2,500 entries made by mk: the difference of the two runs over the
// difference of their entries, so that what a pass allocates once cancels.
func allocsPerEntry(t *testing.T, mk func(testing.TB, int) []byte) float64 {
	small, large := mk(t, 500), mk(t, 2500)
	buf := make([]byte, 32<<10)
	var nSmall, nLarge int
	aSmall := testing.AllocsPerRun(3, func() { nSmall = readTree(t, small, buf) })
	aLarge := testing.AllocsPerRun(3, func() { nLarge = readTree(t, large, buf) })
	per := (aLarge - aSmall) / float64(nLarge-nSmall)
	t.Logf("%.0f allocations for %d entries, %.0f for %d: %.3f an entry", aSmall, nSmall, aLarge, nLarge, per)
	return per
}

// paxTree is a tar of n files in pax format, each with a pax header of
// its times (sub-second mtime, atime and ctime), as bsdtar and Go's
// archive/tar write them.
func paxTree(tb testing.TB, n int) []byte {
	tb.Helper()
	var t bytes.Buffer
	tw := stdtar.NewWriter(&t)
	for i := range n {
		h := &stdtar.Header{Typeflag: stdtar.TypeReg, Mode: 0o644, Uname: "gopher", Gname: "staff", Size: 100,
			Name:    fmt.Sprintf("src/%s/pkg%d/file%d.go", strings.Repeat("deep/", i%30), i/50, i),
			ModTime: time.Unix(1700000000, int64(i)*1000+1), AccessTime: time.Unix(1700000000, 5), ChangeTime: time.Unix(1700000000, 7),
			Format: stdtar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		tw.Write(make([]byte, 100))
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return t.Bytes()
}

// TestAllocsPerPaxEntry pins the allocations per entry with a pax
// header: its data is read into the pass's buffer, the common keys are
// constant strings, the path, the comment and the owner names come from
// the names arena; what is left is the values of the time records, which
// apply parses (20 allocations an entry before).
func TestAllocsPerPaxEntry(t *testing.T) {
	if per := allocsPerEntry(t, paxTree); per > 7 {
		t.Errorf("%.3f allocations an entry with a pax header, want at most 7", per)
	}
}

// TestHugeSlab: once the list has hugeSlabAfter entries, the entries are
// cut from blocks of hugeSlabBytes (advised for huge pages), charged whole
// to the memory budget, when the budget has hugeSlabRoom free; under a
// smaller budget they come from the small blocks. Either way the list is
// the same and Close gives the whole charge back.
func TestHugeSlab(t *testing.T) {
	data := treeTar(t, 3000)
	var names [2][]string
	for i, c := range []struct {
		limit int64
		huge  bool
	}{{0, true}, {hugeSlabRoom / 2, false}} {
		mem := archive.NewMemoryBudget(c.limit)
		r, err := Open(bytes.NewReader(data), int64(len(data)), 0, &archive.Options{Name: "t.tar", Memory: mem})
		if err != nil {
			t.Fatal(err)
		}
		es := r.Entries()
		if r.Err() != nil || len(es) <= hugeSlabAfter+500 {
			t.Fatalf("%d entries, %v", len(es), r.Err())
		}
		for _, e := range es {
			names[i] = append(names[i], e.Name)
		}
		// The last 500 entries: in one huge block, or in two small
		// ones at least (of 256).
		first, last := uintptr(unsafe.Pointer(es[len(es)-500])), uintptr(unsafe.Pointer(es[len(es)-1]))
		oneBlock := last-first == 499*unsafe.Sizeof(entryAndExtra{})
		if oneBlock != c.huge || (mem.InUse() >= hugeSlabBytes) != c.huge {
			t.Errorf("budget %d: entries in one block %v, %d bytes charged; want huge %v", c.limit, oneBlock, mem.InUse(), c.huge)
		}
		r.Close()
		if n := mem.InUse(); n != 0 {
			t.Errorf("budget %d: %d bytes still charged after Close", c.limit, n)
		}
	}
	if !slices.Equal(names[0], names[1]) {
		t.Error("the lists differ")
	}
}
