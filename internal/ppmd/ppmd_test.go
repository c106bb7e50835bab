package ppmd

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// sevenZip returns the path of 7zz, skipping (or failing) the test
// without it.
func sevenZip(t testing.TB) string {
	t.Helper()
	return testenv.SevenZip(t)
}

// testData generators.
func textData(n int) []byte {
	words := strings.Fields(`the quick brown fox jumps over the lazy dog PPMd variant H models text by
		predicting each byte from the bytes before it using contexts of several orders with escape
		to shorter contexts when a symbol was never seen in the longer ones func return if else for range`)
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(9) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

func randomData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// mixedData mixes runs, text, random and structured binary to exercise
// binary contexts, escapes, rescaling and model restarts.
func mixedData(n int) []byte {
	r := rand.New(rand.NewPCG(7, 8))
	var b bytes.Buffer
	txt := textData(1 << 16)
	for b.Len() < n {
		switch r.IntN(5) {
		case 0:
			b.Write(bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(3000)))
		case 1:
			o := r.IntN(len(txt) - 5000)
			b.Write(txt[o : o+r.IntN(5000)])
		case 2:
			b.Write(randomData(r.IntN(2000), r.Uint64()))
		case 3:
			for i := r.IntN(1000); i > 0; i-- {
				b.Write([]byte{byte(i), byte(i >> 8), 0, 0})
			}
		case 4:
			for i := 0; i < 256; i++ {
				b.WriteByte(byte(i))
			}
		}
	}
	return b.Bytes()[:n]
}

type case7z struct {
	name   string
	method string // 7zz -m0= value
	data   []byte
}

var (
	casesOnce sync.Once
	cases     []case7z
)

func testCases() []case7z {
	casesOnce.Do(func() {
		cases = []case7z{
			{"text-o6-16m", "PPMd:o=6:mem=16m", textData(400_000)},
			{"mixed-o6-16m", "PPMd:o=6:mem=16m", mixedData(600_000)},
			{"mixed-o2-64k-restarts", "PPMd:o=2:mem=64k", mixedData(300_000)},
			{"mixed-o16-1m-restarts", "PPMd:o=16:mem=1m", mixedData(1_500_000)},
			{"mixed-o32-64k-restarts", "PPMd:o=32:mem=64k", mixedData(400_000)},
			{"text-o24-64k-restarts", "PPMd:o=24:mem=64k", textData(400_000)},
			{"text-o32-1m-restarts", "PPMd:o=32:mem=1m", textData(2_000_000)},
			{"mixed-o32-4m", "PPMd:o=32:mem=4m", mixedData(800_000)},
			{"random-o8-2m", "PPMd:o=8:mem=2m", randomData(300_000, 3)},
			{"zeros-o4-1m", "PPMd:o=4:mem=1m", make([]byte, 1_000_000)},
			{"one-byte", "PPMd:o=6:mem=1m", []byte{'x'}},
			{"short", "PPMd:o=3:mem=1m", []byte("abracadabra abracadabra")},
		}
	})
	return cases
}

// make7z compresses data with 7zz and returns the single PPMd folder.
func make7z(t testing.TB, c case7z) ppmdFolder {
	t.Helper()
	bin := sevenZip(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(in, c.data, 0o644); err != nil {
		t.Fatal(err)
	}
	arc := filepath.Join(dir, "a.7z")
	cmd := exec.Command(bin, "a", "-t7z", "-m0="+c.method, "-mhc=off", "-mf=off", "-bd", arc, in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, out)
	}
	fs, err := ppmdFolders(arc)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("got %d PPMd folders, want 1", len(fs))
	}
	if got := fs[0].folder.unpackSize(); got != uint64(len(c.data)) {
		t.Fatalf("folder size %d, want %d", got, len(c.data))
	}
	return fs[0]
}

// readChunks reads r to the end with reads of the given size.
func readChunks(r io.Reader, chunk int) ([]byte, error) {
	var out []byte
	buf := make([]byte, chunk)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n == 0 && chunk > 0 {
			return out, errors.New("Read returned 0, nil")
		}
	}
}

func TestReader7zRoundTrip(t *testing.T) {
	sevenZip(t)
	shared := &Reader7z{} // reused across cases: arena reuse with stale contents
	for _, c := range testCases() {
		t.Run(c.name, func(t *testing.T) {
			f := make7z(t, c)
			size := int64(len(c.data))

			d, err := NewReader7z(bytes.NewReader(f.packed), f.order, f.memSize, size)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(d)
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if !bytes.Equal(got, c.data) {
				t.Fatalf("decoded %d bytes differ from the %d original", len(got), len(c.data))
			}

			// 1-byte output reads on a one-byte-at-a-time input.
			if len(c.data) <= 600_000 {
				if err := d.Reset(iotest.OneByteReader(bytes.NewReader(f.packed)), f.order, f.memSize, size); err != nil {
					t.Fatal(err)
				}
				got, err = readChunks(d, 1)
				if err != nil || !bytes.Equal(got, c.data) {
					t.Fatalf("1-byte reads: err=%v equal=%v", err, bytes.Equal(got, c.data))
				}
			}

			// Odd-sized reads with a shared, reused decoder.
			if err := shared.Reset(bytes.NewReader(f.packed), f.order, f.memSize, size); err != nil {
				t.Fatal(err)
			}
			got, err = readChunks(shared, 4093)
			if err != nil || !bytes.Equal(got, c.data) {
				t.Fatalf("reused decoder: err=%v equal=%v", err, bytes.Equal(got, c.data))
			}
			if n, err := shared.Read(make([]byte, 10)); n != 0 || err != io.EOF {
				t.Fatalf("read after end: %d, %v", n, err)
			}
		})
	}
}

// TestReader7zShortSize decodes a prefix: fewer bytes than were coded must
// not be mistaken for a clean end.
func TestReader7zWrongSize(t *testing.T) {
	c := testCases()[0]
	f := make7z(t, c)
	d, err := NewReader7z(bytes.NewReader(f.packed), f.order, f.memSize, int64(len(c.data))-10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(d)
	if !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("short size: err = %v, want ErrFormat", err)
	}
	if !bytes.Equal(got, c.data[:len(got)]) {
		t.Fatal("prefix differs")
	}
	d.Reset(bytes.NewReader(f.packed), f.order, f.memSize, int64(len(c.data))+10)
	if _, err := io.ReadAll(d); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("long size: err = %v, want ErrFormat", err)
	}
}

func TestReader7zCorrupt(t *testing.T) {
	c := testCases()[1]
	f := make7z(t, c)
	size := int64(len(c.data))
	d := &Reader7z{}
	r := rand.New(rand.NewPCG(5, 6))
	failures := 0
	for trial := 0; trial < 60; trial++ {
		bad := bytes.Clone(f.packed)
		switch trial % 3 {
		case 0: // flip bytes
			for k := 0; k < 1+r.IntN(4); k++ {
				bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
			}
		case 1: // truncate
			bad = bad[:r.IntN(len(bad))]
		case 2: // garbage tail after a valid prefix
			o := r.IntN(len(bad))
			copy(bad[o:], randomData(len(bad)-o, uint64(trial)))
		}
		if err := d.Reset(bytes.NewReader(bad), f.order, f.memSize, size); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil {
			if !errors.Is(err, archive.ErrFormat) {
				t.Fatalf("trial %d: error %v does not wrap ErrFormat", trial, err)
			}
			failures++
		} else if !bytes.Equal(got, c.data) {
			t.Fatalf("trial %d: corrupt stream decoded to wrong data without error", trial)
		}
	}
	if failures == 0 {
		t.Fatal("no corruption was detected")
	}
}

func TestInitParams(t *testing.T) {
	m := NewModel()
	for _, tc := range []struct {
		order int
		mem   uint32
		ok    bool
	}{
		{2, MinMemSize, true},
		{64, 1 << 20, true},
		{1, 1 << 20, false},
		{65, 1 << 20, false},
		{6, MinMemSize - 1, false},
		{6, 0xFFFFFFFF, false},
	} {
		err := m.Init(tc.order, tc.mem)
		if (err == nil) != tc.ok {
			t.Errorf("Init(%d, %d) = %v, want ok=%v", tc.order, tc.mem, err, tc.ok)
		}
		if err != nil && !errors.Is(err, archive.ErrFormat) {
			t.Errorf("Init(%d, %d) error %v does not wrap ErrFormat", tc.order, tc.mem, err)
		}
	}
	// The arena grows only when needed.
	if err := m.Init(6, 1<<20); err != nil {
		t.Fatal(err)
	}
	p := &m.mem[:1][0]
	if err := m.Init(6, 1<<16); err != nil {
		t.Fatal(err)
	}
	if &m.mem[:1][0] != p || len(m.mem) != 1<<16 {
		t.Fatal("smaller Init reallocated the arena")
	}
	if err := m.Init(6, 1<<20); err != nil {
		t.Fatal(err)
	}
	if &m.mem[:1][0] != p {
		t.Fatal("Init within capacity reallocated the arena")
	}
}

func TestParseProps7z(t *testing.T) {
	o, mem, err := ParseProps7z([]byte{6, 0, 0, 0, 1})
	if err != nil || o != 6 || mem != 1<<24 {
		t.Fatalf("got %d %d %v", o, mem, err)
	}
	for _, p := range [][]byte{nil, {6, 0, 0, 0}, {1, 0, 0, 0, 1}, {65, 0, 0, 0, 1}, {6, 0, 1, 0, 0}} {
		if _, _, err := ParseProps7z(p); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("ParseProps7z(%x) = %v, want ErrFormat", p, err)
		}
	}
}

func TestTables(t *testing.T) {
	if indx2Units[numIndexes-1] != 128 {
		t.Fatalf("largest class %d units, want 128", indx2Units[numIndexes-1])
	}
	for n := uint32(1); n <= 128; n++ {
		i := u2i(n)
		if i2u(i) < n || (i > 0 && i2u(i-1) >= n) {
			t.Fatalf("u2i(%d) = %d does not pick the smallest fitting class", n, i)
		}
	}
	if ns2Indx[255] != 24 {
		t.Fatalf("ns2Indx[255] = %d, want 24 (25 SEE rows)", ns2Indx[255])
	}
	if hiBitsFlag3(0x3F) != 0 || hiBitsFlag3(0x40) != 8 || hiBitsFlag4(0xFF) != 16 || hiBitsFlag4(0) != 0 {
		t.Fatal("hiBitsFlag")
	}
}

// crcCheck compares the CRCs of the substreams of a decoded folder.
func crcCheck(t *testing.T, f ppmdFolder, got []byte) {
	t.Helper()
	if len(f.folder.subSizes) == 0 {
		if f.folder.crcDefined && crc32.ChecksumIEEE(got) != f.folder.crc {
			t.Fatal("folder CRC mismatch")
		}
		return
	}
	off := uint64(0)
	for i, s := range f.folder.subSizes {
		if off+s > uint64(len(got)) {
			t.Fatalf("substream %d beyond the data", i)
		}
		if i < len(f.folder.subCRCDefs) && f.folder.subCRCDefs[i] {
			if crc32.ChecksumIEEE(got[off:off+s]) != f.folder.subCRCs[i] {
				t.Fatalf("substream %d CRC mismatch", i)
			}
		}
		off += s
	}
}

func TestRARDecoderState(t *testing.T) {
	var d RARDecoder
	if _, err := d.DecodeSymbol(); !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("DecodeSymbol before Init: %v", err)
	}
	m := NewModel()
	if err := d.Init(m, bytes.NewReader(make([]byte, 16))); !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("Init with a fresh model: %v", err)
	}
	if err := m.Init(4, 1<<20); err != nil {
		t.Fatal(err)
	}
	// All-0xFF input: the code register cannot be 0xFFFFFFFF.
	if err := d.Init(m, bytes.NewReader(bytes.Repeat([]byte{0xFF}, 8))); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("Init on 0xFF bytes: %v", err)
	}
	// Random input decodes to something or fails with ErrFormat; after a
	// failure the model refuses to go on until it is initialised again.
	if err := d.Init(m, bytes.NewReader(randomData(64, 9))); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; i < 1<<16 && err == nil; i++ {
		_, err = d.DecodeSymbol()
	}
	if !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("random input: %v, want ErrFormat once the input is used up", err)
	}
	if _, err := d.DecodeSymbol(); !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("DecodeSymbol after an error: %v", err)
	}
	if err := d.Init(m, bytes.NewReader(randomData(64, 9))); !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("Init after an error without Model.Init: %v", err)
	}
}

// TestPanicSafetyNet breaks the model on purpose and checks that the API
// reports ErrCorrupt instead of crashing.
func TestPanicSafetyNet(t *testing.T) {
	m := NewModel()
	if err := m.Init(6, 1<<16); err != nil {
		t.Fatal(err)
	}
	var d RARDecoder
	if err := d.Init(m, bytes.NewReader(randomData(64, 1))); err != nil {
		t.Fatal(err)
	}
	m.minContext = m.size - 2 // a record running off the arena
	var fault *modelFault
	if _, err := d.DecodeSymbol(); !errors.Is(err, ErrCorrupt) || !errors.As(err, &fault) {
		t.Fatalf("broken RAR model: %v, want a model fault wrapping ErrCorrupt", err)
	}

	c := testCases()[len(testCases())-1]
	f := make7z(t, c)
	r, err := NewReader7z(bytes.NewReader(f.packed), f.order, f.memSize, int64(len(c.data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	r.m.minContext = r.m.size - 2
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, ErrCorrupt) || !errors.As(err, &fault) {
		t.Fatalf("broken 7z model: %v, want a model fault wrapping ErrCorrupt", err)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error is not sticky: %v", err)
	}
}

// TestCorruptInputOffset checks that a truncated or damaged 7z PPMd stream
// gives a CorruptInputError at the input offset.
func TestCorruptInputOffset(t *testing.T) {
	c := testCases()[len(testCases())-1]
	f := make7z(t, c)
	half := len(f.packed) / 2
	r, err := NewReader7z(bytes.NewReader(f.packed[:half]), f.order, f.memSize, int64(len(c.data)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, r)
	var ce *CorruptInputError
	if !errors.As(err, &ce) || !errors.Is(err, ErrTruncated) || !errors.Is(err, archive.ErrFormat) || ce.Offset != int64(half) {
		t.Fatalf("truncated to %d: %v, want a CorruptInputError wrapping ErrTruncated at %d", half, err, half)
	}
	bad := bytes.Clone(f.packed)
	bad[0] = 1 // the 7z range coder starts with a zero byte
	r, err = NewReader7z(bytes.NewReader(bad), f.order, f.memSize, int64(len(c.data)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, r)
	if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || ce.Offset != 5 {
		t.Fatalf("bad first byte: %v, want a CorruptInputError wrapping ErrCorrupt at 5", err)
	}
}

// TestHugePagesAdvice checks when Reader7z asks for huge pages: for a
// stream of unknown size, one of at least 1/16 of the arena or one of at
// least 1 MiB (an mx9 arena of 192 MiB), not for a small stream in a large
// arena (clearing whole 2 MiB pages would cost more than it saves), and
// again once a later stream is large enough.
func TestHugePagesAdvice(t *testing.T) {
	const mem = 16 << 20
	tests := []struct {
		mem   uint32
		sizes []int64 // streams decoded in turn with one reader
		want  bool
	}{
		{mem, []int64{-1}, true},
		{mem, []int64{mem / 16}, true},
		{mem, []int64{60 << 10}, false},
		{mem, []int64{60 << 10, mem}, true},
		{192 << 20, []int64{3 << 20}, true},
		{192 << 20, []int64{1 << 20}, true},
		{192 << 20, []int64{1<<20 - 1}, false},
	}
	for _, tc := range tests {
		d := &Reader7z{}
		for _, size := range tc.sizes {
			if err := d.Reset(bytes.NewReader(nil), 6, tc.mem, size); err != nil {
				t.Fatal(err)
			}
		}
		if d.m.hugePages != tc.want {
			t.Errorf("sizes %v: hugePages %v, want %v", tc.sizes, d.m.hugePages, tc.want)
		}
	}
}
