package stream

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/garc-dev/garc/internal/archive"
)

func gzipOf(t testing.TB, data []byte, h gzip.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Header = h
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func xzOf(t testing.TB, data []byte, c xz.WriterConfig) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := c.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdOf(t testing.TB, data []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(data, nil)
}

// skippableFrame is a zstd skippable frame holding p.
func skippableFrame(p []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(p))), p...)
}

// TestReadDetails checks the facts a single-stream File's Info.Details
// gives for the technical listing: gzip header size, OS byte and last
// trailer CRC; xz streams, blocks, largest block, checks and the first
// block's filters; the .lzma header; zstd's first frame header, and
// every frame when a skippable frame comes first.
func TestReadDetails(t *testing.T) {
	a := bytes.Repeat([]byte("details of a single stream file\n"), 3000) // 96,000 bytes
	b := a[:5000]
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	gzNamed := gzipOf(t, a, gzip.Header{Name: "name.txt", Comment: "comment", Extra: []byte("AB\x02\x00xy"), ModTime: mtime, OS: 11})
	gzBare := gzipOf(t, b, gzip.Header{OS: 3})
	xzCRC32 := xzOf(t, a, xz.WriterConfig{CheckSum: xz.CRC32, BlockSize: 40000})
	xzSHA := xzOf(t, b, xz.WriterConfig{CheckSum: xz.SHA256})
	lz := lzmaOf(t, b)
	zOne := zstdOf(t, a, zstd.WithEncoderCRC(true))
	zTwo := append(append(skippableFrame([]byte("skip")), zOne...), zstdOf(t, b, zstd.WithEncoderCRC(false))...)

	for _, tc := range []struct {
		name string
		data []byte
		kind Kind
		want func(t *testing.T, d *Details)
	}{
		{"gzip fields", gzNamed, Gzip, func(t *testing.T, d *Details) {
			want := GzipDetails{HeaderSize: 10 + 2 + 6 + 9 + 8, HostOS: 11, CRC32: crc32.ChecksumIEEE(a)}
			if d.Gzip != want {
				t.Errorf("got %+v, want %+v", d.Gzip, want)
			}
		}},
		{"gzip members", append(append([]byte{}, gzNamed...), gzBare...), Gzip, func(t *testing.T, d *Details) {
			// The header of the first member, the trailer of the last.
			want := GzipDetails{HeaderSize: 35, HostOS: 11, CRC32: crc32.ChecksumIEEE(b)}
			if d.Gzip != want {
				t.Errorf("got %+v, want %+v", d.Gzip, want)
			}
		}},
		{"xz blocks", xzCRC32, XZ, func(t *testing.T, d *Details) {
			x := d.XZ
			if !x.Indexed || x.Streams != 1 || x.Blocks != 3 || x.MaxBlockSize != 40000 || x.Checks != 1<<1 {
				t.Errorf("got %+v", x)
			}
			if len(x.Filters) != 1 || x.Filters[0].ID != 0x21 || len(x.Filters[0].Props) != 1 {
				t.Errorf("filters %+v", x.Filters)
			}
		}},
		{"xz streams", append(append(append([]byte{}, xzCRC32...), make([]byte, 8)...), xzSHA...), XZ, func(t *testing.T, d *Details) {
			x := d.XZ
			if !x.Indexed || x.Streams != 2 || x.Blocks != 4 || x.MaxBlockSize != 40000 || x.Checks != 1<<1|1<<10 {
				t.Errorf("got %+v", x)
			}
		}},
		{"xz padding", append(append(append([]byte{}, xzSHA...), make([]byte, 2000)...), xzSHA...), XZ, func(t *testing.T, d *Details) {
			// Padding longer than the chunk read backwards at a time.
			x := d.XZ
			if !x.Indexed || x.Streams != 2 || x.Blocks != 2 || x.MaxBlockSize != 5000 || x.Checks != 1<<10 {
				t.Errorf("got %+v", x)
			}
		}},
		{"lzma", lz, LZMA, func(t *testing.T, d *Details) {
			if d.LZMA != (LZMADetails{Props: 0x5D, DictSize: 1 << 20}) {
				t.Errorf("got %+v", d.LZMA)
			}
		}},
		{"zstd one frame", zOne, Zstd, func(t *testing.T, d *Details) {
			z := d.Zstd
			if z.Parsed || z.DataFrames != 1 || z.Blocks != 0 || z.DescriptorOR&0x04 == 0 || z.ContentSizeTotal != uint64(len(a)) {
				t.Errorf("got %+v", z)
			}
		}},
		{"zstd skippable first", zTwo, Zstd, func(t *testing.T, d *Details) {
			z := d.Zstd
			if !z.Parsed || z.DataFrames != 2 || z.SkipFrames != 1 || z.SkipBytes != 4 || z.Blocks < 2 ||
				z.PhysicalSize != int64(len(zTwo)) || z.ContentSizeTotal != uint64(len(a)+len(b)) ||
				z.ContentSizeMax != uint64(len(a)) || z.ChecksumKnown {
				t.Errorf("got %+v", z)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := OpenFile(bytes.NewReader(tc.data), int64(len(tc.data)), tc.kind, nil)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := f.Info().Details.(*Details)
			if !ok || d.Kind != tc.kind {
				t.Fatalf("Details %T %+v", f.Info().Details, f.Info().Details)
			}
			tc.want(t, d)
			wantHost := map[byte]archive.HostOS{3: archive.HostUnix, 11: archive.HostWindows}[d.Gzip.HostOS]
			if e := f.Entries()[0]; tc.kind == Gzip && e.HostOS != wantHost {
				t.Errorf("entry host %v, want %v (OS byte %d)", e.HostOS, wantHost, d.Gzip.HostOS)
			}
			// Cut short or damaged, the file gives what can be read,
			// never a panic; an xz file cut in the middle of a word
			// loses its index.
			for n := 0; n < len(tc.data); n += 1 + n/16 {
				d := readDetails(bytes.NewReader(tc.data[:n]), int64(n), tc.kind)
				if tc.kind == XZ && d.XZ.Indexed && n%4 != 0 { // an xz file is whole words
					t.Fatalf("xz cut at %d: indexed %+v", n, d.XZ)
				}
				bad := bytes.Clone(tc.data)
				bad[n] ^= 0xA5
				readDetails(bytes.NewReader(bad), int64(len(bad)), tc.kind)
			}
		})
	}
}

func lzmaOf(t *testing.T, data []byte) []byte {
	t.Helper()
	// A .lzma header (0x5D: lc 3, lp 0, pb 2; a 1 MiB dictionary; the
	// size) and filler: the details come from the header alone.
	h := []byte{0x5D}
	h = binary.LittleEndian.AppendUint32(h, 1<<20)
	return append(binary.LittleEndian.AppendUint64(h, uint64(len(data))), make([]byte, 32)...)
}

// countingReaderAt counts the ReadAt calls.
type countingReaderAt struct {
	r     *bytes.Reader
	reads int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

// TestXZDetailsPaddingReads checks that stream padding is read in chunks:
// 64 KiB of it between two streams costs a few hundred reads in all (it
// cost 16,384 reads when read a word at a time).
func TestXZDetailsPaddingReads(t *testing.T) {
	one := xzOf(t, []byte("padding"), xz.WriterConfig{})
	data := append(append(append([]byte{}, one...), make([]byte, 64<<10)...), one...)
	c := &countingReaderAt{r: bytes.NewReader(data)}
	d := xzDetails(c, int64(len(data)))
	if !d.Indexed || d.Streams != 2 {
		t.Fatalf("got %+v", d)
	}
	if c.reads > 1000 {
		t.Errorf("%d reads for 64 KiB of padding", c.reads)
	}
}

// FuzzReadDetails reads the details of arbitrary bytes as every kind:
// never a panic, and the counts stay within what the input can hold.
func FuzzReadDetails(f *testing.F) {
	f.Add(gzipOf(f, []byte("fuzz"), gzip.Header{Name: "n", Comment: "c", Extra: []byte{1, 2, 3, 4}}))
	f.Add(append(skippableFrame([]byte("s")), zstdOf(f, []byte("fuzz"))...))
	f.Add(xzOf(f, []byte("fuzz"), xz.WriterConfig{BlockSize: 2}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{Gzip, Bzip2, XZ, Zstd, LZMA} {
			d := readDetails(bytes.NewReader(data), int64(len(data)), k)
			if d.Zstd.Blocks > int64(len(data)) || d.Zstd.DataFrames+d.Zstd.SkipFrames > int64(len(data)) ||
				d.XZ.Blocks > int64(len(data)) || d.XZ.Streams > int64(len(data)) {
				t.Fatalf("%v: counts beyond the input: %+v", k, d)
			}
		}
	})
}
