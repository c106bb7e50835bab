package unpack15

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

const testOutLimit = 64 << 20

func decodeAll(d *Decoder, data []byte, f rartest.File) (int64, error) {
	if err := d.Reset(bytes.NewReader(data), Params{DictSize: min(f.Dict, 64<<20), UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
		return 0, err
	}
	n, err := io.CopyN(io.Discard, d, testOutLimit)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func checkErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("%s: error %v wraps neither ErrFormat nor ErrUnsupported", what, err)
	}
}

// TestCorpusAllUnits decodes every unencrypted version 1.5 member of
// every corpus file, hostile ones included: no panic, bounded output,
// errors wrap ErrFormat.
func TestCorpusAllUnits(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skipf("corpus not found at %s", root)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "files", "*", "*"))
	n, failed := 0, 0
	for _, p := range paths {
		files, err := rartest.WalkRAR4(p)
		if err != nil && len(files) == 0 {
			files, _ = rartest.WalkRAR14(p)
		}
		d := NewDecoder()
		for _, f := range files {
			if !isV15(f) || f.Encrypted || f.Split {
				continue
			}
			got, err := decodeAll(d, f.Data, f)
			checkErr(t, filepath.Base(p)+"/"+f.Name, err)
			if err == nil && got != f.Size {
				t.Errorf("%s/%s: %d bytes without error, want %d", filepath.Base(p), f.Name, got, f.Size)
			}
			if err != nil {
				failed++
				t.Logf("%s/%s: %v", filepath.Base(p), f.Name, err)
			}
			n++
		}
		d.Close()
	}
	t.Logf("%d members decoded, %d with errors", n, failed)
}

// samples returns the unencrypted version 1.5 members of the corpus units
// that extract.
func samples(t testing.TB) []rartest.File {
	units, _ := corpusFiles(t)
	var out []rartest.File
	for _, files := range units {
		for _, f := range files {
			if isV15(f) && !f.Encrypted && !f.Split && !f.Solid {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		t.Skip("no samples")
	}
	return out
}

// TestTruncated cuts each sample's packed data short: the decoder must
// report ErrFormat (or succeed when only padding was cut), never panic.
func TestTruncated(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, f := range samples(t) {
		step := max(1, len(f.Data)/200)
		for cut := 0; cut < len(f.Data); cut += step {
			n, err := decodeAll(d, f.Data[:cut], f)
			checkErr(t, f.Name, err)
			if err == nil && n != f.Size {
				t.Fatalf("%s cut at %d: %d bytes without error", f.Name, cut, n)
			}
			if err == nil && cut < len(f.Data)-1 {
				t.Errorf("%s cut at %d of %d: no error", f.Name, cut, len(f.Data))
			}
		}
	}
}

// TestCorrupted flips random bytes of each sample: errors wrap ErrFormat,
// output never exceeds the size.
func TestCorrupted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := NewDecoder()
	defer d.Close()
	rounds := 40
	if testing.Short() {
		rounds = 5
	}
	for _, f := range samples(t) {
		buf := make([]byte, len(f.Data))
		for range rounds {
			copy(buf, f.Data)
			for range 1 + rng.IntN(4) {
				if len(buf) > 0 {
					buf[rng.IntN(len(buf))] ^= byte(1 + rng.IntN(255))
				}
			}
			n, err := decodeAll(d, buf, f)
			checkErr(t, f.Name, err)
			if n > f.Size {
				t.Fatalf("%s: %d bytes out, size %d", f.Name, n, f.Size)
			}
		}
	}
}

// TestGarbage feeds random bytes with a large size: the decoder ends with
// an error when the input runs out, having written at most the size.
func TestGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := NewDecoder()
	defer d.Close()
	for i := range 50 {
		data := make([]byte, 1+rng.IntN(4096))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		f := rartest.File{Name: "garbage", Size: 1 << 30, Dict: 64 << 10, Version: 15, Solid: i%3 == 2}
		n, err := decodeAll(d, data, f)
		checkErr(t, "garbage", err)
		if err == nil {
			t.Errorf("garbage %d: %d bytes decoded without error", i, n)
		}
		// without a size the stream ends with the input, error or not
		f.Size = -1
		_, err = decodeAll(d, data, f)
		checkErr(t, "garbage, unknown size", err)
	}
}

// TestParams checks Reset's validation and the error after a failed file.
func TestParams(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	var buf [1]byte
	if _, err := d.Read(buf[:]); err == nil {
		t.Error("Read before Reset succeeded")
	}
	for _, v := range []int{0, 9, 16, 20, 29, 50} {
		err := d.Reset(bytes.NewReader(nil), Params{DictSize: 1 << 20, UnpackedSize: 1, Version: v})
		if !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	for _, dict := range []int64{0, -1} {
		err := d.Reset(bytes.NewReader(nil), Params{DictSize: dict, UnpackedSize: 1, Version: 15})
		if !errors.Is(err, archive.ErrFormat) {
			t.Errorf("dict %d: %v", dict, err)
		}
	}
	// a truncated file, then a solid one: the second must fail too
	if err := d.Reset(bytes.NewReader([]byte{0, 0}), Params{DictSize: 1 << 20, UnpackedSize: 100, Version: 15}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(d); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("truncated: %v", err)
	}
	err := d.Reset(bytes.NewReader([]byte{0, 0}), Params{DictSize: 1 << 20, UnpackedSize: 100, Version: 15, Solid: true})
	if !errors.Is(err, archive.ErrFormat) {
		t.Errorf("solid after failure: %v", err)
	}
	// a zero-size file decodes to nothing
	if err := d.Reset(bytes.NewReader(nil), Params{DictSize: 1 << 20, UnpackedSize: 0, Version: 15}); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(d); err != nil || len(b) != 0 {
		t.Errorf("empty file: %d bytes, %v", len(b), err)
	}
}

// TestAllocs checks that decoding a file with a reused Decoder allocates
// nothing per file.
func TestAllocs(t *testing.T) {
	f := samples(t)[0]
	d := NewDecoder()
	defer d.Close()
	var r bytes.Reader
	run := func() {
		r.Reset(f.Data)
		if err := d.Reset(&r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: f.Version}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if a := testing.AllocsPerRun(5, run); a > 0 {
		t.Errorf("%.1f allocations per file", a)
	}
}
