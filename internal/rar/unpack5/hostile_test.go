package unpack5

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
	"github.com/garc-dev/garc/internal/testenv"
)

// tester is the Decoder as a rartest.Resetter.
type tester struct{ *Decoder }

// ResetFile starts file f.
func (d tester) ResetFile(src io.Reader, f rartest.File) error {
	return d.Reset(src, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version})
}

// TestCorpusAllUnits runs every parseable RAR5 corpus file, including the
// fuzz regressions and corrupt ones: no panic, bounded output, errors wrap
// ErrFormat.
func TestCorpusAllUnits(t *testing.T) {
	rartest.SweepCorpus(t, rartest.WalkRAR5, func(f rartest.File) bool {
		return !f.Dir && f.Method != 0 && !f.Encrypted && !(testing.Short() && f.Size > 256<<20)
	}, func() rartest.Resetter { return tester{NewDecoder()} }, false)
}

func smallSamples(t testing.TB) []rartest.File {
	out := rartest.Samples(t, rartest.WalkRAR5, []string{
		"files/junrar/com__github__junrar__rar5unpack__m3-plain-128k.rar",
		"files/junrar/com__github__junrar__rar5filters__rar5-e8e9.rar",
		"files/junrar/com__github__junrar__rar5filters__rar5-delta.rar",
		"files/libarchive/test_read_format_rar5_arm.rar",
		"files/junrar/com__github__junrar__rar5unpack__m5-plain-128k.rar",
	}, func(f rartest.File) bool {
		return !f.Dir && f.Method != 0 && !f.Solid
	})
	return out
}

// TestCorrupted truncates and flips bytes of real streams.
func TestCorrupted(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, f := range smallSamples(t) {
		rartest.SweepTruncated(t, tester{d}, f, 97, 0)
		rartest.SweepFlips(t, tester{d}, f, 97)
	}
}

// TestSmallReads reads with one-byte input and output calls.
func TestSmallReads(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, f := range smallSamples(t) {
		ref := NewDecoder()
		if err := ref.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size}); err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(ref)
		ref.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Reset(iotest.OneByteReader(bytes.NewReader(f.Data)), Params{DictSize: f.Dict, UnpackedSize: f.Size}); err != nil {
			t.Fatal(err)
		}
		got, err := rartest.ReadOneByte(d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: one-byte reads differ", f.Name)
		}
		// unknown size: runs to the last block
		if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: -1}); err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(d)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: unknown size: %d bytes, %v", f.Name, len(got), err)
		}
	}
}

// TestAllocs checks that decoding a file after the first allocates nothing.
func TestAllocs(t *testing.T) {
	s := smallSamples(t)
	d := NewDecoder()
	defer d.Close()
	var r bytes.Reader
	run := func() {
		for _, f := range s {
			r.Reset(f.Data)
			if err := d.Reset(&r, Params{DictSize: f.Dict, UnpackedSize: f.Size}); err != nil {
				t.Fatal(err)
			}
			if _, err := d.WriteTo(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(5, run); a > 1 {
		t.Errorf("%.1f allocations per run", a)
	}
}

// TestSolidRestart checks that an unread solid predecessor is decoded
// before the next file.
func TestSolidRestart(t *testing.T) {
	root := testenv.CorpusRoot(t)
	rel := "files/junrar/com__github__junrar__rar5unpack__m3-solid-128k.rar"
	files, err := rartest.WalkRAR5(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	exp, _ := corpus.Listing(root, "expected/junrar/"+strings.TrimPrefix(filepath.Base(rel), "")+".tsv")
	want := map[string][32]byte{}
	d := NewDecoder()
	defer d.Close()
	for i, f := range files {
		if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid}); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			continue // skip: Reset must finish it
		}
		b, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		want[f.Name] = sha256.Sum256(b)
	}
	if len(exp) == 0 {
		t.Fatal("the corpus has no listing for " + rel)
	}
	got := 0
	for _, e := range exp {
		if h, ok := want[e.Path]; ok {
			got++
			if hexs := strings.ToLower(string(appendHex(nil, h[:]))); hexs != e.SHA256 {
				t.Errorf("%s: wrong content after skipped predecessor", e.Path)
			}
		}
	}
	if got == 0 {
		t.Error("nothing compared")
	}
}

func appendHex(b, s []byte) []byte {
	const x = "0123456789abcdef"
	for _, c := range s {
		b = append(b, x[c>>4], x[c&15])
	}
	return b
}

// FuzzDecode decodes arbitrary packed data: errors wrap ErrFormat (or
// ErrUnsupported), reads make progress, and a file of known size yields
// exactly its size or an error.
func FuzzDecode(f *testing.F) {
	for _, s := range smallSamples(f) {
		// large inputs make the fuzzing engine crawl: seed with prefixes
		f.Add(s.Data[:min(len(s.Data), 2048)], uint8(1))
	}
	f.Add([]byte{0xc7, 0x5a ^ 0xc7 ^ 4, 4, 0, 0, 0, 0}, uint8(1))
	d := NewDecoder()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		p := Params{DictSize: 256 << 10, UnpackedSize: int64(mode&3) * 10000, Version: int(mode >> 7)}
		if mode&4 != 0 {
			p.UnpackedSize = -1
		}
		if err := d.Reset(bytes.NewReader(data), p); err != nil {
			t.Fatal(err)
		}
		limit := int64(1 << 20)
		if p.UnpackedSize >= 0 {
			limit = p.UnpackedSize + 1
		}
		n, err := rartest.ReadBounded(d, limit)
		rartest.CheckErr(t, "fuzz", err)
		rartest.CheckLocated(t, "fuzz", err, len(data))
		if p.UnpackedSize >= 0 && n > p.UnpackedSize {
			t.Fatalf("%d bytes out of %d", n, p.UnpackedSize)
		}
		if err == nil && p.UnpackedSize >= 0 && n != p.UnpackedSize {
			t.Fatalf("%d bytes without error, want %d", n, p.UnpackedSize)
		}
	})
}

// FuzzTables feeds arbitrary bits to the Huffman table reader and decodes
// symbols with the result.
func FuzzTables(f *testing.F) {
	for _, s := range smallSamples(f) {
		if len(s.Data) > 5 {
			f.Add(s.Data[3:min(len(s.Data), 300)])
		}
	}
	d := NewDecoder()
	d.distSyms = distSyms7
	f.Fuzz(func(t *testing.T, data []byte) {
		d.br.Reset(bytes.NewReader(data))
		if err := d.readTables(); err != nil {
			rartest.CheckErr(t, "tables", err)
			return
		}
		for i := 0; i < 1000; i++ {
			d.br.Refill()
			if s := d.mainH.Decode(&d.br); s < 0 || s >= mainSyms {
				t.Fatalf("symbol %d", s)
			}
			d.br.Refill()
			if s := d.distH.Decode(&d.br); s < 0 || s >= distSyms7 {
				t.Fatalf("distance symbol %d", s)
			}
		}
	})
}

var _ = os.ReadFile
