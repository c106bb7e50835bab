package aes

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/bits"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

// ref7z builds the whole 7z KDF message in memory and hashes it at once.
func ref7z(password string, salt []byte, cycles int) [32]byte {
	var msg []byte
	pw := utf16le(password)
	for i := uint64(0); i < 1<<cycles; i++ {
		msg = append(msg, salt...)
		msg = append(msg, pw...)
		msg = binary.LittleEndian.AppendUint64(msg, i)
	}
	return sha256.Sum256(msg)
}

func TestKey7z(t *testing.T) {
	cases := []struct {
		pw     string
		salt   []byte
		cycles int
	}{
		{"", nil, 0},
		{"secret", nil, 0},
		{"secret", nil, 1},
		{"testpassword", []byte{1, 2, 3, 4}, 5},
		{"пароль密码ü😀", bytes.Repeat([]byte{9}, 16), 10},
		{"x", nil, 12},
	}
	for _, c := range cases {
		got, err := Key7z(c.pw, c.salt, c.cycles)
		if err != nil {
			t.Fatal(err)
		}
		if want := ref7z(c.pw, c.salt, c.cycles); got != want {
			t.Errorf("Key7z(%q, %x, %d) = %x, want %x", c.pw, c.salt, c.cycles, got, want)
		}
	}
}

func TestKey7zRaw(t *testing.T) {
	got, err := Key7z("ab", []byte{0xAA, 0xBB}, 0x3f)
	if err != nil {
		t.Fatal(err)
	}
	want := [32]byte{0xAA, 0xBB, 'a', 0, 'b', 0}
	if got != want {
		t.Fatalf("raw key %x, want %x", got, want)
	}
	long := "0123456789abcdefghijklmnop"
	got, _ = Key7z(long, nil, 0x3f)
	if !bytes.Equal(got[:], utf16le(long)[:32]) {
		t.Fatalf("raw key not truncated: %x", got)
	}
}

func TestKey7zLimits(t *testing.T) {
	if _, err := Key7z("p", nil, MaxCycles7z+1); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("cycles %d: %v", MaxCycles7z+1, err)
	}
	if _, err := Key7zLimit("p", nil, 3, 2); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("explicit limit ignored: %v", err)
	}
	if _, err := Key7zLimit("p", nil, 3, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := Key7z("p", nil, 64); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("cycles 64: %v", err)
	}
	var le *archive.LimitError
	if _, err := Key7z("p", nil, 40); !errors.As(err, &le) || le.Need != 40 {
		t.Fatalf("LimitError not reported: %v", err)
	}
}

func TestKeyRAR5(t *testing.T) {
	salt := []byte("0123456789abcdef")
	for _, c := range []struct {
		pw  string
		lg2 int
	}{{"password", 0}, {"password", 4}, {"pässwörd", 10}, {"", 1}} {
		key, hashKey, check, err := KeyRAR5Limit(c.pw, salt, c.lg2, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 << c.lg2
		wantKey, _ := pbkdf2.Key(sha256.New, c.pw, salt, n, 32)
		wantHash, _ := pbkdf2.Key(sha256.New, c.pw, salt, n+16, 32)
		v, _ := pbkdf2.Key(sha256.New, c.pw, salt, n+32, 32)
		var wantCheck [8]byte
		for i := 0; i < 8; i++ {
			wantCheck[i] = v[i] ^ v[i+8] ^ v[i+16] ^ v[i+24]
		}
		if !bytes.Equal(key[:], wantKey) || !bytes.Equal(hashKey[:], wantHash) || check != wantCheck {
			t.Errorf("%q lg2 %d: key %x hash %x check %x; want %x %x %x", c.pw, c.lg2, key, hashKey, check, wantKey, wantHash, wantCheck)
		}
	}
	if _, _, _, err := KeyRAR5Limit("p", salt, MaxLg2CountRAR5+1, 0); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("limit: %v", err)
	}
	if _, _, _, err := KeyRAR5Limit("p", salt, 5, 4); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("explicit limit: %v", err)
	}
}

func TestKeyRAR5Allocs(t *testing.T) {
	salt := make([]byte, 16)
	// The allocation count must not grow with the iteration count.
	a := testing.AllocsPerRun(3, func() { KeyRAR5Limit("pw", salt, 2, 0) })
	b := testing.AllocsPerRun(3, func() { KeyRAR5Limit("pw", salt, 12, 0) })
	if a != b || a > 20 {
		t.Fatalf("allocations: %v at 2^2, %v at 2^12", a, b)
	}
	c := testing.AllocsPerRun(3, func() { Key7z("pw", salt, 2) })
	d := testing.AllocsPerRun(3, func() { Key7z("pw", salt, 12) })
	if c != d || c > 10 {
		t.Fatalf("Key7z allocations: %v at 2^2, %v at 2^12", c, d)
	}
	e := testing.AllocsPerRun(1, func() { KeyRAR3("pw", salt[:8]) })
	if e > 10 {
		t.Fatalf("KeyRAR3 allocations: %v", e)
	}
}

// reidSHA1 is a model of the classic public-domain C SHA-1 (Steve Reid's)
// that RAR 2.9–4.x used: when update has enough input, it completes its
// internal block by copying, then transforms the remaining whole blocks
// directly in the caller's buffer, and its transform expands the message
// schedule in a 16-word circular array overlaid on that buffer, in the
// machine's (little-endian) byte order. It exists to check KeyRAR3's
// emulation from first principles.
type reidSHA1 struct {
	h     [5]uint32
	count uint64
	buf   [64]byte
}

func newReid() *reidSHA1 {
	return &reidSHA1{h: [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}}
}

// transform hashes the 64 bytes at block and leaves the schedule there.
func (s *reidSHA1) transform(block []byte) {
	var l [16]uint32 // the overlay: word i lives at block[4i:4i+4] (LE)
	for i := range l {
		l[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	blk0 := func(i int) uint32 { // byte swap in place
		l[i] = bits.ReverseBytes32(l[i])
		return l[i]
	}
	blk := func(i int) uint32 {
		t := l[(i+13)&15] ^ l[(i+8)&15] ^ l[(i+2)&15] ^ l[i&15]
		l[i&15] = bits.RotateLeft32(t, 1)
		return l[i&15]
	}
	a, b, c, d, e := s.h[0], s.h[1], s.h[2], s.h[3], s.h[4]
	for i := 0; i < 80; i++ {
		var w, f, k uint32
		if i < 16 {
			w = blk0(i)
		} else {
			w = blk(i)
		}
		switch {
		case i < 20:
			f, k = (b&c)|(^b&d), 0x5A827999
		case i < 40:
			f, k = b^c^d, 0x6ED9EBA1
		case i < 60:
			f, k = (b&c)|(b&d)|(c&d), 0x8F1BBCDC
		default:
			f, k = b^c^d, 0xCA62C1D6
		}
		t := bits.RotateLeft32(a, 5) + f + e + w + k
		e, d, c, b, a = d, c, bits.RotateLeft32(b, 30), a, t
	}
	s.h[0] += a
	s.h[1] += b
	s.h[2] += c
	s.h[3] += d
	s.h[4] += e
	for i := range l {
		binary.LittleEndian.PutUint32(block[4*i:], l[i])
	}
}

func (s *reidSHA1) update(data []byte) {
	j := int(s.count % 64)
	s.count += uint64(len(data))
	i := 0
	if j+len(data) > 63 {
		i = 64 - j
		copy(s.buf[j:], data[:i])
		s.transform(s.buf[:])
		for ; i+63 < len(data); i += 64 {
			s.transform(data[i : i+64])
		}
		j = 0
	}
	copy(s.buf[j:], data[i:])
}

func (s *reidSHA1) final() [20]byte {
	c := *s
	bitsLen := c.count * 8
	pad := []byte{0x80}
	for (c.count+uint64(len(pad)))%64 != 56 {
		pad = append(pad, 0)
	}
	pad = binary.BigEndian.AppendUint64(pad, bitsLen)
	c.update(pad)
	var out [20]byte
	for i, v := range c.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

func refRAR3(password string, salt []byte) (key, iv [16]byte) {
	raw := append(utf16le(password), salt...)
	s := newReid()
	for i := 0; i < 0x40000; i++ {
		s.update(raw)
		s.update([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
		if i%0x4000 == 0 {
			d := s.final()
			iv[i/0x4000] = d[19]
		}
	}
	d := s.final()
	for i := 0; i < 16; i++ {
		key[i] = d[i^3]
	}
	return
}

func TestReidModel(t *testing.T) {
	// Without in-place blocks the model is plain SHA-1.
	s := newReid()
	msg := []byte("abc")
	s.update(msg)
	if s.final() != sha1.Sum(msg) {
		t.Fatal("model SHA-1 wrong")
	}
	long := bytes.Repeat([]byte("0123456789"), 30)
	s = newReid()
	s.update(append([]byte(nil), long...))
	if s.final() != sha1.Sum(long) {
		t.Fatal("model SHA-1 wrong on long input")
	}
}

func TestKeyRAR3(t *testing.T) {
	salt := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		pw   string
		salt []byte
	}{
		{"password", salt},
		{"password", nil},
		{"пароль密码ü", salt},
		// Long enough for RAR's in-place SHA-1 side effect.
		{"a-rather-long-password-for-rar-3.x", salt},
		{"0123456789012345678901234567890123456789012345678901234567890123456789", nil},
		{string(bytes.Repeat([]byte("Z"), 200)), salt}, // truncated to 127 units
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, c := range cases {
		key, iv := KeyRAR3(c.pw, c.salt)
		pw := c.pw
		if len(pw) > 127 {
			pw = pw[:127]
		}
		wantKey, wantIV := refRAR3(pw, c.salt)
		if key != wantKey || iv != wantIV {
			t.Errorf("KeyRAR3(%q, %x) = %x %x, want %x %x", c.pw, c.salt, key, iv, wantKey, wantIV)
		}
	}
}

func TestKeyCache(t *testing.T) {
	var c KeyCache
	salt := []byte("saltsalt")
	k1, err := c.Key7z("a", salt, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Key7z("a", salt, 4)
	if k1 != want {
		t.Fatal("cached key differs")
	}
	if k, _ := c.Key7z("a", salt, 4, 0); k != want || c.Len() != 1 {
		t.Fatal("second lookup")
	}
	if k, _ := c.Key7z("b", salt, 4, 0); k == want {
		t.Fatal("password ignored")
	}
	if k, _ := c.Key7z("a", salt[:4], 4, 0); k == want {
		t.Fatal("salt ignored")
	}
	if c.Len() != 3 {
		t.Fatalf("three keys cached: %d", c.Len())
	}
	if _, err := c.Key7z("a", salt, 30, 0); !errors.Is(err, archive.ErrLimit) {
		t.Fatal("limit through cache")
	}
	rk, rh, rc, _ := c.KeyRAR5("a", salt, 3, 0)
	wk, wh, wc, _ := KeyRAR5Limit("a", salt, 3, 0)
	if rk != wk || rh != wh || rc != wc {
		t.Fatal("RAR5 through cache")
	}
	rk, rh, rc, _ = c.KeyRAR5("a", salt, 3, 0)
	if rk != wk || rh != wh || rc != wc {
		t.Fatal("RAR5 cached")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _ := c.Key7z("a", salt, 4, 0)
			if k != want {
				t.Error("concurrent lookup")
			}
		}()
	}
	wg.Wait()
	c.Clear()
	if c.Len() != 0 {
		t.Fatal("Clear")
	}
}

// TestKeyCacheBound checks that a KeyCache keeps DefaultKeyCacheSize keys,
// dropping the least recently used.
func TestKeyCacheBound(t *testing.T) {
	var c KeyCache
	salt := []byte("salt")
	for i := range DefaultKeyCacheSize + 5 {
		c.Key7z(string(rune('a'+i)), salt, 1, 0)
		if i == DefaultKeyCacheSize-1 {
			c.Key7z("a", salt, 1, 0) // a cache hit: "a" becomes the most recent
		}
	}
	if c.Len() != DefaultKeyCacheSize {
		t.Fatalf("%d keys cached, want %d", c.Len(), DefaultKeyCacheSize)
	}
	c.mu.Lock()
	kept := map[string]bool{}
	for _, e := range c.entries {
		kept[e.password] = true
	}
	c.mu.Unlock()
	if !kept["a"] || kept["b"] || !kept[string(rune('a'+DefaultKeyCacheSize+4))] {
		t.Errorf("kept %v: want a and the newest, not b", kept)
	}
}

func TestParseProps7z(t *testing.T) {
	p, err := ParseProps7z([]byte{0x80 | 0x40 | 19, 0x3<<4 | 0x7, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 9, 9})
	if err != nil || p.CyclesPower != 19 || !bytes.Equal(p.Salt, []byte{1, 2, 3, 4}) || p.IV != [16]byte{9, 9, 9, 9, 9, 9, 9, 9} {
		t.Fatalf("%+v %v", p, err)
	}
	for _, bad := range [][]byte{{0xc0}, {0xc0, 0xff}, {0x40, 0x0f, 1, 2}} {
		if _, err := ParseProps7z(bad); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("%x: %v", bad, err)
		}
	}
	if p, err := ParseProps7z(nil); err != nil || p.CyclesPower != 0 {
		t.Fatal("empty props")
	}
}

func BenchmarkKey7z19(b *testing.B) {
	salt := make([]byte, 0)
	for b.Loop() {
		Key7z("password", salt, 19)
	}
}

func BenchmarkKeyRAR5_15(b *testing.B) {
	salt := make([]byte, 16)
	for b.Loop() {
		KeyRAR5Limit("password", salt, 15, 0)
	}
}

func BenchmarkKeyRAR3(b *testing.B) {
	salt := make([]byte, 8)
	for b.Loop() {
		KeyRAR3("password", salt)
	}
}

// plainRAR3 is the scheme with an ordinary SHA-1 (no in-place side effect).
func plainRAR3(password string, salt []byte) (key [16]byte) {
	raw := append(utf16le(password), salt...)
	h := sha1.New()
	for i := 0; i < 0x40000; i++ {
		h.Write(raw)
		h.Write([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
	}
	d := h.Sum(nil)
	for i := 0; i < 16; i++ {
		key[i] = d[i^3]
	}
	return
}

// TestKeyRAR3SideEffectMatters shows the emulated side effect changes the
// key exactly for long passwords, so TestKeyRAR3 exercises it.
func TestKeyRAR3SideEffectMatters(t *testing.T) {
	testenv.Short(t, "derives RAR 3 keys of long passwords")
	salt := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	short, _ := KeyRAR3("password", salt)
	if short != plainRAR3("password", salt) {
		t.Fatal("short password: differs from plain SHA-1 scheme")
	}
	long := "a-rather-long-password-for-rar-3.x"
	k, _ := KeyRAR3(long, salt)
	if k == plainRAR3(long, salt) {
		t.Fatal("long password: side effect not applied")
	}
}
