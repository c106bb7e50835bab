package stream

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// systemExecutables returns the first n bytes of the ELF files in
// /usr/bin, concatenated in name order (as scripts/bench-matrix's exec
// class begins), skipping t when there are not that many.
func systemExecutables(t *testing.T, n int) []byte {
	t.Helper()
	const dir = "/usr/bin"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("%s: %v", dir, err)
	}
	var b []byte
	for _, e := range ents {
		if !e.Type().IsRegular() || len(b) >= n {
			continue
		}
		if f, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && bytes.HasPrefix(f, []byte("\x7fELF")) {
			b = append(b, f...)
		}
	}
	if len(b) < n {
		t.Skipf("%s holds %d bytes of ELF files, fewer than %d", dir, len(b), n)
	}
	return b[:n]
}

// TestGzipSizeAsPigz checks that gzip at -mx6 and -mx9, written in
// parallel blocks, is within 1 % of pigz -6's and -9's size on the mixed
// data, a Go binary and the system's executables (issue 26 point 7:
// klauspost/compress's flate, which -mx6 used before, was 2.5 % larger
// than pigz -6 on those).
func TestGzipSizeAsPigz(t *testing.T) {
	pigz := testenv.Tool(t, "pigz")
	inputs := []struct {
		name string
		data []byte
	}{
		{"mixed", testenv.MixedData(t, 4<<20)},
		{"go binary", testenv.GoBinary(t, "go", 4<<20)},
		{"executables", systemExecutables(t, 4<<20)},
	}
	for _, in := range inputs {
		for _, level := range []int{6, 9} {
			cmd := exec.Command(pigz, "-"+strconv.Itoa(level), "-n", "-c")
			cmd.Stdin = bytes.NewReader(in.data)
			ref, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			one := compress(t, Gzip, in.data, WriterOptions{Level: level, Threads: 2, Size: -1})
			if r := float64(len(one)) / float64(len(ref)); r > 1.01 {
				t.Errorf("%s: gzip -mx%d is %d bytes, %.4f× pigz -%d's %d", in.name, level, len(one), r, level, len(ref))
			} else {
				t.Logf("%s: gzip -mx%d is %.4f× pigz -%d", in.name, level, r, level)
			}
		}
	}
}

// TestGzipBlocksRoundTrip checks the gzip writer's blocks at the edges
// of their dictionaries (the first block has none; a last block of one
// byte, or of none after a whole block) at the levels of both block
// coders, written whole and a byte at a time: the same bytes for one,
// two and three threads, read back by garc, Go's compress/gzip, gzip,
// pigz and 7-Zip.
func TestGzipBlocksRoundTrip(t *testing.T) {
	testers := [][]string{{testenv.Tool(t, "gzip"), "-t"}, {testenv.Tool(t, "pigz"), "-t"}, {testenv.SevenZip(t), "t", "-tgzip", "-si"}}
	sizes := []int{0, 1, gzipBlock, gzipBlock + 1, 2*gzipBlock + 1}
	for _, level := range []int{5, 6, 9} {
		for _, n := range sizes {
			data := writerSample(n)
			o := WriterOptions{Level: level, Threads: 1, Size: -1}
			one := compress(t, Gzip, data, o)
			for _, th := range []int{2, 3} {
				o.Threads = th
				if got := compress(t, Gzip, data, o); !bytes.Equal(got, one) {
					t.Errorf("-mx%d, %d bytes: %d threads differ from one", level, n, th)
				}
			}
			if level == 6 && (n == 1 || n == gzipBlock+1) {
				// A byte at a time gives the same bytes.
				o.Threads = 2
				var buf bytes.Buffer
				w, err := NewWriter(&buf, Gzip, o)
				if err != nil {
					t.Fatal(err)
				}
				for i := range data {
					if _, err := w.Write(data[i : i+1]); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), one) {
					t.Errorf("-mx%d, %d bytes: written a byte at a time, it differs", level, n)
				}
			}
			d, _, err := NewDecoder(Gzip, bytes.NewReader(one), 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("-mx%d, %d bytes: garc decoded %d bytes, %v", level, n, len(got), err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(one))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("-mx%d, %d bytes: compress/gzip decoded %d bytes, %v", level, n, len(got), err)
			}
			for _, tc := range testers {
				cmd := exec.Command(tc[0], tc[1:]...)
				cmd.Stdin = bytes.NewReader(one)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("-mx%d, %d bytes: %s: %v\n%s", level, n, tc, err, out)
				}
			}
		}
	}
}

// gateCoder copies each block's input to the output; the block of bytes
// 0 waits until release is closed, and the block of bytes 2 closes
// sawTwo once it is coded.
type gateCoder struct {
	release <-chan struct{}
	sawTwo  chan struct{}
}

func (g *gateCoder) code(dst *bytes.Buffer, hist, data []byte, last bool) error {
	if len(data) == 0 {
		return nil // the empty last block
	}
	switch data[0] {
	case 0:
		select {
		case <-g.release:
		case <-time.After(time.Minute):
			return errors.New("block 0 was never released")
		}
	case 2:
		close(g.sawTwo)
	}
	dst.Write(data)
	return nil
}

// TestBlockPoolRunsAhead checks that with two threads a block that is
// slow to compress holds up neither the next blocks' coding nor the
// caller filling them: block 2 is coded (on the coder block 1 left)
// while block 0 is still being coded, and the output keeps the blocks'
// order. A pool that made the caller wait for the oldest block once two
// were in flight left a core idle behind a slow block (issue 26 point
// 7: `a x.tar.gz` of a source tree).
func TestBlockPoolRunsAhead(t *testing.T) {
	const size = 64
	release := make(chan struct{})
	sawTwo := make(chan struct{})
	var out bytes.Buffer
	p := newBlockPool(&out, 2, size, 8, func() blockCoder { return &gateCoder{release: release, sawTwo: sawTwo} })
	var want []byte
	for k := range 4 {
		want = append(want, bytes.Repeat([]byte{byte(k)}, size)...)
	}
	done := make(chan error, 1)
	go func() {
		if err := p.write(want); err != nil {
			done <- err
			return
		}
		done <- p.close()
	}()
	select {
	case <-sawTwo:
	case <-time.After(30 * time.Second):
		t.Error("block 2 was not coded while block 0 was")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("output is %d bytes, not the %d blocks' %d in order", out.Len(), 4, len(want))
	}
}
