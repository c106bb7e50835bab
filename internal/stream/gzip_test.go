package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
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
		{"trailing garbage", join(bare, []byte("garbage!garbage!")), nil, "", time.Time{}, archive.ErrFormat},
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
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 22
		d, _, err := NewDecoder(Gzip, bytes.NewReader(in), 0, 1)
		var got []byte
		if err == nil {
			got, err = io.ReadAll(io.LimitReader(d, limit))
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
