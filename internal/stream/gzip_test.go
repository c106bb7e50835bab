package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// gzipMember returns one gzip member of data written by the standard
// library with the given header and compression level.
func gzipMember(t testing.TB, data []byte, hdr kgzip.Header, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := kgzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Header = hdr
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withHeaderCRC sets FHCRC on a member without FEXTRA/FNAME/FCOMMENT and
// inserts the CRC-16 of its 10-byte header (corrupted when bad).
func withHeaderCRC(m []byte, bad bool) []byte {
	h := append([]byte{}, m[:10]...)
	h[3] |= gzipFlagHdrCRC
	crc := uint16(crc32.ChecksumIEEE(h))
	if bad {
		crc++
	}
	h = binary.LittleEndian.AppendUint16(h, crc)
	return append(h, m[10:]...)
}

func TestGzipFraming(t *testing.T) {
	text := bytes.Repeat([]byte("gzip member data, "), 5000)
	small := []byte("second")
	mtime := time.Unix(1700000000, 0)
	named := gzipMember(t, text, kgzip.Header{Name: "caf\u00e9.txt", ModTime: mtime, Extra: []byte("xx\x04\x00abcd")}, 6)
	bare := gzipMember(t, small, kgzip.Header{}, kgzip.BestSpeed)
	stored := gzipMember(t, text[:3000], kgzip.Header{Comment: "comment"}, kgzip.NoCompression)
	empty := gzipMember(t, nil, kgzip.Header{}, 6)
	corrupt := func(m []byte, at int) []byte {
		c := append([]byte{}, m...)
		c[at] ^= 0x55
		return c
	}
	join := func(ms ...[]byte) []byte { return bytes.Join(ms, nil) }

	tests := []struct {
		name    string
		in      []byte
		want    []byte
		hdrName string
		mtime   time.Time
		err     error // nil: success
	}{
		{"one member, FNAME Latin-1 (bytes kept), MTIME, FEXTRA", named, text, "caf\xe9.txt", mtime, nil},
		{"members", join(named, bare, stored, empty, bare), join(text, small, text[:3000], small), "caf\xe9.txt", mtime, nil},
		{"stored, FCOMMENT", stored, text[:3000], "", time.Time{}, nil},
		{"empty member", empty, nil, "", time.Time{}, nil},
		{"FHCRC", withHeaderCRC(bare, false), small, "", time.Time{}, nil},
		{"bad FHCRC", withHeaderCRC(bare, true), nil, "", time.Time{}, archive.ErrFormat},
		{"bad CRC-32", corrupt(bare, len(bare)-8), nil, "", time.Time{}, archive.ErrChecksum},
		{"bad ISIZE", corrupt(bare, len(bare)-4), nil, "", time.Time{}, archive.ErrChecksum},
		{"bad ISIZE of a second member", join(bare, corrupt(bare, len(bare)-1)), nil, "", time.Time{}, archive.ErrChecksum},
		{"truncated trailer", bare[:len(bare)-3], nil, "", time.Time{}, io.ErrUnexpectedEOF},
		{"truncated data", named[:len(named)/2], nil, "", time.Time{}, archive.ErrFormat},
		{"trailing garbage", join(bare, []byte("garbage!garbage!")), nil, "", time.Time{}, errGzipTrailing},
		{"short trailing garbage", join(bare, []byte("g")), nil, "", time.Time{}, errGzipTrailing},
		{"trailing zeros", join(bare, make([]byte, 700)), nil, "", time.Time{}, errGzipTrailing},
		{"trailing magic byte", join(bare, []byte{0x1F}), nil, "", time.Time{}, io.ErrUnexpectedEOF},
		{"second member of method 9", join(bare, []byte{0x1F, 0x8B, 9, 0, 0, 0, 0, 0, 0, 3}), nil, "", time.Time{}, errGzipHeader},
		{"truncated second header", join(bare, bare[:5]), nil, "", time.Time{}, io.ErrUnexpectedEOF},
		{"reserved flag", corrupt(bare, 3), nil, "", time.Time{}, archive.ErrFormat},
		{"not gzip", []byte("plain text, not gzip"), nil, "", time.Time{}, archive.ErrFormat},
		{"empty input", nil, nil, "", time.Time{}, archive.ErrFormat},
		{"name without end", append(append([]byte{0x1F, 0x8B, 8, gzipFlagName, 0, 0, 0, 0, 0, 3}, bytes.Repeat([]byte("n"), gzipMaxName)...), 0), nil, "", time.Time{}, archive.ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, h, err := NewDecoder(Gzip, bytes.NewReader(tc.in), 0, 1)
			var got []byte
			if err == nil {
				got, err = io.ReadAll(d)
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("%d bytes decoded, want %d", len(got), len(tc.want))
			}
			if h.Name != tc.hdrName || !h.ModTime.Equal(tc.mtime) {
				t.Fatalf("header %q %v, want %q %v", h.Name, h.ModTime, tc.hdrName, tc.mtime)
			}
		})
	}
}

// TestGzipErrorOffset checks that a Deflate error carries its offset in
// the gzip file: that of the member's data plus the codec's.
func TestGzipErrorOffset(t *testing.T) {
	m := gzipMember(t, []byte("abc"), kgzip.Header{}, 6)
	bad := append(append([]byte{}, m[:10]...), 0x07) // BTYPE 11: reserved
	bad = append(bad, m[11:]...)
	d, _, err := NewDecoder(Gzip, bytes.NewReader(append(append([]byte{}, m...), bad...)), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(d)
	var ae *archive.Error
	if !errors.As(err, &ae) || !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("error %v, want an archive.Error wrapping ErrFormat", err)
	}
	if want := int64(len(m) + 10); ae.Offset != want {
		t.Fatalf("offset %d, want %d", ae.Offset, want)
	}
}

// TestNoKlauspostGzip checks that garc does not link klauspost/compress's
// gzip: gzip is decoded with internal/deflate64 and framed here when
// written. Its flate is linked since `garc a` writes Deflate with it (ZIP,
// .gz, issue 26), at the cost of its init building 42 KB of encoder
// tables at every start (about 0.2 ms).
func TestNoKlauspostGzip(t *testing.T) {
	goTool := testenv.Tool(t, "go")
	out, err := exec.Command(goTool, "list", "-deps", "github.com/garc-dev/garc/cmd/garc").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/klauspost/compress/gzip" {
			t.Errorf("cmd/garc depends on %s", p)
		}
	}
}

// FuzzGzip decodes arbitrary input with the gzip reader and with
// klauspost/compress's gzip (which garc used before, as the oracle): both
// must accept the same inputs with the same output, and the errors must
// wrap ErrFormat or ErrChecksum.
func FuzzGzip(f *testing.F) {
	text := bytes.Repeat([]byte("fuzz gzip "), 300)
	f.Add(gzipMember(f, text, kgzip.Header{Name: "n", ModTime: time.Unix(1, 0)}, 6))
	f.Add(bytes.Join([][]byte{gzipMember(f, text, kgzip.Header{Comment: "c"}, 1), gzipMember(f, nil, kgzip.Header{}, 0)}, nil))
	f.Add(withHeaderCRC(gzipMember(f, []byte("x"), kgzip.Header{}, 9), false))
	stored := make([]byte, 9000) // stored blocks, read past the window
	for i := range stored {
		stored[i] = byte(i * i >> 3)
	}
	f.Add(append(gzipMember(f, stored, kgzip.Header{}, 0), gzipMember(f, append(stored, text...), kgzip.Header{}, 1)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 22
		d, _, err := NewDecoder(Gzip, bytes.NewReader(in), 0, 1)
		var got []byte
		if err == nil {
			// Reads of a size the input picks, from a byte to more
			// than a stored block or the window holds (stored bytes
			// go straight into reads of 4 KiB and more); the
			// inflater goes to the next input's reader
			// (gzipInflaters).
			buf := make([]byte, []int{1, 700, 4096, 70000}[len(in)%4])
			for err == nil && len(got) < limit {
				var n int
				n, err = d.Read(buf[:min(len(buf), limit-len(got))])
				got = append(got, buf[:n]...)
			}
			if err == io.EOF {
				err = nil
			}
			d.Close()
		}
		zr, zerr := kgzip.NewReader(bytes.NewReader(in))
		var want []byte
		if zerr == nil {
			want, zerr = io.ReadAll(io.LimitReader(zr, limit))
		}
		if (err == nil) != (zerr == nil) {
			t.Fatalf("error %v, klauspost's %v", err, zerr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%d bytes, klauspost's %d", len(got), len(want))
		}
		if err != nil && !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) {
			t.Fatalf("error %v wraps neither ErrFormat nor ErrChecksum", err)
		}
	})
}

// TestGzipDamageSameLength damages a gzip'd text 16 bytes at a time, as
// cli's TestReadThreadsSame damages its .tar.gz: most damage decodes
// without a Deflate error (a dynamic block's complete codes take any
// bits, and they fall back into step), and some of it to the text's very
// length, a tar that parses, where the member's CRC-32 is all that finds
// it (CI's TestReadThreadsSame exited 0 once: tar stops reading at the
// end-of-archive block, before the trailer). Every damage must be
// reported by the gzip reader, read in small and large pieces.
func TestGzipDamageSameLength(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 200000; i++ {
		fmt.Fprintf(&text, "line %d of %x\n", i*7919%100000, uint32(i)*2654435761)
	}
	m := gzipMember(t, text.Bytes(), kgzip.Header{Name: "a.tar"}, 6)
	bad := make([]byte, len(m))
	sameLength := 0
	for off := 20; off+16 < len(m)-8; off += 97 {
		copy(bad, m)
		for i := off; i < off+16; i++ {
			bad[i] ^= 0xa5
		}
		for _, size := range []int{4000, 1 << 19} {
			d, _, err := NewDecoder(Gzip, bytes.NewReader(bad), 0, 1)
			if err != nil {
				t.Fatalf("damage at %d: %v", off, err)
			}
			buf := make([]byte, size)
			n := 0
			for err == nil {
				var k int
				k, err = d.Read(buf)
				n += k
			}
			d.Close()
			if err == io.EOF {
				t.Fatalf("damage at %d, reads of %d: %d bytes without an error", off, size, n)
			}
			if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) {
				t.Fatalf("damage at %d: error %v wraps neither ErrFormat nor ErrChecksum", off, err)
			}
			if n == text.Len() && errors.Is(err, archive.ErrChecksum) && size == 4000 {
				sameLength++
			}
		}
	}
	if sameLength == 0 {
		t.Fatal("no damage decoded to the text's length: the test checks nothing of the CRC")
	}
	t.Logf("%d damages decoded to the text's length", sameLength)
}

// TestGzipInflaterReuse reads a gzip file of stored and compressed
// blocks partway, closes the reader, and reads another one whole, and a
// third one after a damaged one failed: nothing of the earlier streams
// (window, input, bit buffer, stored block state) may show in the later
// ones, which get the inflaters the earlier ones left (gzipInflaters).
func TestGzipInflaterReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 300000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte("inflater reuse "), 20000)
	files := [][]byte{
		bytes.Join([][]byte{gzipMember(t, random, kgzip.Header{}, 0), gzipMember(t, text, kgzip.Header{}, 6)}, nil),
		gzipMember(t, append(append([]byte{}, text[:70000]...), random[:100000]...), kgzip.Header{}, 1),
	}
	wants := [][]byte{append(append([]byte{}, random...), text...), append(append([]byte{}, text[:70000]...), random[:100000]...)}
	read := func(in []byte, size, limit int) ([]byte, error) {
		d, _, err := NewDecoder(Gzip, bytes.NewReader(in), 0, 1)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		var got []byte
		buf := make([]byte, size)
		for len(got) < limit {
			n, err := d.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				return got, err
			}
		}
		return got, nil
	}
	for _, cut := range []int{1, 5000, 65536, 150001, 299999, 310000} {
		for i := range files {
			if _, err := read(files[i], 7777, cut); err != nil && err != io.EOF {
				t.Fatalf("file %d cut at %d: %v", i, cut, err)
			}
			other := files[1-i]
			for _, size := range []int{100, 4095, 4096, 70000, 1 << 20} {
				got, err := read(other, size, 1<<30)
				if err != io.EOF || !bytes.Equal(got, wants[1-i]) {
					t.Fatalf("file %d after file %d cut at %d, reads of %d: %d bytes, %v", 1-i, i, cut, size, len(got), err)
				}
			}
			bad := append([]byte{}, files[i]...)
			bad[len(bad)/2] ^= 1
			if _, err := read(bad, 1<<16, 1<<30); err == io.EOF {
				t.Fatalf("file %d damaged: no error", i)
			}
		}
	}
	// A reader closed twice leaves its inflater once: two readers open
	// at the same time, read by turns, have one each.
	d, _, err := NewDecoder(Gzip, bytes.NewReader(files[0]), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close()
	var ds [2]Decoder
	var gots [2][]byte
	for i := range ds {
		if ds[i], _, err = NewDecoder(Gzip, bytes.NewReader(files[i]), 0, 1); err != nil {
			t.Fatal(err)
		}
		defer ds[i].Close()
	}
	buf := make([]byte, 20000)
	for done := 0; done < 2; {
		done = 0
		for i, d := range ds {
			n, err := d.Read(buf)
			gots[i] = append(gots[i], buf[:n]...)
			if err == io.EOF {
				done++
			} else if err != nil {
				t.Fatalf("file %d read by turns: %v", i, err)
			}
		}
	}
	for i := range gots {
		if !bytes.Equal(gots[i], wants[i]) {
			t.Fatalf("file %d read by turns: %d bytes, first difference at %d", i, len(gots[i]), firstDiffAt(gots[i], wants[i]))
		}
	}
}

// firstDiffAt returns the first index at which a and b differ, or the
// shorter length.
func firstDiffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
