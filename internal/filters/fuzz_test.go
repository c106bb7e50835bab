package filters

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// FuzzConverters checks, for every converter, that decoding inverts
// encoding for any input and any chunking, and that nothing panics.
func FuzzConverters(f *testing.F) {
	rng := rand.New(rand.NewSource(31))
	for _, m := range converterMethods {
		b := make([]byte, 300)
		rng.Read(b)
		m.plant(rng, b)
		f.Add(b, int64(1))
	}
	f.Add([]byte{0xE8, 0xE8, 0xE8, 0, 0, 0xFF, 0xE9, 0, 0, 0, 0}, int64(2))
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		for _, m := range converterMethods {
			rng := rand.New(rand.NewSource(seed))
			enc := convertAll(t, m.mk(true), data, rng)
			if !bytes.Equal(enc, convertWhole(m.mk(true), data)) {
				t.Fatalf("%s: encoding depends on chunking", m.name)
			}
			if dec := readAllOdd(t, m.mk(false), enc, rng, 1+int(seed&0xFF)); !bytes.Equal(dec, data) {
				t.Fatalf("%s: decode(encode(x)) != x", m.name)
			}
			// Decoding arbitrary data must not panic either.
			_ = readAllOdd(t, m.mk(false), data, rng, 64)
		}
	})
}

// FuzzBCJ2 feeds arbitrary streams to the BCJ2 decoder: it must end with
// output or an error, never panic or loop.
func FuzzBCJ2(f *testing.F) {
	f.Add([]byte{0xE8, 1, 2, 3, 0xE9, 0x0F, 0x85}, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 2}, []byte{0, 0x80, 0, 0, 0, 0xFF, 0xFF}, uint16(20))
	// Seed with the streams of a real BCJ2 archive from the corpus.
	if root, ok := corpus.Root(); ok {
		if arc, err := os.ReadFile(filepath.Join(root, "files", "libarchive", "test_read_format_7zip_bcj2_copy_1.7z")); err == nil {
			if s, err := folderStreams(arc, bcj2ID); err == nil {
				f.Add(s[0][:min(len(s[0]), 2000)], s[1], s[2], s[3], uint16(2000))
			}
		}
	}
	f.Fuzz(func(t *testing.T, main, call, jump, rc []byte, size uint16) {
		r, err := NewBCJ2Reader(bytes.NewReader(main), bytes.NewReader(call), bytes.NewReader(jump), bytes.NewReader(rc), int64(size))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		if err == nil && len(out) != int(size) {
			t.Fatalf("no error but %d bytes of %d", len(out), size)
		}
		if err != nil && !errors.Is(err, archive.ErrFormat) {
			t.Fatalf("error %v does not wrap ErrFormat", err)
		}
		if len(out) > int(size) {
			t.Fatalf("%d bytes, more than %d", len(out), size)
		}
	})
}

func benchInput(b *testing.B, plant func(*rand.Rand, []byte)) []byte {
	if code := goBinary(b, 4<<20); code != nil && plant == nil {
		return code
	}
	rng := rand.New(rand.NewSource(41))
	data := make([]byte, 4<<20)
	rng.Read(data)
	if plant != nil {
		plant(rng, data)
	}
	return data
}

func BenchmarkDecode(b *testing.B) {
	for _, m := range converterMethods {
		b.Run(m.name, func(b *testing.B) {
			var data []byte
			if m.name == "BCJ" {
				data = benchInput(b, nil) // real x86 code
			} else {
				data = benchInput(b, m.plant)
			}
			enc := convertWhole(m.mk(true), data)
			src := bytes.NewReader(enc)
			r := NewReader(src, m.mk(false)).(*Reader)
			buf := make([]byte, 32<<10)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				src.Reset(enc)
				r.Reset(src)
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		})
	}
}

func BenchmarkBCJ2(b *testing.B) {
	need7zz(b)
	data := goBinary(b, 4<<20)
	f := makeBCJ2(b, data, "-m0=BCJ2", "-m1=Copy")
	var rs [4]*bytes.Reader
	for i := range rs {
		rs[i] = bytes.NewReader(f.streams[i])
	}
	r, _ := NewBCJ2Reader(rs[0], rs[1], rs[2], rs[3], int64(len(data)))
	d := r.(*BCJ2Reader)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range rs {
			rs[k].Reset(f.streams[k])
		}
		d.Reset(rs[0], rs[1], rs[2], rs[3], int64(len(data)))
		for {
			if _, err := d.Read(buf); err != nil {
				break
			}
		}
	}
}

func BenchmarkRAR(b *testing.B) {
	data := benchInput(b, plantX86)
	buf := make([]byte, len(data))
	for _, bm := range []struct {
		name string
		fn   func()
	}{
		{"E8E9", func() { copy(buf, data); RARE8(buf, 0, true) }},
		{"ARM", func() { copy(buf, data); RARARM(buf, 0) }},
		{"Itanium", func() { copy(buf, data); RARItanium(buf, 0) }},
		{"Delta4", func() { RARDelta(buf, data, 4) }},
		{"RGB", func() { _ = RARRGB(buf, data, 3*640, 0) }},
		{"Audio2", func() { RARAudio(buf, data, 2) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				bm.fn()
			}
		})
	}
}
