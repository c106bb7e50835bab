package aes

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
)

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// refEncrypt encrypts plain zero-padded to whole blocks with crypto/cipher
// directly.
func refEncrypt(key, iv, plain []byte) []byte {
	n := (len(plain) + 15) &^ 15
	out := make([]byte, n)
	copy(out, plain)
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, out)
	return out
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func TestDecryptReader(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, keyLen := range []int{16, 32} {
		key, iv := randBytes(r, keyLen), randBytes(r, 16)
		for _, size := range []int{0, 16, 32, 48, 4096, bufSize - 16, bufSize, bufSize + 16, 3*bufSize + 160, 1 << 20} {
			plain := randBytes(r, size)
			ct := refEncrypt(key, iv, plain)
			wrappers := map[string]func(io.Reader) io.Reader{
				"plain": func(r io.Reader) io.Reader { return r },
				"one":   iotest.OneByteReader,
				"half":  iotest.HalfReader,
				"eof":   iotest.DataErrReader,
			}
			for wname, wrap := range wrappers {
				if size > 100000 && wname == "one" {
					continue
				}
				for _, chunk := range []int{1, 16, 7, 100000} {
					t.Run(strconv.Itoa(keyLen)+"/"+strconv.Itoa(size)+"/"+wname+"/"+strconv.Itoa(chunk), func(t *testing.T) {
						d, err := NewDecryptReader(wrap(bytes.NewReader(ct)), key, iv)
						if err != nil {
							t.Fatal(err)
						}
						defer d.Close()
						var got []byte
						buf := make([]byte, chunk)
						for {
							n, err := d.Read(buf)
							got = append(got, buf[:n]...)
							if err == io.EOF {
								break
							}
							if err != nil {
								t.Fatal(err)
							}
						}
						if !bytes.Equal(got, plain) {
							t.Fatalf("plaintext differs (len %d, want %d)", len(got), len(plain))
						}
					})
				}
			}
		}
	}
}

func TestDecryptReaderPartialBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	key, iv := randBytes(r, 32), randBytes(r, 16)
	plain := randBytes(r, 64)
	ct := refEncrypt(key, iv, plain)
	for _, extra := range []int{1, 15} {
		in := append(append([]byte(nil), ct...), make([]byte, extra)...)
		d, _ := NewDecryptReader(bytes.NewReader(in), key, iv)
		got, err := io.ReadAll(d)
		if !errors.Is(err, archive.ErrFormat) {
			t.Fatalf("extra %d: error %v, want ErrFormat", extra, err)
		}
		if !bytes.Equal(got, plain) {
			t.Fatalf("extra %d: whole blocks not delivered", extra)
		}
		d.Close()
	}
}

func TestDecryptReaderErrors(t *testing.T) {
	key, iv := make([]byte, 32), make([]byte, 16)
	if _, err := NewDecryptReader(nil, key[:5], iv); err == nil {
		t.Fatal("bad key length accepted")
	}
	if _, err := NewDecryptReader(nil, key, iv[:8]); err == nil {
		t.Fatal("bad IV length accepted")
	}
	boom := errors.New("boom")
	ct := refEncrypt(key, iv, make([]byte, 100))
	d, _ := NewDecryptReader(io.MultiReader(bytes.NewReader(ct[:40]), iotest.ErrReader(boom)), key, iv)
	got, err := io.ReadAll(d)
	if !errors.Is(err, boom) || len(got) != 32 {
		t.Fatalf("got %d bytes, err %v", len(got), err)
	}
	buf := d.buf
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if !isZero(buf[:]) {
		t.Fatal("buffer not cleared on Close after an error")
	}
	if _, err := d.Read(make([]byte, 1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("read after Close: %v", err)
	}
	if err := d.Reset(bytes.NewReader(ct), key, iv); !errors.Is(err, ErrClosed) {
		t.Fatalf("Reset after Close: %v", err)
	}
	if d.cbc.keyLen != 0 || !isZero(d.cbc.key[:]) || d.cbc.block != nil {
		t.Fatal("key not wiped")
	}
	if err := d.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

func TestDecryptReaderAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	key, iv := randBytes(r, 32), randBytes(r, 16)
	ct := refEncrypt(key, iv, randBytes(r, 1<<20))
	br := bytes.NewReader(ct)
	d, err := NewDecryptReader(br, key, iv)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, chunk := range []int{1, 16, 1 << 20} {
		buf := make([]byte, chunk)
		n := testing.AllocsPerRun(3, func() {
			br.Reset(ct[:64<<10])
			if err := d.Reset(br, key, iv); err != nil {
				t.Fatal(err)
			}
			for {
				if _, err := d.Read(buf); err != nil {
					if err != io.EOF {
						t.Fatal(err)
					}
					break
				}
			}
		})
		if n != 0 {
			t.Errorf("chunk %d: %v allocs per run", chunk, n)
		}
	}
}

// writeAll writes p to w in the given style.
func writeStyle(t *testing.T, w *EncryptWriter, p []byte, style string, r *rand.Rand) {
	t.Helper()
	switch style {
	case "bytes":
		for _, c := range p {
			if err := w.WriteByte(c); err != nil {
				t.Fatal(err)
			}
		}
	case "random":
		for len(p) > 0 {
			k := r.IntN(min(len(p), 70000) + 1)
			if n, err := w.Write(p[:k]); err != nil || n != k {
				t.Fatal(n, err)
			}
			p = p[k:]
		}
	default:
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatal(n, err)
		}
	}
}

func TestEncryptWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, keyLen := range []int{16, 32} {
		key, iv := randBytes(r, keyLen), randBytes(r, 16)
		for _, size := range []int{0, 1, 15, 16, 17, 1000, bufSize, bufSize + 1, 5<<20 + 3} {
			plain := randBytes(r, size)
			want := refEncrypt(key, iv, plain)
			for _, style := range []string{"bytes", "random", "whole"} {
				if style == "bytes" && size > 1<<20 {
					continue
				}
				var out bytes.Buffer
				w, err := NewEncryptWriter(&out, key, iv)
				if err != nil {
					t.Fatal(err)
				}
				writeStyle(t, w, plain, style, r)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Fatalf("key %d size %d %s: ciphertext differs", keyLen, size, style)
				}
				if _, err := w.Write([]byte{1}); !errors.Is(err, ErrClosed) {
					t.Fatalf("write after Close: %v", err)
				}
				if err := w.WriteByte(1); !errors.Is(err, ErrClosed) {
					t.Fatalf("WriteByte after Close: %v", err)
				}
			}
		}
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestEncryptWriterFailingWriter(t *testing.T) {
	key, iv := make([]byte, 32), make([]byte, 16)
	for _, after := range []int{0, 1} {
		w, _ := NewEncryptWriter(&failWriter{after: after}, key, iv)
		plain := bytes.Repeat([]byte("secret"), bufSize/3)
		_, werr := w.Write(plain)
		buf := w.buf
		cerr := w.Close()
		if werr == nil && cerr == nil {
			t.Fatalf("after %d: failure not reported", after)
		}
		if !isZero(buf[:]) {
			t.Fatalf("after %d: buffer not cleared", after)
		}
		if w.buf != nil || w.cbc.block != nil || !isZero(w.cbc.key[:]) {
			t.Fatalf("after %d: buffer or key kept", after)
		}
	}
}

func TestEncryptWriterAllocs(t *testing.T) {
	key, iv := make([]byte, 32), make([]byte, 16)
	w, _ := NewEncryptWriter(io.Discard, key, iv)
	defer w.Close()
	p := make([]byte, 100000)
	n := testing.AllocsPerRun(10, func() {
		w.Write(p[:1])
		w.Write(p[:17])
		w.Write(p)
		w.WriteByte(5)
	})
	if n != 0 {
		t.Fatalf("%v allocs per run", n)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello, world"), uint8(3), uint16(5))
	f.Add(make([]byte, 100), uint8(0), uint16(16))
	f.Fuzz(func(t *testing.T, plain []byte, seed uint8, chunk uint16) {
		key := bytes.Repeat([]byte{seed}, 32)
		iv := bytes.Repeat([]byte{seed ^ 0x5a}, 16)
		var ct bytes.Buffer
		w, err := NewEncryptWriter(&ct, key, iv)
		if err != nil {
			t.Fatal(err)
		}
		c := int(chunk)%64 + 1
		for p := plain; len(p) > 0; {
			k := min(c, len(p))
			w.Write(p[:k])
			p = p[k:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if ct.Len()%16 != 0 || ct.Len() < len(plain) || ct.Len() >= len(plain)+16 && len(plain) > 0 {
			t.Fatalf("ciphertext length %d for %d", ct.Len(), len(plain))
		}
		d, err := NewDecryptReader(iotest.HalfReader(&ct), key, iv)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:len(plain)], plain) || !isZero(got[len(plain):]) {
			t.Fatal("round trip mismatch")
		}
	})
}

func BenchmarkDecrypt(b *testing.B) {
	key, iv := make([]byte, 32), make([]byte, 16)
	ct := make([]byte, 4<<20)
	br := bytes.NewReader(ct)
	d, _ := NewDecryptReader(br, key, iv)
	defer d.Close()
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(ct)))
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(ct)
		d.Reset(br, key, iv)
		for {
			if _, err := d.Read(buf); err != nil {
				break
			}
		}
	}
}

func BenchmarkEncrypt(b *testing.B) {
	key, iv := make([]byte, 32), make([]byte, 16)
	p := make([]byte, 4<<20)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewEncryptWriter(io.Discard, key, iv)
		w.Write(p)
		w.Close()
	}
}

// FuzzDecryptReader feeds arbitrary ciphertext in arbitrary pieces: the
// reader must return exactly the whole blocks, decrypted as crypto/cipher
// does, and report a trailing partial block as ErrFormat.
func FuzzDecryptReader(f *testing.F) {
	f.Add(make([]byte, 32), uint8(1))
	f.Add(make([]byte, 33), uint8(16))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, ct []byte, step uint8) {
		key, iv := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{2}, 16)
		whole := len(ct) &^ 15
		want := append([]byte(nil), ct[:whole]...)
		b, _ := aes.NewCipher(key)
		cipher.NewCBCDecrypter(b, iv).CryptBlocks(want, want)
		var src io.Reader = bytes.NewReader(ct)
		if step%2 == 1 {
			src = iotest.OneByteReader(src)
		}
		d, err := NewDecryptReader(src, key, iv)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		buf := make([]byte, int(step)+1)
		var got []byte
		for {
			n, err := d.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				if len(ct)%16 == 0 && err != io.EOF || len(ct)%16 != 0 && !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("len %d: error %v", len(ct), err)
				}
				break
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("len %d: plaintext differs", len(ct))
		}
	})
}
