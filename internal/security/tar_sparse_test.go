//go:build linux

package security

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/testenv"
)

// sparseTar is a tar of one old GNU sparse file of realSize bytes whose
// data segments (at most four) are given by offset and content.
func sparseTar(realSize int64, segs map[int64]string) []byte {
	var m [][2]int64
	var data string
	for off := int64(-1); ; {
		next := int64(-1)
		for o := range segs {
			if o > off && (next < 0 || o < next) {
				next = o
			}
		}
		if next < 0 {
			break
		}
		off = next
		m = append(m, [2]int64{off, int64(len(segs[off]))})
		data += segs[off]
	}
	b := oldGNUSparseHeader("sparse", realSize, int64(len(data)), m, false)
	padded := make([]byte, (len(data)+511)/512*512+1024)
	copy(padded, data)
	return append(b, padded...)
}

// hangGuard is the context of a garc run: it only stops a run that hangs
// (the test then fails on its exit), it is not a timing assertion.
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// checkSparseFile checks that path has size bytes, the data segs at
// their offsets, zeros around them, and at most 1 MiB allocated.
func checkSparseFile(t *testing.T, path string, size int64, segs map[int64]string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != size || st.Blocks*512 > 1<<20 {
		t.Errorf("%s: size %d, %d bytes allocated; want %d, at most 1 MiB", filepath.Base(path), st.Size, st.Blocks*512, size)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for off, s := range segs {
		from, to := max(off-1, 0), min(off+int64(len(s))+1, size)
		b := make([]byte, to-from)
		if _, err := f.ReadAt(b, from); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		want := make([]byte, len(b))
		copy(want[off-from:], s)
		if !bytes.Equal(b, want) {
			t.Errorf("%s at %d: %q, want %q", filepath.Base(path), from, b, want)
		}
	}
}

// TestTarSparseHolesCostNothing: a 2.5 KB tar declaring a 1 TiB sparse
// file took 4 min 24 s (88 s of CPU) to extract, and t and -so as long,
// every zero of its holes produced; a 4 PiB one would take a day. Holes
// now cost nothing: x makes them holes, t counts them, -so into a
// regular file seeks over them (as GNU tar's -O does) and -so into a
// pipe writes their zeros (a stream has no holes).
func TestTarSparseHolesCostNothing(t *testing.T) {
	const tib, pib = int64(1) << 40, int64(1) << 50
	dir := t.TempDir()
	segs := map[int64]string{0: "head", 1 << 30: "middle", tib - 4: "tail"}
	if err := os.WriteFile(filepath.Join(dir, "tib.tar"), sparseTar(tib, segs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pib.tar"), sparseTar(4*pib, map[int64]string{0: "head", 4*pib - 4: "tail"}), 0o644); err != nil {
		t.Fatal(err)
	}

	r := runGarc(t, dir, "x", "-odest", "tib.tar")
	if r.code != 0 {
		t.Fatalf("x: exit %d\n%s", r.code, r.stderr)
	}
	checkSparseFile(t, filepath.Join(dir, "dest", "sparse"), tib, segs)

	for _, c := range []struct {
		arc  string
		size int64
	}{{"tib.tar", tib}, {"pib.tar", 4 * pib}} {
		r = runGarc(t, dir, "t", c.arc)
		// The summary's Size counts the holes.
		if want := fmt.Sprintf("Size:       %d\n", c.size); r.code != 0 || !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("t %s: exit %d, output %q; want 0 and %q", c.arc, r.code, r.stdout+r.stderr, want)
		}
	}

	// -so into a regular file: holes, as GNU tar's -O makes them.
	out, err := os.Create(filepath.Join(dir, "so.out"))
	if err != nil {
		t.Fatal(err)
	}
	if garcBin == "" {
		t.Fatal("the garc binary could not be built (see the test output)")
	}
	cmd := exec.CommandContext(hangGuard(t), garcBin, "x", "-so", "tib.tar")
	cmd.Dir, cmd.Stdout = dir, out
	var se bytes.Buffer
	cmd.Stderr = &se
	err = cmd.Run()
	out.Close()
	if err != nil {
		t.Fatalf("x -so > file: %v\n%s", err, se.String())
	}
	checkSparseFile(t, filepath.Join(dir, "so.out"), tib, segs)

	// -so into a pipe: the zeros are written.
	small := map[int64]string{1000: "data", 3<<20 - 2: "end"}
	if err := os.WriteFile(filepath.Join(dir, "small.tar"), sparseTar(3<<20+1, small), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runGarc(t, dir, "x", "-so", "small.tar")
	want := make([]byte, 3<<20+1)
	copy(want[1000:], "data")
	copy(want[3<<20-2:], "end")
	if r.code != 0 || r.stdout != string(want) {
		t.Errorf("x -so | pipe: exit %d, %d bytes; want 0, %d bytes of zeros and data\n%s", r.code, len(r.stdout), len(want), r.stderr)
	}
}

// TestTarSparseSizeRefused: a sparse file larger than the file system
// accepts (here the file size limit of the process, ulimit -f, which
// holds whatever the file system) is refused at once, exit 9, and
// nothing is left; garc found out only after reading every zero.
func TestTarSparseSizeRefused(t *testing.T) {
	sh := testenv.Tool(t, "sh")
	if garcBin == "" {
		t.Fatal("the garc binary could not be built (see the test output)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tib.tar"), sparseTar(1<<40, map[int64]string{0: "head", 1<<40 - 4: "tail"}), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(hangGuard(t), sh, "-c", `ulimit -f 1024 && exec "$0" x -odest tib.tar`, garcBin)
	cmd.Dir = dir
	var se bytes.Buffer
	cmd.Stderr = &se
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 9 || !strings.Contains(se.String(), "sparse") {
		t.Errorf("x under ulimit -f 1024: %v, want exit 9 naming the entry\n%s", err, se.String())
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "dest"))
	if len(ents) != 0 {
		t.Errorf("left in the destination: %v", ents)
	}
}

// hugeMapTarZst is a .tar.zst of one old GNU sparse entry whose map of
// 1-byte segments, in order, goes on for blocks extension blocks of 21
// segments each (512 bytes of tar for 336 bytes of map); its data is
// not there (the map is refused first).
func hugeMapTarZst(t *testing.T, blocks int) []byte {
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	segs := int64(4 + 21*blocks)
	zw.Write(oldGNUSparseHeader("huge", 2*segs, segs, [][2]int64{{0, 1}, {2, 1}, {4, 1}, {6, 1}}, true))
	// octal writes v as the 11 octal digits and NUL of a field.
	octal := func(b []byte, v int64) {
		for i := 10; i >= 0; i, v = i-1, v>>3 {
			b[i] = byte('0' + v&7)
		}
		b[11] = 0
	}
	buf := make([]byte, 0, 512<<10)
	off := int64(8)
	for i := range blocks {
		ext := buf[len(buf) : len(buf)+512]
		clear(ext)
		for j := 0; j < 21; j++ {
			octal(ext[24*j:], off)
			octal(ext[24*j+12:], 1)
			off += 2
		}
		if i < blocks-1 {
			ext[504] = 1
		}
		if buf = buf[:len(buf)+512]; len(buf) == cap(buf) {
			zw.Write(buf)
			buf = buf[:0]
		}
	}
	zw.Write(buf)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestTarSparseMapMemory: a sparse map of millions of entries is charged
// to the memory budget: a .tar.zst whose old GNU map runs on for 19
// million segments in order (900,000 extension blocks) is refused with
// exit 8 naming the sparse map, and garc never holds more than
// --max-dict + 256 MiB for it (it held 780 MB under --max-dict 256m: the
// map checked against the limit alone, its array grown by copying;
// 2.4-2.9 GB under 1g, a runtime crash under the default limit).
func TestTarSparseMapMemory(t *testing.T) {
	if garcBin == "" {
		t.Fatal("the garc binary could not be built (see the test output)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "map.tar.zst"), hugeMapTarZst(t, 900_000), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(hangGuard(t), garcBin, "t", "--max-dict", "256m", "map.tar.zst")
	cmd.Dir = dir
	var se bytes.Buffer
	cmd.Stderr = &se
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatal(err)
	}
	rss, ok := maxRSS(cmd.ProcessState)
	if !ok {
		t.Fatal("no peak memory in the process state")
	}
	t.Logf("t --max-dict 256m: %v, peak RSS %d MiB", err, rss>>20)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 8 {
		t.Errorf("%v, want exit 8\n%s", err, se.String())
	}
	if rss > 256<<20+256<<20 {
		t.Errorf("peak RSS %d MiB, want at most --max-dict + 256 MiB", rss>>20)
	}
	if !strings.Contains(se.String(), "memory for a sparse map") || !strings.Contains(se.String(), "--max-dict") {
		t.Errorf("stderr %q does not name the limit", se.String())
	}
}
