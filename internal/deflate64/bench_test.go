package deflate64

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kflate "github.com/klauspost/compress/flate"

	"github.com/garc-dev/garc/internal/testenv"
)

// benchClasses returns about 4 MiB of each data class of scripts/bench-matrix
// that Deflate decoding is measured on: a CSV table of numbers, log lines
// with varying fields, and Go source text.
func benchClasses(b *testing.B) map[string][]byte {
	const size = 4 << 20
	rng := rand.New(rand.NewSource(27))
	m := map[string][]byte{}
	var num bytes.Buffer
	for id := 1; num.Len() < size; id++ {
		fmt.Fprintf(&num, "%d,2026-%02d-%02dT%02d:%02d:%02d,%d.%02d,%c%c%04d\n", id, 1+rng.Intn(12), 1+rng.Intn(28),
			rng.Intn(24), rng.Intn(60), rng.Intn(60), rng.Intn(100000), rng.Intn(100), 'A'+rng.Intn(26), 'A'+rng.Intn(26), rng.Intn(10000))
	}
	m["numbers"] = num.Bytes()
	var logs bytes.Buffer
	hosts := []string{"web01", "web02", "db-primary", "cache3", "edge-eu-1"}
	paths := []string{"/index.html", "/api/v1/users", "/static/app.js", "/login", "/api/v1/orders?page="}
	for logs.Len() < size {
		fmt.Fprintf(&logs, "Dec %2d %02d:%02d:%02d %s nginx[%d]: 10.%d.%d.%d - user%d \"GET %s%d HTTP/1.1\" %d %d\n",
			1+rng.Intn(31), rng.Intn(24), rng.Intn(60), rng.Intn(60), hosts[rng.Intn(len(hosts))], 1000+rng.Intn(30000),
			rng.Intn(256), rng.Intn(256), rng.Intn(256), rng.Intn(500), paths[rng.Intn(len(paths))], rng.Intn(100),
			[]int{200, 200, 200, 304, 404, 500}[rng.Intn(6)], rng.Intn(50000))
	}
	m["logs"] = logs.Bytes()
	var src bytes.Buffer
	filepath.WalkDir(filepath.Join(testenv.GOROOT(b), "src", "net"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && src.Len() < size && strings.HasSuffix(p, ".go") {
			if data, err := os.ReadFile(p); err == nil {
				src.Write(data)
			}
		}
		return nil
	})
	if src.Len() > 0 {
		m["source"] = src.Bytes()
	}
	return m
}

// BenchmarkInflateClasses decodes each class compressed at level 6 (as
// zip -6 and gzip -6 make the bench-matrix archives).
func BenchmarkInflateClasses(b *testing.B) {
	classes := benchClasses(b)
	for _, name := range []string{"numbers", "logs", "source"} {
		in, ok := classes[name]
		if !ok {
			continue
		}
		comp := flateCompress(b, in, 6)
		b.Run(name, func(b *testing.B) { benchInflate(b, in, comp, false) })
	}
}

// benchInflate decodes comp, the Deflate (deflate64: Deflate64) stream
// of in, b.N times through one reused decoder, reporting the CPU time per
// byte of in.
func benchInflate(b *testing.B, in, comp []byte, deflate64 bool) {
	d := New(bytes.NewReader(comp), deflate64)
	src := bytes.NewReader(comp)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	defer cpu.Report(b, int64(len(in)))
	for i := 0; i < b.N; i++ {
		src.Reset(comp)
		d.Reset(src)
		for {
			if _, err := d.Read(buf); err != nil {
				break
			}
		}
	}
}

// BenchmarkInflateMatrix decodes the Deflate data of each class's 100 MB
// .tar.gz that scripts/bench-matrix made (in $BENCH_DIR, by default
// /var/tmp/garc-bench), with this package and, as a Go reference, with
// klauspost/compress/flate, reporting CPU time. It is skipped when the
// archives are absent. zlib's figure for the same data comes from outside
// Go, e.g. `gzip -dc` or Python's zlib.
func BenchmarkInflateMatrix(b *testing.B) {
	dir := os.Getenv("BENCH_DIR")
	if dir == "" {
		dir = "/var/tmp/garc-bench"
	}
	for _, class := range []string{"mixed", "numbers", "utf16", "exec", "logs", "random"} {
		data, err := os.ReadFile(filepath.Join(dir, "arc", "100M", class+".tar.gz"))
		if err != nil || len(data) < 10 || data[3] != 0 {
			continue // absent, or a header with optional fields
		}
		comp := data[10:] // the 10-byte gzip header
		out := make([]byte, 256<<10)
		b.Run(class, func(b *testing.B) {
			d := New(bytes.NewReader(comp), false)
			src := bytes.NewReader(comp)
			cpu := testenv.StartCPU()
			var n int64
			for i := 0; i < b.N; i++ {
				src.Reset(comp)
				d.Reset(src)
				n = 0
				for {
					k, err := d.Read(out)
					n += int64(k)
					if err != nil {
						break
					}
				}
			}
			cpu.Report(b, n)
		})
		b.Run(class+"/klauspost", func(b *testing.B) {
			cpu := testenv.StartCPU()
			var n int64
			for i := 0; i < b.N; i++ {
				n, _ = io.CopyBuffer(io.Discard, struct{ io.Reader }{kflate.NewReader(bytes.NewReader(comp))}, out)
			}
			cpu.Report(b, n)
		})
	}
}
