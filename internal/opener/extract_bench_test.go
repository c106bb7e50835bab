package opener_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/testenv"
)

// benchRoot is where the end-to-end benchmark works: $GARC_BENCH_DIR
// (e.g. /dev/shm, a tmpfs) or a temporary directory.
func benchRoot(b *testing.B) string {
	if d := os.Getenv("GARC_BENCH_DIR"); d != "" {
		dir, err := os.MkdirTemp(d, "garc-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return b.TempDir()
}

// BenchmarkExtractManyTinyFiles is `garc x` of issue 13's many-file
// archive without the command line around it: a stored 7z archive made
// by 7zz of $GARC_BENCH_FILES (default 100,000) files of a few bytes in
// directories of 100, opened with Open and extracted with Write (one
// goroutine) or WriteQueued (files created by a second goroutine). One
// operation is the whole archive; cpu-ns/op is the process CPU time.
func BenchmarkExtractManyTinyFiles(b *testing.B) {
	sevenZip := testenv.SevenZip(b)
	n := 100000
	if s := os.Getenv("GARC_BENCH_FILES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	root := benchRoot(b)
	src := filepath.Join(root, "src")
	for i := range n {
		dir := filepath.Join(src, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	arc := filepath.Join(root, "many.7z")
	cmd := exec.Command(sevenZip, "a", "-bd", "-m0=Copy", arc, "src")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("7zz: %v\n%s", err, out)
	}
	os.RemoveAll(src)
	for _, queued := range []bool{false, true} {
		name := "Write"
		if queued {
			name = "WriteQueued"
		}
		b.Run(name, func(b *testing.B) {
			// CPU time of the extractions only, not of removing their
			// output.
			var cpu time.Duration
			i := 0
			for b.Loop() {
				dest := filepath.Join(root, fmt.Sprintf("out%d", i))
				i++
				start, _ := testenv.CPUTime()
				extractAll(b, arc, dest, queued)
				end, _ := testenv.CPUTime()
				cpu += end - start
				b.StopTimer()
				os.RemoveAll(dest)
				b.StartTimer()
			}
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

func extractAll(b *testing.B, arc, dest string, queued bool) {
	r, err := opener.Open(arc, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	x, err := extract.New(extract.Options{Dest: dest})
	if err != nil {
		b.Fatal(err)
	}
	done := func(e *archive.Entry, err error) error {
		if err != nil {
			b.Errorf("%s: %v", e.Name, err)
		}
		return nil
	}
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		if queued {
			return x.WriteQueued(e, rd, done)
		}
		return done(e, x.Write(e, rd))
	})
	if err == nil {
		err = x.Flush()
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := x.Finish(); err != nil {
		b.Fatal(err)
	}
}
