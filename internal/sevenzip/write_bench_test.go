package sevenzip

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// writeBenchInput is mixed text and random data, 8 MiB.
func writeBenchInput() []testFile {
	return []testFile{
		{name: "text.txt", data: pseudoText(11, 6<<20), mode: 0o100644},
		{name: "random.bin", data: randomBytes(12, 1<<20), mode: 0o100644},
		{name: "prog", data: fakeELF(1 << 20), mode: 0o100755},
	}
}

func benchWrite(b *testing.B, files []testFile, opts WriteOptions) {
	var total int64
	for _, f := range files {
		total += int64(len(f.data))
	}
	its := items(files)
	b.SetBytes(total)
	b.ReportAllocs()
	var out memOutput
	for b.Loop() {
		out.b = out.b[:0]
		if _, err := Write(context.Background(), &out, its, &opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out.b))/float64(total), "ratio")
}

func BenchmarkWrite7zLZMA2(b *testing.B) {
	files := writeBenchInput()
	for _, level := range []int{1, 5, 9} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("mx%d/mt%d", level, threads), func(b *testing.B) {
				benchWrite(b, files, WriteOptions{Level: level, Threads: threads})
			})
		}
	}
}

// BenchmarkWrite7zAESLZMA2 measures compression with encryption; the key
// derivation, done once per archive (2^19 rounds by default), is kept
// cheap so that it does not dominate.
func BenchmarkWrite7zAESLZMA2(b *testing.B) {
	benchWrite(b, writeBenchInput(), WriteOptions{Level: 1, Password: "bench", EncryptHeaders: true, KDFCycles: 6})
}

func BenchmarkWrite7zPPMd(b *testing.B) {
	files := writeBenchInput()
	for _, level := range []int{1, 5, 9} {
		b.Run(fmt.Sprintf("mx%d", level), func(b *testing.B) {
			benchWrite(b, files, WriteOptions{Method: "PPMd", Level: level, Threads: 1})
		})
	}
}

func BenchmarkWrite7zDeflate(b *testing.B) {
	files := writeBenchInput()
	for _, level := range []int{1, 5} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("mx%d/mt%d", level, threads), func(b *testing.B) {
				benchWrite(b, files, WriteOptions{Method: "Deflate", Level: level, Threads: threads,
					Solid: SolidOptions{BlockSize: 2 << 20}})
			})
		}
	}
}

func BenchmarkWrite7zCopy(b *testing.B) {
	benchWrite(b, writeBenchInput(), WriteOptions{Method: "Copy"})
}

func BenchmarkWrite7zSmallFiles(b *testing.B) {
	files := make([]testFile, 2000)
	for i := range files {
		files[i] = testFile{name: fmt.Sprintf("d%02d/f%04d.txt", i%50, i), data: pseudoText(uint64(i), 100+i%2000), mode: 0o100644,
			mtime: time.Unix(1.6e9, 0)}
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("mt%d", threads), func(b *testing.B) {
			benchWrite(b, files, WriteOptions{Level: 5, Threads: threads})
		})
	}
}

// FuzzWriteRoundTrip writes random trees of names and sizes and reads
// them back.
func FuzzWriteRoundTrip(f *testing.F) {
	f.Add([]byte{3, 'a', 10, 'b', 0, 0xff, 1}, uint8(0))
	f.Add([]byte("hello/world\x00x\x01y/z"), uint8(5))
	f.Add([]byte{0, 0, 0, 200, 17, 3}, uint8(13))
	f.Fuzz(func(t *testing.T, spec []byte, mode uint8) {
		if len(spec) > 256 {
			return
		}
		var files []testFile
		seen := map[string]bool{}
		dirs := map[string]bool{}
		for i := 0; i+1 < len(spec); i += 2 {
			name := fmt.Sprintf("d%d/f%d-%c", spec[i]%4, i, 'a'+spec[i]%26)
			if spec[i]%5 == 0 {
				name = fmt.Sprintf("f%d", i)
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			size := int(spec[i+1]) * int(spec[i+1]) / 4
			if spec[i+1]%7 == 0 {
				size = 0
			}
			files = append(files, testFile{name: name, data: randomBytes(uint64(i), size)[:size], mode: 0o100644,
				mtime: time.Unix(int64(spec[i+1])*1e6, 0).UTC()})
			if d := name[:max(0, bytes.IndexByte([]byte(name), '/'))]; d != "" && !dirs[d] && spec[i]%3 == 0 {
				dirs[d] = true
				files = append(files, testFile{name: d, typ: archive.TypeDir, mode: 0o40755, mtime: time.Unix(5, 0).UTC()})
			}
		}
		opts := WriteOptions{Level: 1, Solid: SolidOptions{FilesPerBlock: int(mode % 4), Off: mode%7 == 1},
			NoHeaderCompression: mode%3 == 1}
		if mode%5 == 2 {
			opts.Password, opts.KDFCycles = "f", 1
			opts.EncryptHeaders = mode%2 == 0
		}
		switch mode % 11 {
		case 3:
			opts.Method = "Copy"
		case 4:
			opts.Method = "PPMd"
		case 6:
			opts.Method = "Deflate"
		}
		var out memOutput
		if _, err := Write(context.Background(), &out, items(files), &opts); err != nil {
			t.Fatal(err)
		}
		ents, data := readBack(t, out.b, opts.Password)
		checkTree(t, files, ents, data)

	})
}
