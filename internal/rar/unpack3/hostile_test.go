package unpack3

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
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

// TestCorpusAllUnits decodes every version 2.9 member of every RAR4
// corpus file, hostile ones included: no panic, bounded output, errors
// wrap ErrFormat.
func TestCorpusAllUnits(t *testing.T) {
	rartest.SweepCorpus(t, rartest.WalkRAR4, func(f rartest.File) bool {
		return !f.Dir && f.Method != 0x30 && !f.Encrypted && !f.Split && (f.Version == 29 || f.Version == 36)
	}, func() rartest.Resetter { return tester{NewDecoder()} }, false)
}

func smallSamples(t testing.TB) []rartest.File {
	out := rartest.Samples(t, rartest.WalkRAR4, []string{
		"files/libarchive/test_read_format_rar_filter.rar",
		"files/libarchive/test_read_format_rar_compress_best.rar",
		"files/sharpcompress/Archives__Rar.Audio_program.rar",
		"files/libarchive/test_read_format_rar3_lowdist_reset.rar",
		"files/libarchive/test_read_format_rar_binary_data.rar",
	}, func(f rartest.File) bool {
		return !f.Dir && f.Method != 0x30 && !f.Solid && f.Version == 29 && len(f.Data) < 200000
	})
	if len(out) < 4 {
		t.Fatalf("only %d samples", len(out))
	}
	return out
}

// TestCorrupted truncates and flips bytes of real streams.
func TestCorrupted(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, f := range smallSamples(t) {
		if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: 29}); err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(f.Data)/61)
		for cut := 0; cut < len(f.Data); cut += step {
			if err := d.Reset(bytes.NewReader(f.Data[:cut]), Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: 29}); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(d)
			rartest.CheckErr(t, f.Name, err)
			// The range coder may finish the last symbols without the
			// final bytes; the output must then still be right.
			if err == nil && !bytes.Equal(got, want) {
				t.Errorf("%s truncated at %d of %d: wrong output and no error", f.Name, cut, len(f.Data))
			}
		}
		rartest.SweepFlips(t, tester{d}, f, 61)
	}
}

// TestSmallReads reads with one-byte input and output calls.
func TestSmallReads(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, f := range smallSamples(t) {
		p := Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: 29}
		ref := NewDecoder()
		if err := ref.Reset(bytes.NewReader(f.Data), p); err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(ref)
		ref.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Reset(iotest.OneByteReader(bytes.NewReader(f.Data)), p); err != nil {
			t.Fatal(err)
		}
		got, err := rartest.ReadOneByte(d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: one-byte reads differ", f.Name)
		}
	}
}

// TestAllocs checks that decoding LZ files again allocates nothing.
func TestAllocs(t *testing.T) {
	var s []rartest.File
	for _, f := range smallSamples(t) {
		if f.Method < 0x35 { // PPMd files allocate their model per restart
			s = append(s, f)
		}
	}
	d := NewDecoder()
	defer d.Close()
	var r bytes.Reader
	run := func() {
		for _, f := range s {
			r.Reset(f.Data)
			if err := d.Reset(&r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: 29}); err != nil {
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

func TestTables(t *testing.T) {
	wantLen := [28]uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224}
	if lengthBase != wantLen {
		t.Errorf("lengthBase %v", lengthBase)
	}
	if distBase[59] != 3932160 || distBits[59] != 18 || distBase[36] != 262144 || distBits[35] != 16 {
		t.Errorf("distBase %v %v", distBase, distBits)
	}
}

// FuzzDecode decodes arbitrary packed data: errors wrap ErrFormat (or
// ErrUnsupported), reads make progress, and a file of known size yields
// exactly its size or an error.
func FuzzDecode(f *testing.F) {
	for _, s := range smallSamples(f) {
		f.Add(s.Data[:min(len(s.Data), 2048)], uint8(1))
	}
	d := NewDecoder()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		p := Params{DictSize: 256 << 10, UnpackedSize: int64(mode&3) * 10000, Version: 29}
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

// FuzzFilterRecord parses arbitrary filter records.
func FuzzFilterRecord(f *testing.F) {
	f.Add([]byte{0x80, 0x00})
	f.Add([]byte{0xbc, 0x03, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc})
	d := NewDecoder()
	f.Fuzz(func(t *testing.T, rec []byte) {
		if len(rec) == 0 {
			return
		}
		d.queue, d.qhead, d.lastFilterEnd = d.queue[:0], 0, 0
		err := d.parseFilter(rec, 1000)
		rartest.CheckErr(t, "filter", err)
	})
}

// TestSolidSkip leaves every other solid member unread: Reset must decode
// it before continuing, and the read members must match the listing.
func TestSolidSkip(t *testing.T) {
	root := testenv.CorpusRoot(t)
	for _, name := range []string{"junrar/com__github__junrar__solid__rar4-solid.rar", "rarfile/files__unicode.rar", "sharpcompress/Archives__Rar.solid.rar"} {
		files, err := rartest.WalkRAR4(filepath.Join(root, "files", name))
		if err != nil {
			t.Fatal(err)
		}
		exp, err := corpus.Listing(root, "expected/"+name+".tsv")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, e := range exp {
			want[e.Path] = e.SHA256
		}
		d := NewDecoder()
		compared := 0
		for i, f := range files {
			if f.Dir || f.Method == 0x30 {
				continue
			}
			if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: 29}); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				continue
			}
			got, err := io.ReadAll(d)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if w, ok := want[f.Name]; ok {
				compared++
				if sha256hex(got) != w {
					t.Errorf("%s/%s: wrong content after an unread predecessor", name, f.Name)
				}
			}
		}
		d.Close()
		if compared == 0 {
			t.Errorf("%s: nothing compared", name)
		}
	}
}

func sha256hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// FuzzTables feeds arbitrary bits to the LZ block header reader (table
// deltas included) and decodes symbols with the result.
func FuzzTables(f *testing.F) {
	for _, s := range smallSamples(f) {
		f.Add(s.Data[:min(len(s.Data), 300)])
	}
	d := NewDecoder()
	f.Fuzz(func(t *testing.T, data []byte) {
		d.br.Reset(bytes.NewReader(data))
		if len(data) > 0 && data[0]&1 == 1 {
			clear(d.lens[:])
		}
		if err := d.readTables(); err != nil {
			rartest.CheckErr(t, "tables", err)
			return
		}
		for range 1000 {
			d.br.Refill()
			if s := d.mainH.Decode(&d.br); s < 0 || s >= mainSyms {
				t.Fatalf("symbol %d", s)
			}
			d.br.Refill()
			if s := d.lowH.Decode(&d.br); s < 0 || s >= lowSyms {
				t.Fatalf("low distance symbol %d", s)
			}
		}
	})
}
