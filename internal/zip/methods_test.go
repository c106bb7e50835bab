package zip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// compressedEntry is an entry whose data was compressed by an oracle.
func compressedEntry(name string, method uint16, plain, packed []byte) rawEntry {
	return rawEntry{name: name, method: method, data: packed, crc: crc32.ChecksumIEEE(plain),
		csize: uint32(len(packed)), usize: uint32(len(plain)), localOff: -1}
}

func zstdCompress(t *testing.T, plain []byte, window int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithWindowSize(window), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(plain)
	w.Close()
	return buf.Bytes()
}

func xzCompress(t *testing.T, plain []byte, cfg xz.WriterConfig) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := cfg.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(plain)
	w.Close()
	return buf.Bytes()
}

// TestZstdAndXZ: methods 93 and 95, written by klauspost/compress and
// ulikunitz/xz; the Zstandard window is bounded by MaxDict.
func TestZstdAndXZ(t *testing.T) {
	plain := randomText(7, 3<<20)
	for _, c := range []struct {
		name    string
		method  uint16
		packed  []byte
		maxDict int64
		want    error
	}{
		{"zstd", methodZstd, zstdCompress(t, plain, 1<<20), 0, nil},
		{"zstd window above the limit", methodZstd, zstdCompress(t, plain, 8<<20), 1 << 20, archive.ErrLimit},
		{"xz crc64", methodXZ, xzCompress(t, plain, xz.WriterConfig{CheckSum: xz.CRC64}), 0, nil},
		{"xz sha256, small blocks", methodXZ, xzCompress(t, plain, xz.WriterConfig{CheckSum: xz.SHA256, BlockSize: 1 << 20}), 0, nil},
		{"xz crc32", methodXZ, xzCompress(t, plain, xz.WriterConfig{CheckSum: xz.CRC32}), 0, nil},
		{"xz dictionary above the limit", methodXZ, xzCompress(t, plain, xz.WriterConfig{DictCap: 8 << 20}), 1 << 20, archive.ErrLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := rawZip([]rawEntry{compressedEntry("f", c.method, plain, c.packed)}, nil)
			r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{MaxDict: c.maxDict})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(r)
			if c.want != nil {
				if !errors.Is(err, c.want) {
					t.Fatalf("%v, want %v", err, c.want)
				}
				return
			}
			if err != nil || !bytes.Equal(got["f"], plain) {
				t.Fatalf("%d bytes, %v", len(got["f"]), err)
			}
		})
	}
	// A corrupted xz check is ErrChecksum.
	packed := xzCompress(t, plain[:1000], xz.WriterConfig{CheckSum: xz.CRC32})
	packed[len(packed)-32-4] ^= 1 // inside the block check, before the index
	b := rawZip([]rawEntry{compressedEntry("f", methodXZ, plain[:1000], packed)}, nil)
	r, err := openBytes(t, b, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(r); err == nil || !wrapsSentinel(err) {
		t.Fatalf("corrupt xz: %v", err)
	}
}

// ppmdMixed is text with runs of random bytes: it fills a small PPMd
// arena many times over, so that the model is restarted or cut off.
func ppmdMixed(n int) []byte {
	r := rand.New(rand.NewSource(3))
	words := make([]string, 5000)
	for i := range words {
		w := make([]byte, 2+r.Intn(7))
		for j := range w {
			w[j] = byte('a' + r.Intn(26))
		}
		words[i] = string(w)
	}
	var b bytes.Buffer
	for b.Len() < n {
		if r.Intn(10) < 3 {
			for i := 0; i < 200; i++ {
				b.WriteByte(byte(r.Intn(256)))
			}
			continue
		}
		for i := 0; i < 40; i++ {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()[:n]
}

// TestPPMdRestoration: PPMd var. I streams by 7zz whose 1–2 MiB model
// fills up repeatedly, with restoration by restart (a=0) and by cutting
// off (a=1), at the lowest and highest orders.
func TestPPMdRestoration(t *testing.T) {
	data := ppmdMixed(1 << 20)
	for _, c := range []struct {
		method  string
		restore uint16
	}{
		{"PPMd:o=2:mem=1m:a=0", 0},
		{"PPMd:o=4:mem=1m:a=0", 0},
		{"PPMd:o=16:mem=1m:a=1", 1},
		{"PPMd:o=8:mem=2m:a=1", 1},
		{"PPMd:o=3:mem=1m:a=1", 1},
	} {
		t.Run(c.method, func(t *testing.T) {
			b := sevenZipArchive(t, map[string][]byte{"m.bin": data}, "-mm="+c.method)
			r, err := openBytes(t, b, "")
			if err != nil {
				t.Fatal(err)
			}
			f := &r.(*Reader).files[0]
			if f.realMethod != methodPPMd {
				t.Fatalf("method %d", f.realMethod)
			}
			if v := binary.LittleEndian.Uint16(b[f.dataOff:]); v>>12 != c.restore {
				t.Fatalf("restoration method %d, want %d", v>>12, c.restore)
			}
			got, err := readAll(r)
			if err != nil || !bytes.Equal(got["m.bin"], data) {
				t.Fatalf("%d bytes, %v", len(got["m.bin"]), err)
			}
		})
	}
}
