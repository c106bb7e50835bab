package sevenzip

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/archive"
)

// manyFilesArchive returns a 7z like 7zz writes for 1,000 directories of
// files, nFiles in all, of a few bytes each, stored in one Copy folder:
// names, CRCs, modification times and attributes (plain header).
func manyFilesArchive(nFiles int) []byte {
	const dirs = 1000
	var packed []byte
	var sizes []uint64
	var crcs []uint32
	var names []string
	for d := 0; d < dirs; d++ {
		names = append(names, fmt.Sprintf("d%03d", d))
	}
	for i := 0; i < nFiles; i++ {
		content := fmt.Sprintf("x%d\n", i%100)
		packed = append(packed, content...)
		sizes = append(sizes, uint64(len(content)))
		crcs = append(crcs, crc32.ChecksumIEEE([]byte(content)))
		names = append(names, fmt.Sprintf("d%03d/f%05d.txt", i*dirs/nFiles, i))
	}
	n := len(names)
	h := []byte{idHeader, idMainStreamsInfo, idPackInfo, 0, 1, idSize}
	h = append(h, num(uint64(len(packed)))...)
	h = append(h, idEnd, idUnpackInfo, idFolder, 1, 0, 1, 0x01, 0x00, idCodersUnpackSize)
	h = append(h, num(uint64(len(packed)))...)
	h = append(h, idEnd, idSubStreamsInfo, idNumUnpackStream)
	h = append(h, num(uint64(nFiles))...)
	h = append(h, idSize)
	for _, s := range sizes[:len(sizes)-1] {
		h = append(h, num(s)...)
	}
	h = append(h, idCRC, 1)
	for _, c := range crcs {
		h = binary.LittleEndian.AppendUint32(h, c)
	}
	h = append(h, idEnd, idEnd, idFilesInfo)
	h = append(h, num(uint64(n))...)
	// The directories come first: they have no stream.
	empty := make([]byte, (n+7)/8)
	for i := 0; i < dirs; i++ {
		empty[i/8] |= 0x80 >> (i % 8)
	}
	h = append(h, idEmptyStream)
	h = append(h, num(uint64(len(empty)))...)
	h = append(h, empty...)
	var nb []byte
	for _, s := range names {
		for _, c := range s {
			nb = append(nb, byte(c), 0)
		}
		nb = append(nb, 0, 0)
	}
	h = append(h, idName)
	h = append(h, num(uint64(len(nb)+1))...)
	h = append(h, 0)
	h = append(h, nb...)
	times := []byte{1, 0}
	for i := 0; i < n; i++ {
		times = binary.LittleEndian.AppendUint64(times, 133000000000000000+uint64(i)*10_000_000)
	}
	h = append(h, idMTime)
	h = append(h, num(uint64(len(times)))...)
	h = append(h, times...)
	attrs := []byte{1, 0}
	for i := 0; i < n; i++ {
		a := uint32(0x20 | 0x8000 | 0o100644<<16)
		if i < dirs {
			a = 0x10 | 0x8000 | 0o40755<<16
		}
		attrs = binary.LittleEndian.AppendUint32(attrs, a)
	}
	h = append(h, idWinAttributes)
	h = append(h, num(uint64(len(attrs)))...)
	h = append(h, attrs...)
	h = append(h, idEnd, idEnd)
	return buildArchive(packed, h)
}

var manyFiles = sync.OnceValue(func() []byte { return manyFilesArchive(100_000) })

// BenchmarkOpenManyEntries opens (parses the header of and lists) a 7z of
// 100,000 files in 1,000 directories, what `garc l` does before printing.
func BenchmarkOpenManyEntries(b *testing.B) {
	data := manyFiles()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(rd.Entries()) != 101_000 {
			b.Fatal(len(rd.Entries()))
		}
		rd.Close()
	}
}

// TestOpenManyEntriesAllocs bounds the allocations of opening a 7z of
// 100,000 files: a few per entry at most (the name arena, the entry block
// and the vectors are shared).
func TestOpenManyEntriesAllocs(t *testing.T) {
	data := manyFiles()
	allocs := testing.AllocsPerRun(2, func() {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rd.Close()
	})
	t.Logf("%.0f allocations for 101,000 entries", allocs)
	if allocs > 101_000/10 {
		t.Errorf("%.0f allocations for 101,000 entries", allocs)
	}
}

// wtf8 is the reference decoding of a 7z name: surrogate pairs as their
// code point, unpaired surrogates in WTF-8 (three bytes ED A0–BF 80–BF).
func wtf8(u []uint16) string {
	var b []byte
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			c = 0x10000 + (c-0xD800)<<10 + rune(u[i+1]-0xDC00)
			i++
		} else if c >= 0xD800 && c < 0xE000 {
			b = append(b, 0xED, 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
			continue
		}
		b = utf8.AppendRune(b, c)
	}
	return string(b)
}

// TestDecodeNames checks the name arena against wtf8, including surrogate
// pairs and unpaired surrogates (names made only of those once measured a
// negative arena size, a panic FuzzHeader found), and that the writer's
// encoding (appendNameUTF16) gives every name's units back: the mapping
// is reversible, so names that differ in the archive differ on disk
// (issue 23, point 8: a\uD800 and a\uFFFD were both "a\uFFFD").
func TestDecodeNames(t *testing.T) {
	for _, names := range [][][]uint16{
		{{'a'}, {}, utf16.Encode([]rune("dir/😀é")), {0xD800, 'x'}, {'y', 0xDC00}, {0xD83D}},
		{{0xDC00}},
		{{0xD800, 0xD800}, {0xDFFF}},
		{{'a', 0xD800}, {'a', 0xFFFD}, {'a', 0xDC00, 0xD800}, {'a', 0xD800, 0xDC00}, {0xDBFF, 0xDBFF, 0xDFFF}},
	} {
		var b []byte
		for _, n := range names {
			for _, c := range n {
				b = binary.LittleEndian.AppendUint16(b, c)
			}
			b = append(b, 0, 0)
		}
		got := make([]string, len(names))
		if err := decodeNames(b, len(names), func(i int, name string) { got[i] = name }); err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for i, n := range names {
			if want := wtf8(n); got[i] != want {
				t.Errorf("name %d: %q, want %q", i, got[i], want)
			}
			if got[i] != decodeUTF16(n) {
				t.Errorf("name %d: decodeUTF16 gives %q, decodeNames %q", i, decodeUTF16(n), got[i])
			}
			back := appendNameUTF16(nil, got[i])
			var want []byte
			for _, c := range n {
				want = binary.LittleEndian.AppendUint16(want, c)
			}
			if !bytes.Equal(back, want) {
				t.Errorf("name %d %q encodes to % x, want % x", i, got[i], back, want)
			}
			if j, dup := seen[got[i]]; dup {
				t.Errorf("names %d and %d both decode to %q", j, i, got[i])
			}
			seen[got[i]] = i
		}
		if err := decodeNames(b, len(names)+1, func(int, string) {}); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("one name too many: %v", err)
		}
	}
	// Bytes that are not UTF-8 and not a surrogate's WTF-8 are written as
	// U+FFFD, as before.
	if got := appendNameUTF16(nil, "a\xff\xed\x9f"); !bytes.Equal(got, []byte{'a', 0, 0xFD, 0xFF, 0xFD, 0xFF, 0xFD, 0xFF}) {
		t.Errorf("invalid bytes encode to % x", got)
	}
}

// Two entries whose names differ only in an unpaired surrogate and U+FFFD
// there extract as two entries (7zz writes a\xed\xa0\x80 and
// a\xef\xbf\xbd on Unix), and garc writes the surrogate back when it
// writes the name.
func TestSurrogateNamesDistinct(t *testing.T) {
	one, two := []byte("one"), []byte("two")
	content := append(bytes.Clone(one), two...)
	crc := func(p []byte) []byte { return binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(p)) }
	names := []byte{0, 'a', 0, 0x00, 0xD8, 0, 0, 'a', 0, 0xFD, 0xFF, 0, 0}
	hdr := []byte{idHeader, idMainStreamsInfo,
		idPackInfo, 0, 1, idSize, byte(len(content)), idEnd,
		idUnpackInfo, idFolder, 1, 0, 1, 0x01, 0x00, idCodersUnpackSize, byte(len(content)), idEnd,
		idSubStreamsInfo, idNumUnpackStream, 2, idSize, byte(len(one)), idCRC, 1}
	hdr = append(append(append(hdr, crc(one)...), crc(two)...), idEnd, idEnd, idFilesInfo, 2, idName, byte(len(names)))
	hdr = append(append(hdr, names...), idEnd, idEnd)
	data := buildArchive(content, hdr)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := extractToMap(rd)
	want := map[string]string{"a\xed\xa0\x80": "one", "a\uFFFD": "two"}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("extracted %q, %v; want %q", got, err, want)
	}
	// Written back by Update, the names read the same: the header holds
	// the surrogate again, not three U+FFFD.
	var out memTarget
	var items []WriteItem
	for name, data := range want {
		items = append(items, WriteItem{Name: name, Type: archive.TypeFile, Size: int64(len(data)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }})
	}
	if _, err := Update(context.Background(), &out, nil, &Changes{Add: items}, &WriteOptions{Level: 0}); err != nil {
		t.Fatal(err)
	}
	rd, err = NewReader(bytes.NewReader(out.b), int64(len(out.b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := extractToMap(rd); err != nil || !maps.Equal(got, want) {
		t.Fatalf("written and read back: %q, %v", got, err)
	}
}

// TestOpenManyFoldersAllocs bounds the allocations of opening a non-solid
// 7z (a folder per file): folder records come from shared chunks.
func TestOpenManyFoldersAllocs(t *testing.T) {
	const n = 10_000
	fs := make([]coderSpec, n)
	for i := range fs {
		fs[i] = coderSpec{id: []byte{0}, packed: []byte{'x', byte(i)}, unpack: 2}
	}
	data := folderArchive(fs)
	allocs := testing.AllocsPerRun(2, func() {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rd.Entries()) != n {
			t.Fatal(len(rd.Entries()))
		}
		rd.Close()
	})
	t.Logf("%.0f allocations for %d folders", allocs, n)
	if allocs > n/10 {
		t.Errorf("%.0f allocations for %d folders", allocs, n)
	}
}
