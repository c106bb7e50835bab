package ppmd

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// benchInput returns size bytes of the standard benchmark data
// (testenv.MixedData).
func benchInput(b *testing.B, size int) []byte {
	b.Helper()
	return testenv.MixedData(b, size)
}

var benchFolders = map[string]ppmdFolder{}

func benchFolder(b *testing.B, name, method string, data func() []byte) (ppmdFolder, int64) {
	f, ok := benchFolders[name]
	if !ok {
		d := data()
		f = make7z(b, case7z{name: name, method: method, data: d})
		benchFolders[name] = f
	}
	return f, int64(f.folder.unpackSize())
}

func benchmarkReader7z(b *testing.B, name, method string, data func() []byte, chunk int) {
	f, size := benchFolder(b, name, method, data)
	d := &Reader7z{}
	buf := make([]byte, chunk)
	br := bytes.NewReader(f.packed)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	defer cpu.Report(b, size)
	for i := 0; i < b.N; i++ {
		br.Reset(f.packed)
		if err := d.Reset(br, f.order, f.memSize, size); err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for {
			k, err := d.Read(buf)
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if n != size {
			b.Fatalf("%d bytes, want %d", n, size)
		}
	}
}

func BenchmarkReader7z(b *testing.B) {
	mixed := func() []byte { return benchInput(b, 4<<20) }
	text := func() []byte { return textData(4 << 20) }
	b.Run("mixed-o6-16m", func(b *testing.B) { benchmarkReader7z(b, "mixed-o6", "PPMd:o=6:mem=16m", mixed, 1<<16) })
	b.Run("text-o6-16m", func(b *testing.B) { benchmarkReader7z(b, "text-o6", "PPMd:o=6:mem=16m", text, 1<<16) })
	numbers := func() []byte { return numbersData(4 << 20) }
	logs := func() []byte { return logData(4 << 20) }
	b.Run("numbers-o6-16m", func(b *testing.B) { benchmarkReader7z(b, "numbers-o6", "PPMd:o=6:mem=16m", numbers, 1<<16) })
	b.Run("logs-o6-16m", func(b *testing.B) { benchmarkReader7z(b, "logs-o6", "PPMd:o=6:mem=16m", logs, 1<<16) })
	// Long runs of one byte (the runs class): nearly every symbol is the
	// binary context's, at the maximum order, all in the cache.
	runs := func() []byte { return runsData(4 << 20) }
	b.Run("runs-o6-16m", func(b *testing.B) { benchmarkReader7z(b, "runs-o6", "PPMd:o=6:mem=16m", runs, 1<<16) })
	// Random bytes (the random class): every symbol escapes down to a
	// context of (nearly) all 256 symbols, the masked-symbol path.
	random := func() []byte { return randomData(4<<20, 27) }
	b.Run("random-o6-16m", func(b *testing.B) { benchmarkReader7z(b, "random-o6", "PPMd:o=6:mem=16m", random, 1<<16) })
	b.Run("mixed-o32-64m", func(b *testing.B) { benchmarkReader7z(b, "mixed-o32", "PPMd:o=32:mem=64m", mixed, 1<<16) })
	b.Run("mixed-o6-16m-1byte", func(b *testing.B) { benchmarkReader7z(b, "mixed-o6", "PPMd:o=6:mem=16m", mixed, 1) })
}

// BenchmarkRARDecoder decodes the corpus's PPM-only RAR files symbol by
// symbol through DecodeSymbol.
func BenchmarkRARDecoder(b *testing.B) {
	root, units := corpusUnits(b)
	var files []rarFile
	total := int64(0)
	for _, u := range units {
		if u.Format != "rar4" || u.Kind != "single" || !hasPPMd(&u) || u.Expect != "ok" {
			continue
		}
		data, err := os.ReadFile(u.Path(root))
		if err != nil {
			b.Fatal(err)
		}
		fs, _ := rar4Files(data)
		for _, f := range fs {
			if f.unpVer != 29 || f.method == 0x30 || f.flags&0x07 != 0 || f.unpSize < 1000 {
				continue
			}
			if out, err := decodeRARPPM(&f, &rarPPMStream{m: NewModel()}, false); err == nil && uint64(len(out)) == f.unpSize {
				files = append(files, f)
				total += int64(f.unpSize)
			}
		}
	}
	if len(files) == 0 {
		b.Fatal("no PPM RAR files in the corpus")
	}
	st := &rarPPMStream{m: NewModel()}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	defer cpu.Report(b, total)
	for i := 0; i < b.N; i++ {
		for k := range files {
			if _, err := decodeRARPPM(&files[k], st, false); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestReader7zAllocs(t *testing.T) {
	c := testCases()[0]
	f := make7z(t, c)
	d := &Reader7z{}
	buf := make([]byte, 1<<12)
	br := bytes.NewReader(f.packed)
	run := func() {
		br.Reset(f.packed)
		if err := d.Reset(br, f.order, f.memSize, int64(len(c.data))); err != nil {
			t.Fatal(err)
		}
		for {
			_, err := d.Read(buf)
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	run() // allocate the arena and input buffer
	if n := testing.AllocsPerRun(3, run); n != 0 {
		t.Fatalf("%v allocations per reused decode, want 0", n)
	}
}

func benchmarkWriter7z(b *testing.B, data []byte, order int, memSize uint32) {
	z, err := NewWriter7z(io.Discard, order, memSize)
	if err != nil {
		b.Fatal(err)
	}
	size := int64(len(data))
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	defer cpu.Report(b, size)
	for i := 0; i < b.N; i++ {
		z.Reset(io.Discard)
		if _, err := z.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := z.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(z.Written())/float64(size), "ratio")
}

// exactInput returns `mixed-data size`, the standard benchmark input, byte
// for byte what the tool gives 7zz for comparisons.
func exactInput(b *testing.B, size int) []byte {
	b.Helper()
	return testenv.MixedData(b, size)
}

// BenchmarkWriter7z encodes 4 MiB of the standard mixed data
// (`mixed-data 4194304`) and of text with 7-Zip's -mx5 and -mx9 PPMd
// parameters; "ratio" is packed/unpacked.
func BenchmarkWriter7z(b *testing.B) {
	for _, tc := range []struct {
		name  string
		level int
		data  func() []byte
	}{
		{"mixed-mx5", 5, func() []byte { return exactInput(b, 4<<20) }},
		{"text-mx5", 5, func() []byte { return textData(4 << 20) }},
		{"mixed-mx9", 9, func() []byte { return exactInput(b, 4<<20) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o, m := LevelProps7z(tc.level)
			benchmarkWriter7z(b, tc.data(), o, ReduceMem7z(m, 4<<20))
		})
	}
}

// BenchmarkReader7zSmall decodes the PPMd-only folder of the corpus's
// Archives__7Zip.PPMd.7z (56 KB, half of it a JPEG, order 6, a 16 MiB
// arena: most symbols escape down to the 256-symbol order-0 context),
// with one Reader7z reset for every stream ("reuse") or a new one per
// stream, as the 7z reader makes one per folder ("new": the arena is
// allocated and first touched each time).
func BenchmarkReader7zSmall(b *testing.B) {
	root := testenv.CorpusRoot(b)
	folders, err := ppmdFolders(filepath.Join(root, "files", "sharpcompress", "Archives__7Zip.PPMd.7z"))
	if err != nil || len(folders) == 0 {
		b.Fatalf("no PPMd folder: %v", err)
	}
	f := folders[0]
	size := int64(f.folder.unpackSize())
	for _, fresh := range []bool{false, true} {
		name := "reuse"
		if fresh {
			name = "new"
		}
		b.Run(name, func(b *testing.B) {
			d := &Reader7z{}
			buf := make([]byte, 1<<16)
			br := bytes.NewReader(f.packed)
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testenv.StartCPU()
			defer cpu.Report(b, size)
			for i := 0; i < b.N; i++ {
				br.Reset(f.packed)
				if fresh {
					d = &Reader7z{}
				}
				if err := d.Reset(br, f.order, f.memSize, size); err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{d}, buf)
				if err != nil || n != size {
					b.Fatalf("%d bytes, %v; want %d", n, err, size)
				}
			}
		})
	}
}

// BenchmarkReader8 decodes 2 MiB of mixed data packed by 7zz as a ZIP
// PPMd (variant I) entry at its default level.
func BenchmarkReader8(b *testing.B) {
	data := benchInput(b, 2<<20)
	raw := ppmd8Stream(b, data, "PPMd")
	var z Reader8
	br := bytes.NewReader(raw)
	buf := make([]byte, 1<<16)
	size := int64(len(data))
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	defer cpu.Report(b, size)
	for i := 0; i < b.N; i++ {
		br.Reset(raw)
		if err := z.Reset(br, size, 1<<30); err != nil {
			b.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{&z}, buf)
		if err != nil || n != size {
			b.Fatalf("%d bytes, %v; want %d", n, err, size)
		}
	}
}

// numbersData returns n bytes of CSV rows like those of the numbers class
// of scripts/bench-matrix: a running id, a timestamp, an account number,
// an amount, a quantity, a price, a currency and a rate. Most symbols
// escape from the order-6 context to short ones: the escape path, SEE
// and the masked searches dominate.
func numbersData(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	currencies := []string{"EUR", "USD", "CHF", "SEK", "JPY", "GBP"}
	var b bytes.Buffer
	t := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	for id := 400000; b.Len() < n; id++ {
		t = t.Add(time.Duration(20+r.IntN(80)) * time.Second)
		fmt.Fprintf(&b, "%d,%s,%08d,%.2f,%d,%.4f,%s,%.6f\n", id, t.Format(time.DateTime),
			r.IntN(1e8), float64(r.IntN(8e6)-4e6)/100, r.IntN(1000),
			float64(r.IntN(1e7))/1e4, currencies[r.IntN(len(currencies))], r.Float64())
	}
	return b.Bytes()[:n]
}

// logData returns n bytes of web-server log lines like those of the logs
// class of scripts/bench-matrix: long repeated fields (the first context
// usually holds the symbol) between varying numbers.
func logData(n int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	methods := []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	paths := []string{"/api/v1/users", "/api/v1/orders", "/static/app.js", "/health", "/api/v2/search"}
	levels := []string{"INFO", "INFO", "INFO", "WARN", "ERROR"}
	statuses := []int{200, 200, 200, 201, 304, 404, 500}
	var b bytes.Buffer
	t := time.Date(2025, 1, 1, 11, 0, 0, 0, time.UTC)
	for b.Len() < n {
		t = t.Add(time.Duration(r.IntN(40)) * time.Millisecond)
		fmt.Fprintf(&b, "%s host-%02d app-api[%d]: %s %s 10.%d.%d.%d%s?id=%d HTTP/1.1 status=%d bytes=%d latency_ms=%.1f ua=\"Mozilla/5.0 (X11; Linux x86_64) rv:%d.0\"\n",
			t.Format("2006-01-02T15:04:05.000Z"), r.IntN(16), 1000+r.IntN(50000), levels[r.IntN(len(levels))],
			methods[r.IntN(len(methods))], r.IntN(256), r.IntN(256), r.IntN(256), paths[r.IntN(len(paths))],
			r.IntN(1e6), statuses[r.IntN(len(statuses))], r.IntN(60000), float64(r.IntN(10000))/10, 100+r.IntN(30))
	}
	return b.Bytes()[:n]
}

// runsData returns n bytes of long runs of zeros (64 KiB to 1 MiB)
// between short stretches of text, like the runs class of
// scripts/bench-matrix.
func runsData(n int) []byte {
	r := rand.New(rand.NewPCG(7, 8))
	txt := textData(1 << 14)
	b := make([]byte, 0, n)
	for len(b) < n {
		b = append(b, make([]byte, 64<<10+r.IntN(960<<10))...)
		k := r.IntN(len(txt) - 512)
		b = append(b, txt[k:k+512]...)
	}
	return b[:n]
}
