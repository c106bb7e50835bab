package lzma

import (
	"bytes"
	"fmt"
	"github.com/garc-dev/garc/internal/testenv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	uxz "github.com/ulikunitz/xz"
)

// cpuTime returns the user+system CPU time of this process and of its
// waited-for children. The comparison uses CPU time because the machine is
// shared and wall-clock times are noisy.
func cpuTime() (self, children time.Duration) { return testenv.CPUTime() }

func timeSelf(f func()) time.Duration {
	s0, _ := cpuTime()
	f()
	s1, _ := cpuTime()
	return s1 - s0
}

func timeChild(t *testing.T, args ...string) time.Duration {
	_, c0 := cpuTime()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	_, c1 := cpuTime()
	return c1 - c0
}

// TestCompare7zz prints sizes and CPU-time ratios of our encoder and
// decoder against 7zz and ulikunitz/xz on the mixed benchmark input. It
// runs only with GARC_COMPARE=1 (GARC_COMPARE_SIZE sets the input size,
// GARC_COMPARE_LEVELS e.g. "1,5,9"). It asserts only correctness.
func TestCompare7zz(t *testing.T) {
	testenv.OptIn(t, "GARC_COMPARE", "the comparison with 7zz")
	testenv.SevenZip(t)
	size := 32 << 20
	if s, err := strconv.Atoi(os.Getenv("GARC_COMPARE_SIZE")); err == nil {
		size = s
	}
	levels := []int{1, 5, 9}
	if s := os.Getenv("GARC_COMPARE_LEVELS"); s != "" {
		levels = nil
		for _, f := range bytes.Split([]byte(s), []byte(",")) {
			l, _ := strconv.Atoi(string(f))
			levels = append(levels, l)
		}
	}
	data := mixedInput(t, size)
	if f := os.Getenv("GARC_COMPARE_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = b
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "mixed.bin")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mb := float64(len(data)) / 1e6
	t.Logf("input: %d bytes", len(data))
	for _, level := range levels {
		// 7zz: .xz (LZMA2, one thread) so that the raw stream can be fed to our decoder.
		xzPath := filepath.Join(dir, fmt.Sprintf("7zz%d.xz", level))
		t7enc := timeChild(t, "7zz", "a", "-txz", fmt.Sprintf("-mx%d", level), "-mmt1", xzPath, in)
		xz7, _ := os.ReadFile(xzPath)
		raw7, prop7, err := parseXZ(xz7)
		if err != nil {
			t.Fatal(err)
		}
		t7dec := timeChild(t, "7zz", "t", "-mmt1", xzPath)

		o := LevelOptions(level)
		var ours []byte
		var oprop byte
		tenc := timeSelf(func() { ours, oprop = encodeLZMA2(t, data, o) })
		oursXZ := filepath.Join(dir, fmt.Sprintf("ours%d.xz", level))
		os.WriteFile(oursXZ, wrapXZ(ours, oprop, int64(len(data))), 0o644)
		timeChild(t, "7zz", "t", oursXZ) // 7zz must accept our stream

		// Two threads, wall time (7zz -mmt2 and ours with Threads = 2).
		start := time.Now()
		timeChild(t, "7zz", "a", "-txz", fmt.Sprintf("-mx%d", level), "-mmt2", xzPath+"2", in)
		wall7 := time.Since(start)
		o2 := o
		o2.Threads = 2
		var ours2 []byte
		start = time.Now()
		cpu2 := timeSelf(func() { ours2, _ = encodeLZMA2(t, data, o2) })
		wall2 := time.Since(start)
		if !bytes.Equal(ours, ours2) {
			t.Errorf("mx%d: output depends on the thread count", level)
		}

		// Decoding the 7zz stream: ours vs ulikunitz.
		z, err := NewReader2(bytes.NewReader(raw7), prop7, int64(len(data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := z.WriteTo(&got); err != nil || !bytes.Equal(got.Bytes(), data) {
			t.Fatalf("mx%d: decoding 7zz's stream: %v", level, err)
		}
		// Timed like 7zz t: decode and discard.
		tdec := timeSelf(func() {
			z.Reset(bytes.NewReader(raw7), prop7, int64(len(data)))
			if _, err := z.WriteTo(io.Discard); err != nil {
				t.Fatal(err)
			}
		})
		tul := timeSelf(func() {
			r, err := uxz.NewReader(bytes.NewReader(xz7))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, r)
		})
		t.Logf("mx%d size: 7zz %d, ours %d (%.2f%%)", level, len(raw7), len(ours), 100*(float64(len(ours))/float64(len(raw7))-1))
		t.Logf("mx%d encode 1 thread: 7zz %.2fs (%.1f MB/s), ours %.2fs (%.1f MB/s), ratio %.2fx",
			level, t7enc.Seconds(), mb/t7enc.Seconds(), tenc.Seconds(), mb/tenc.Seconds(), tenc.Seconds()/t7enc.Seconds())
		t.Logf("mx%d encode 2 threads wall: 7zz -mmt2 %.2fs, ours %.2fs (cpu %.2fs), ratio %.2fx",
			level, wall7.Seconds(), wall2.Seconds(), cpu2.Seconds(), wall2.Seconds()/wall7.Seconds())
		t.Logf("mx%d decode: 7zz t %.3fs (%.1f MB/s), ours %.3fs (%.1f MB/s, %.2fx of 7zz), ulikunitz %.3fs (%.1f MB/s)",
			level, t7dec.Seconds(), mb/t7dec.Seconds(), tdec.Seconds(), mb/tdec.Seconds(), t7dec.Seconds()/tdec.Seconds(), tul.Seconds(), mb/tul.Seconds())
	}
}

// TestCompareDecodeSpeed measures the CPU time of decoding 7zz's -mx5
// stream of 8 MiB of mixed data (ours vs 7zz t), best of several runs.
// GARC_COMPARE=1 only.
func TestCompareDecodeSpeed(t *testing.T) {
	testenv.OptIn(t, "GARC_COMPARE", "the decoding speed comparison with 7zz")
	testenv.SevenZip(t)
	data := mixedInput(t, benchSize)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	os.WriteFile(in, data, 0o644)
	xzPath := filepath.Join(dir, "in.xz")
	level := "5"
	if l := os.Getenv("GARC_COMPARE_LEVEL"); l != "" {
		level = l
	}
	timeChild(t, "7zz", "a", "-txz", "-mx"+level, "-mmt1", xzPath, in)
	xz, _ := os.ReadFile(xzPath)
	raw, prop, err := parseXZ(xz)
	if err != nil {
		t.Fatal(err)
	}
	z, _ := NewReader2(bytes.NewReader(raw), prop, int64(len(data)), 0)
	best, best7 := time.Hour, time.Hour
	for i := 0; i < 7; i++ {
		d := timeSelf(func() {
			z.Reset(bytes.NewReader(raw), prop, int64(len(data)))
			if n, err := z.WriteTo(io.Discard); err != nil || n != int64(len(data)) {
				t.Fatal(n, err)
			}
		})
		best = min(best, d)
		best7 = min(best7, timeChild(t, "7zz", "t", "-mmt1", xzPath))
	}
	mb := float64(len(data)) / 1e6
	t.Logf("decode 8 MiB (7zz -mx%s stream): ours %.1f MB/s, 7zz t %.1f MB/s, ratio %.2f", level, mb/best.Seconds(), mb/best7.Seconds(), best7.Seconds()/best.Seconds())
}
