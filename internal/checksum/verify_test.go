package checksum

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
)

func TestVerifyingReader(t *testing.T) {
	data := bytes.Repeat([]byte("garc verifies "), 1000)
	good := SumBLAKE2sp(data)
	bad := good
	bad[31] ^= 1
	tests := []struct {
		name    string
		r       io.Reader
		want    []byte
		wantErr error
	}{
		{"match", bytes.NewReader(data), good[:], nil},
		{"mismatch", bytes.NewReader(data), bad[:], archive.ErrChecksum},
		{"one-byte reads", iotest.OneByteReader(bytes.NewReader(data)), good[:], nil},
		{"data with EOF", iotest.DataErrReader(bytes.NewReader(data)), good[:], nil},
		{"truncated", io.LimitReader(bytes.NewReader(data), 100), good[:], archive.ErrChecksum},
		{"no digest", bytes.NewReader(data), nil, nil},
		{"too long digest", bytes.NewReader(data), make([]byte, 65), archive.ErrChecksum},
		{"underlying error", iotest.ErrReader(iotest.ErrTimeout), good[:], iotest.ErrTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := NewVerifyingReader(tc.r, NewBLAKE2sp(), tc.want)
			got, err := io.ReadAll(v)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("data not passed through")
				}
				if s := v.Sum(nil); !bytes.Equal(s, good[:]) {
					t.Fatalf("Sum %x", s)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			// The terminal error is sticky.
			if _, err2 := v.Read(make([]byte, 1)); err2 == nil || (err != nil && err2 != err) {
				t.Fatalf("second read error %v after %v", err2, err)
			}
		})
	}
}

func TestVerifyingReaderOtherHash(t *testing.T) {
	data := []byte(strings.Repeat("x", 5000))
	want := sha256.Sum256(data)
	v := NewVerifyingReader(bytes.NewReader(data), sha256.New(), want[:])
	if _, err := io.ReadAll(v); err != nil {
		t.Fatal(err)
	}
	v.Reset(bytes.NewReader(data[1:]), want[:])
	if _, err := io.ReadAll(v); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("error %v", err)
	}
}

func TestCRC32Reader(t *testing.T) {
	data := bytes.Repeat([]byte{1, 2, 3, 250}, 3000)
	want := crc32.ChecksumIEEE(data)
	c := NewCRC32Reader(iotest.HalfReader(bytes.NewReader(data)), want)
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, data) || c.Sum32() != want {
		t.Fatalf("err %v, crc %08x", err, c.Sum32())
	}
	c.Reset(bytes.NewReader(data), want^1)
	if _, err := io.ReadAll(c); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("mismatch error %v", err)
	}
	if _, err2 := c.Read(nil); !errors.Is(err2, archive.ErrChecksum) {
		t.Fatalf("not sticky: %v", err2)
	}
	c.ResetUnchecked(bytes.NewReader(data))
	if _, err := io.ReadAll(c); err != nil || c.Sum32() != want {
		t.Fatalf("unchecked: %v %08x", err, c.Sum32())
	}
}

func TestReaderAllocs(t *testing.T) {
	data := make([]byte, 4096)
	br := bytes.NewReader(data)
	want := crc32.ChecksumIEEE(data)
	c := NewCRC32Reader(br, want)
	sum := SumBLAKE2sp(data)
	v := NewVerifyingReader(br, NewBLAKE2sp(), sum[:])
	buf := make([]byte, 1000)
	n := testing.AllocsPerRun(50, func() {
		br.Reset(data)
		c.Reset(br, want)
		for {
			if _, err := c.Read(buf); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				break
			}
		}
		br.Reset(data)
		v.Reset(br, sum[:])
		for {
			if _, err := v.Read(buf); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				break
			}
		}
	})
	if n != 0 {
		t.Fatalf("%v allocs per run", n)
	}
}

// hmacSHA256 is HMAC written out from RFC 2104 for a key of at most 64
// bytes, independent of crypto/hmac.
func hmacSHA256(key, msg []byte) [32]byte {
	var k [64]byte
	copy(k[:], key)
	inner := make([]byte, 0, 64+len(msg))
	outer := make([]byte, 0, 64+32)
	for _, b := range k {
		inner = append(inner, b^0x36)
		outer = append(outer, b^0x5c)
	}
	ih := sha256.Sum256(append(inner, msg...))
	return sha256.Sum256(append(outer, ih[:]...))
}

func TestRAR5MAC(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(3*i + 1)
	}
	for _, crc := range []uint32{0, 1, 0xdeadbeef, 0xffffffff} {
		mac := hmacSHA256(key, []byte{byte(crc), byte(crc >> 8), byte(crc >> 16), byte(crc >> 24)})
		var want uint32
		for i, b := range mac {
			want ^= uint32(b) << (8 * (i % 4))
		}
		if got := RAR5MACCRC32(key, crc); got != want {
			t.Errorf("RAR5MACCRC32(%08x) = %08x, want %08x", crc, got, want)
		}
	}
	sum := SumBLAKE2sp([]byte("content"))
	if got, want := RAR5MACBLAKE2sp(key, sum[:]), hmacSHA256(key, sum[:]); got != want {
		t.Errorf("RAR5MACBLAKE2sp = %x, want %x", got, want)
	}
	other := append([]byte(nil), key...)
	other[0] ^= 1
	if RAR5MACCRC32(key, 5) == RAR5MACCRC32(other, 5) {
		t.Errorf("MAC does not depend on the key")
	}
}

func TestRAR5MACReaders(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	data := bytes.Repeat([]byte("mac me "), 500)
	sum := SumBLAKE2sp(data)
	mac := RAR5MACBLAKE2sp(key, sum[:])
	v := NewVerifyingReader(nil, NewBLAKE2sp(), nil)
	v.ResetRAR5MAC(bytes.NewReader(data), mac[:], key)
	if _, err := io.ReadAll(v); err != nil {
		t.Fatalf("MAC'd BLAKE2sp: %v", err)
	}
	v.ResetRAR5MAC(bytes.NewReader(data), sum[:], key)
	if _, err := io.ReadAll(v); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("plain digest accepted as MAC: %v", err)
	}
	v.Reset(bytes.NewReader(data), sum[:])
	if _, err := io.ReadAll(v); err != nil {
		t.Fatalf("Reset does not clear MAC mode: %v", err)
	}
	crc := crc32.ChecksumIEEE(data)
	c := NewCRC32Reader(nil, 0)
	c.ResetRAR5MAC(bytes.NewReader(data), RAR5MACCRC32(key, crc), key)
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("MAC'd CRC32: %v", err)
	}
	c.ResetRAR5MAC(bytes.NewReader(data), crc, key)
	if _, err := io.ReadAll(c); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("plain CRC accepted as MAC: %v", err)
	}
}
