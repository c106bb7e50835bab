package unpack20

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/rartest"
	"github.com/garc-dev/garc/internal/testenv"
)

func isV20(f rartest.File) bool {
	return !f.Dir && f.Method != 0x30 && (f.Version == 20 || f.Version == 26)
}

// tester is the Decoder as a rartest.Resetter.
type tester struct{ *Decoder }

// ResetFile starts file f.
func (d tester) ResetFile(src io.Reader, f rartest.File) error {
	return d.Reset(src, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version})
}

// TestCorpusAllUnits decodes every unencrypted version 20/26 member of
// every corpus file, hostile ones included: no panic, bounded output,
// errors wrap ErrFormat.
func TestCorpusAllUnits(t *testing.T) {
	rartest.SweepCorpus(t, rartest.WalkRAR4, func(f rartest.File) bool { return isV20(f) && !f.Encrypted && !f.Split },
		func() rartest.Resetter { return tester{NewDecoder()} }, true)
}

// samples returns the unencrypted version 20 members of the corpus units
// that extract.
func samples(t testing.TB) []rartest.File {
	var out []rartest.File
	for _, u := range corpusFiles(t) {
		for _, f := range u.Files {
			if isV20(f) && !f.Encrypted && !f.Split && !f.Solid {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		testenv.Missing(t, "the shared corpus's samples of this format")
	}
	return out
}

// TestTruncated cuts each sample's packed data short: the decoder must
// report ErrFormat (or succeed when only padding was cut), never panic.
func TestTruncated(t *testing.T) {
	d := tester{NewDecoder()}
	defer d.Close()
	for _, f := range samples(t) {
		rartest.SweepTruncated(t, d, f, 200, 1)
	}
}

// TestCorrupted flips random bytes of each sample: errors wrap ErrFormat,
// output never exceeds the size.
func TestCorrupted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := tester{NewDecoder()}
	defer d.Close()
	rounds := 40
	if testing.Short() {
		rounds = 5
	}
	for _, f := range samples(t) {
		rartest.SweepRandomFlips(t, d, f, rng, rounds)
	}
}

// TestGarbage feeds random bytes with a large size: the decoder ends with
// an error when the input runs out, having written at most the size.
func TestGarbage(t *testing.T) {
	d := tester{NewDecoder()}
	defer d.Close()
	f := rartest.File{Name: "garbage", Size: 1 << 30, Dict: 1 << 20, Version: 20}
	rartest.SweepGarbage(t, d, f, rand.New(rand.NewPCG(3, 4)), 50)
}

// TestParams checks Reset's validation and the error after a failed file.
func TestParams(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	var buf [1]byte
	if _, err := d.Read(buf[:]); err == nil {
		t.Error("Read before Reset succeeded")
	}
	for _, v := range []int{0, 15, 29, 36, 50} {
		err := d.Reset(bytes.NewReader(nil), Params{DictSize: 1 << 20, UnpackedSize: 1, Version: v})
		if !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	for _, dict := range []int64{0, -1} {
		err := d.Reset(bytes.NewReader(nil), Params{DictSize: dict, UnpackedSize: 1, Version: 20})
		if !errors.Is(err, archive.ErrFormat) {
			t.Errorf("dict %d: %v", dict, err)
		}
	}
	// a truncated file, then a solid one: the second must fail too
	if err := d.Reset(bytes.NewReader([]byte{0, 0}), Params{DictSize: 1 << 20, UnpackedSize: 100, Version: 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(d); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("truncated: %v", err)
	}
	err := d.Reset(bytes.NewReader([]byte{0, 0}), Params{DictSize: 1 << 20, UnpackedSize: 100, Version: 20, Solid: true})
	if !errors.Is(err, archive.ErrFormat) {
		t.Errorf("solid after failure: %v", err)
	}
	// a zero-size file decodes to nothing
	if err := d.Reset(bytes.NewReader(nil), Params{DictSize: 1 << 20, UnpackedSize: 0, Version: 20}); err != nil {
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
