package filters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// converterMethod describes one 7z filter for the tests.
type converterMethod struct {
	name  string // 7zz -m0 value
	id    []byte // 7z method ID
	mk    func(encode bool) Converter
	plant func(rng *rand.Rand, buf []byte) // plants instructions the filter converts
}

var converterMethods = []converterMethod{
	{"BCJ", []byte{3, 3, 1, 3}, NewX86, plantX86},
	{"ARM", []byte{3, 3, 5, 1}, branchOf(ArchARM), plantARM},
	{"ARMT", []byte{3, 3, 7, 1}, branchOf(ArchARMT), plantARMT},
	{"ARM64", []byte{0xA}, func(e bool) Converter { return NewARM64(e, 0) }, plantARM64},
	{"PPC", []byte{3, 3, 2, 5}, branchOf(ArchPPC), plantPPC},
	{"SPARC", []byte{3, 3, 8, 5}, branchOf(ArchSPARC), plantSPARC},
	{"IA64", []byte{3, 3, 4, 1}, branchOf(ArchIA64), plantIA64},
	{"RISCV", []byte{0xB}, branchOf(ArchRISCV), plantRISCV},
	{"Delta:1", []byte{3}, func(e bool) Converter { return NewDelta(e, 1) }, plantNothing},
	{"Delta:4", []byte{3}, func(e bool) Converter { return NewDelta(e, 4) }, plantNothing},
	{"Delta:256", []byte{3}, func(e bool) Converter { return NewDelta(e, 256) }, plantNothing},
}

func plantNothing(*rand.Rand, []byte) {}

// branchOf returns a constructor of arch's converter at start offset 0.
func branchOf(arch Arch) func(encode bool) Converter {
	return func(encode bool) Converter { return NewBranch(arch, encode, 0) }
}

func plantX86(rng *rand.Rand, buf []byte) {
	for i := 0; i+8 < len(buf); i += 1 + rng.Intn(24) {
		switch rng.Intn(5) {
		case 0, 1:
			buf[i] = 0xE8 + byte(rng.Intn(2))
			buf[i+4] = []byte{0, 0xFF}[rng.Intn(2)]
		case 2: // runs of opcode bytes exercise the previous-byte mask
			for k := 0; k < 1+rng.Intn(5); k++ {
				buf[i+k] = 0xE8 + byte(rng.Intn(2))
			}
		case 3:
			buf[i] = 0x0F
			buf[i+1] = 0x80 + byte(rng.Intn(16))
			buf[i+5] = []byte{0, 0xFF}[rng.Intn(2)]
		}
	}
}

func plantARM(rng *rand.Rand, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 * (1 + rng.Intn(4)) {
		buf[i+3] = 0xEB
	}
}

func plantARMT(rng *rand.Rand, buf []byte) {
	for i := 2 * rng.Intn(2); i+4 <= len(buf); i += 2 * (1 + rng.Intn(6)) {
		buf[i+1] = 0xF0 | byte(rng.Intn(8))
		buf[i+3] = 0xF8 | byte(rng.Intn(8))
	}
}

func plantARM64(rng *rand.Rand, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 * (1 + rng.Intn(4)) {
		v := rng.Uint32()
		if rng.Intn(2) == 0 {
			v = 0x94000000 | v&0x03FFFFFF // BL
		} else {
			// ADRP, with immhi sometimes in the converted range
			v = 0x90000000 | v&0x60FFFFFF
			if rng.Intn(3) != 0 {
				hi := uint32(rng.Intn(1<<16)) - 1<<15
				v = v&^0x00FFFFE0 | (hi<<5)&0x00FFFFE0
			}
		}
		binary.LittleEndian.PutUint32(buf[i:], v)
	}
}

func plantPPC(rng *rand.Rand, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 * (1 + rng.Intn(4)) {
		binary.BigEndian.PutUint32(buf[i:], 0x48000001|rng.Uint32()&0x03FFFFFC)
	}
}

func plantSPARC(rng *rand.Rand, buf []byte) {
	for i := 0; i+4 <= len(buf); i += 4 * (1 + rng.Intn(4)) {
		if rng.Intn(2) == 0 {
			buf[i], buf[i+1] = 0x40, byte(rng.Intn(0x40))
		} else {
			buf[i], buf[i+1] = 0x7F, 0xC0|byte(rng.Intn(0x40))
		}
	}
}

func plantIA64(rng *rand.Rand, buf []byte) {
	templates := []byte{0x10, 0x11, 0x12, 0x13, 0x16, 0x17, 0x18, 0x19, 0x1C, 0x1D}
	for i := 0; i+16 <= len(buf); i += 16 {
		if rng.Intn(3) == 0 {
			continue
		}
		buf[i] = buf[i]&0xE0 | templates[rng.Intn(len(templates))]
		for m := uint(2); m <= 4; m++ {
			if rng.Intn(4) == 0 {
				continue
			}
			p := i + int(m)*5 - 8
			buf[p+3] = buf[p+3]&^(15<<m) | 5<<m
			w := uint32(buf[p-1]) | uint32(buf[p])<<8
			w &^= 0x70 << m
			buf[p-1], buf[p] = byte(w), byte(w>>8)
		}
	}
}

func plantRISCV(rng *rand.Rand, buf []byte) {
	put := func(i int, v uint32) {
		if i+4 <= len(buf) {
			binary.LittleEndian.PutUint32(buf[i:], v)
		}
	}
	for i := 0; i+8 <= len(buf); i += 2 * (1 + rng.Intn(8)) {
		r := rng.Uint32()
		switch rng.Intn(6) {
		case 0: // JAL ra / t0
			rd := []uint32{1, 5, 0, 3}[rng.Intn(4)]
			put(i, r&0xFFFFF000|rd<<7|0x6F)
		case 1, 2: // AUIPC rd + instruction using rd
			rd := uint32(rng.Intn(32))
			put(i, r&0xFFFFF000|rd<<7|0x17)
			rs1 := rd
			if rng.Intn(4) == 0 {
				rs1 = uint32(rng.Intn(32))
			}
			put(i+4, rng.Uint32()&0xFFF00000|rs1<<15|uint32(rng.Intn(8))<<12|uint32(rng.Intn(32))<<7|[]uint32{0x13, 0x67, 0x03, 0x23}[rng.Intn(4)])
			i += 6
		case 3: // AUIPC x2 shaped like an encoded pair
			put(i, r&0xF8000000|r&0x07FFC000|0x3000|2<<7|0x17)
		case 4: // AUIPC x0
			put(i, r&0xFFFFF000|0x17)
		}
	}
}

// testInputs returns named inputs for a method: random data with planted
// instructions, and real x86-64 code.
func testInputs(t testing.TB, m converterMethod) map[string][]byte {
	rng := rand.New(rand.NewSource(int64(len(m.name)) * 7919))
	in := map[string][]byte{}
	for _, n := range []int{0, 1, 3, 7, 15, 16, 17, 100, 4099, 200 << 10} {
		b := make([]byte, n)
		rng.Read(b)
		m.plant(rng, b)
		in[fmt.Sprintf("planted-%d", n)] = b
	}
	smooth := make([]byte, 70000)
	for i := range smooth {
		smooth[i] = byte(i/7 + i%3)
	}
	in["smooth"] = smooth
	if code := goBinary(t, 1<<20); code != nil {
		in["go-binary"] = code
	}
	return in
}

// goBinary returns up to n bytes of the gofmt binary of GOROOT/bin, real
// x86-64 (or native) machine code.
func goBinary(t testing.TB, n int) []byte { return testenv.GoBinary(t, "gofmt", n) }

// convertAll runs data through c with writes of random sizes.
func convertAll(t testing.TB, c Converter, data []byte, rng *rand.Rand) []byte {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, c)
	for rest := data; len(rest) > 0; {
		k := 1 + rng.Intn(min(len(rest), 1+rng.Intn(100000)))
		if _, err := w.Write(rest[:k]); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// oddReader returns data in pieces of random size, sometimes empty.
type oddReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (r *oddReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), len(r.data), r.rng.Intn(r.max+1))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// readAllOdd decodes through NewReader with random read sizes on both sides.
func readAllOdd(t testing.TB, c Converter, data []byte, rng *rand.Rand, maxRead int) []byte {
	t.Helper()
	r := NewReader(&oddReader{data: data, rng: rng, max: maxRead}, c)
	var out []byte
	buf := make([]byte, 70000)
	for {
		n, err := r.Read(buf[:1+rng.Intn(len(buf))])
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// convertWhole converts data in one call plus the tail handling.
func convertWhole(c Converter, data []byte) []byte {
	b := bytes.Clone(data)
	for p := 0; p < len(b); {
		n := c.Convert(b[p:])
		if n == 0 {
			break
		}
		p += n
	}
	return b
}

func TestConverterRoundTrip(t *testing.T) {
	for _, m := range converterMethods {
		t.Run(m.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			for name, data := range testInputs(t, m) {
				enc := convertAll(t, m.mk(true), data, rng)
				if len(enc) != len(data) {
					t.Fatalf("%s: encoded %d bytes of %d", name, len(enc), len(data))
				}
				whole := convertWhole(m.mk(true), data)
				if !bytes.Equal(enc, whole) {
					t.Fatalf("%s: chunked encoding differs from whole-buffer encoding", name)
				}
				if len(data) > 1000 && name != "smooth" && !strings.HasPrefix(m.name, "Delta") && bytes.Equal(enc, data) {
					t.Fatalf("%s: encoding changed nothing", name)
				}
				dec := readAllOdd(t, m.mk(false), enc, rng, 5000)
				if !bytes.Equal(dec, data) {
					t.Fatalf("%s: decode(encode(x)) != x", name)
				}
				dec1 := readAllOdd(t, m.mk(false), enc, rng, 1)
				if !bytes.Equal(dec1, data) {
					t.Fatalf("%s: decoding with 1-byte input reads differs", name)
				}
			}
		})
	}
}

// TestOneByteReads reads a decoded stream one byte per call.
func TestOneByteReads(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	data := make([]byte, 3000)
	rng.Read(data)
	plantX86(rng, data)
	enc := convertWhole(NewX86(true), data)
	r := NewReader(bytes.NewReader(enc), NewX86(false))
	var out []byte
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		out = append(out, b[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("Read returned %d bytes without error", n)
		}
	}
	if !bytes.Equal(out, data) {
		t.Fatal("1-byte reads: wrong output")
	}
}

func TestReset(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, m := range converterMethods {
		data := make([]byte, 10000)
		rng.Read(data)
		m.plant(rng, data)
		c := m.mk(true)
		first := convertWhole(c, data)
		c.Reset()
		if second := convertWhole(c, data); !bytes.Equal(first, second) {
			t.Errorf("%s: output after Reset differs", m.name)
		}
	}
}

func TestStartOffset(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	data := make([]byte, 5000)
	rng.Read(data)
	plantARM64(rng, data)
	// A converter started at offset s treats data as if it followed s
	// bytes: its output equals the tail of a conversion from 0.
	prefix := make([]byte, 4096)
	all := convertWhole(NewARM64(true, 0), append(bytes.Clone(prefix), data...))
	at := convertWhole(NewARM64(true, 4096), data)
	if !bytes.Equal(all[4096:], at) {
		t.Error("ARM64 start offset: mismatch")
	}
	plantRISCV(rng, data)
	all = convertWhole(NewBranch(ArchRISCV, true, 0), append(bytes.Clone(prefix), data...))
	at = convertWhole(NewBranch(ArchRISCV, true, 4096), data)
	if !bytes.Equal(all[4096:], at) {
		t.Error("RISCV start offset: mismatch")
	}
	if s, ok := ParseStartOffset(ArchARM64, []byte{0, 0x10, 0, 0}); !ok || s != 4096 {
		t.Errorf("ParseStartOffset = %d, %v", s, ok)
	}
	if _, ok := ParseStartOffset(ArchARM64, []byte{2, 0, 0, 0}); ok {
		t.Error("misaligned ARM64 offset accepted")
	}
	if _, ok := ParseStartOffset(ArchRISCV, []byte{2, 0, 0}); ok {
		t.Error("3-byte props accepted")
	}
	if NewBranch(Arch(99), false, 0) != nil {
		t.Error("unknown arch gave a converter")
	}
}

// Test7zzKnownAnswers compares encoding with 7-Zip's and decodes 7-Zip's
// output, for every filter and input.
func Test7zzKnownAnswers(t *testing.T) {
	need7zz(t)
	for _, m := range converterMethods {
		t.Run(m.name, func(t *testing.T) {
			inputs := testInputs(t, m)
			for name, data := range inputs {
				if len(data) == 0 || (name != "go-binary" && name != "planted-200" && len(data) < 4000 && name != "planted-17") {
					continue
				}
				checkAgainst7zz(t, m, name, data)
			}
		})
	}
}

func checkAgainst7zz(t *testing.T, m converterMethod, name string, data []byte) {
	t.Helper()
	arc := make7z(t, data, "-m0="+m.name, "-m1=Copy")
	streams, err := folderStreams(arc, m.id)
	if err != nil || len(streams) != 1 {
		t.Fatalf("%s: cannot find the filtered stream: %v", name, err)
	}
	want := streams[0]
	got := convertWhole(m.mk(true), data)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: encoding differs from 7-Zip's at byte %d", name, firstDiff(got, want))
	}
	dec := readAllOdd(t, m.mk(false), want, rand.New(rand.NewSource(5)), 3000)
	if !bytes.Equal(dec, data) {
		t.Fatalf("%s: decoding 7-Zip's stream differs at byte %d", name, firstDiff(dec, data))
	}
}

func firstDiff(a, b []byte) int {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCorpusBinaries extracts real machine code from the shared corpus
// with 7zz and checks our converters against 7-Zip on it.
func TestCorpusBinaries(t *testing.T) {
	need7zz(t)
	root := filepath.Join(testenv.CorpusRoot(t), "files")
	cases := []struct {
		unit, file, method string
	}{
		{"sevenzip/arm64.7z", "arm64", "ARM64"},
		{"libarchive/test_read_format_7zip_lzma2_riscv.7z", "hw-riscv64", "RISCV"},
		{"sharpcompress/Archives__7Zip.Filters.7z", "exe/test.exe", "BCJ"},
		{"libarchive/test_read_format_7zip_lzma2_arm.7z", "", "ARM"},
		{"libarchive/test_read_format_7zip_lzma2_powerpc.7z", "", "PPC"},
		{"libarchive/test_read_format_7zip_lzma2_sparc.7z", "", "SPARC"},
		{"libarchive/test_read_format_7zip_deflate_arm64.7z", "", "ARM64"},
	}
	for _, c := range cases {
		path := filepath.Join(root, c.unit)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s missing from corpus", c.unit)
			continue
		}
		args := []string{"x", "-so", path}
		if c.file != "" {
			args = append(args, c.file)
		}
		data, err := exec.Command(need7zz(t), args...).Output()
		if err != nil || len(data) == 0 {
			t.Errorf("%s: 7zz extract: %v", c.unit, err)
			continue
		}
		for _, m := range converterMethods {
			if m.name == c.method {
				checkAgainst7zz(t, m, c.unit, data)
			}
		}
	}
}

func TestReaderAllocs(t *testing.T) {
	data := make([]byte, 1<<16)
	src := bytes.NewReader(data)
	r := NewReader(src, NewX86(false)).(*Reader)
	buf := make([]byte, 1000)
	allocs := testing.AllocsPerRun(20, func() {
		src.Reset(data)
		r.Reset(src)
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Reader allocates %v times per stream", allocs)
	}
}

// TestConvertContract checks the promise of Converter.Convert: the bytes it
// leaves unprocessed are fewer than 16, and it never reports more than it
// was given.
func TestConvertContract(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for _, m := range converterMethods {
		for _, encode := range []bool{false, true} {
			c := m.mk(encode)
			for n := 0; n < 300; n++ {
				buf := make([]byte, n)
				rng.Read(buf)
				m.plant(rng, buf)
				c.Reset()
				got := c.Convert(buf)
				if got < 0 || got > n || n-got >= 16 && n >= 16 {
					t.Fatalf("%s encode=%v: Convert of %d bytes returned %d", m.name, encode, n, got)
				}
			}
		}
	}
}

// TestOneByteWrites encodes through the Writer one byte per call.
func TestOneByteWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, m := range converterMethods {
		data := make([]byte, 2000)
		rng.Read(data)
		m.plant(rng, data)
		var out bytes.Buffer
		w := NewWriter(&out, m.mk(true))
		for i := range data {
			if n, err := w.Write(data[i : i+1]); n != 1 || err != nil {
				t.Fatalf("%s: Write = %d, %v", m.name, n, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if want := convertWhole(m.mk(true), data); !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%s: 1-byte writes encode differently", m.name)
		}
		if _, err := w.Write([]byte{1}); err == nil {
			t.Fatalf("%s: Write after Close succeeded", m.name)
		}
	}
}

// Test7zzStartOffset checks the ARM64 and RISCV start offsets against 7-Zip,
// including the properties 7-Zip writes for them.
func Test7zzStartOffset(t *testing.T) {
	need7zz(t)
	rng := rand.New(rand.NewSource(8))
	for _, c := range []struct {
		arch   Arch
		method string
		start  uint32
		plant  func(*rand.Rand, []byte)
		id     byte
	}{
		{ArchARM64, "ARM64:4096", 4096, plantARM64, 0xA},
		{ArchARM64, "ARM64:12345676", 12345676, plantARM64, 0xA},
		{ArchRISCV, "RISCV:8190", 8190, plantRISCV, 0xB},
	} {
		data := make([]byte, 100000)
		rng.Read(data)
		c.plant(rng, data)
		arc := make7z(t, data, "-m0="+c.method, "-m1=Copy")
		streams, props, err := folderCoder(arc, []byte{c.id})
		if err != nil {
			t.Fatal(err)
		}
		start, ok := ParseStartOffset(c.arch, props)
		if !ok || start != c.start {
			t.Fatalf("%s: properties %x parse to %d, %v", c.method, props, start, ok)
		}
		if got := convertWhole(NewBranch(c.arch, true, start), data); !bytes.Equal(got, streams[0]) {
			t.Fatalf("%s: encoding differs from 7-Zip's at %d", c.method, firstDiff(got, streams[0]))
		}
		if got := convertWhole(NewBranch(c.arch, false, start), streams[0]); !bytes.Equal(got, data) {
			t.Fatalf("%s: decoding differs at %d", c.method, firstDiff(got, data))
		}
	}
}
