package bzip2

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
	"github.com/garc-dev/garc/internal/testenv"
)

// hugePageSize is the size of a transparent huge page.
const hugePageSize = hugemem.PageSize

// TestHugeBlockMem checks that the buffers of a level 9 block from
// blockMem (huge) lie one after the other in three huge pages from a
// huge-page boundary, do not overlap, have the sizes asked for, and are
// zeroed; and that ensure gives a large level 9 block such buffers and a
// small or level 5 one plain ones.
func TestHugeBlockMem(t *testing.T) {
	const n = 900000
	owner, tt, pre, scratch := blockMem(n, true)
	if owner == nil {
		t.Error("no mapping owns the buffers")
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(tt)))
	if base%hugePageSize != 0 {
		t.Errorf("tt at %#x, not on a huge-page boundary", base)
	}
	if len(tt) != n || len(pre) != n || cap(pre) != n || len(scratch) != lanes*laneRegion(n) || cap(scratch) != len(scratch) {
		t.Errorf("lengths tt %d, pre %d (cap %d), scratch %d (cap %d)", len(tt), len(pre), cap(pre), len(scratch), cap(scratch))
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(pre)))
	s := uintptr(unsafe.Pointer(unsafe.SliceData(scratch)))
	if p != base+4*n || s != p+n || s+uintptr(len(scratch)) > base+3*hugePageSize {
		t.Errorf("tt at %#x, pre at +%d, scratch at +%d to +%d: want them in a row within three huge pages", base, p-base, s-base, s+uintptr(len(scratch))-base)
	}
	for i, v := range tt {
		if v != 0 {
			t.Fatalf("tt[%d] = %d", i, v)
		}
	}
	for i, v := range append(pre, scratch...) {
		if v != 0 {
			t.Fatalf("byte %d of pre and scratch is %d", i, v)
		}
	}

	for _, c := range []struct {
		size  int
		large bool
		huge  bool
	}{{900000, true, true}, {900000, false, false}, {500000, true, false}} {
		var b blockBuf
		b.ensure(c.size, c.large)
		if b.huge != c.huge || len(b.tt) < c.size || len(b.pre) < c.size || len(b.scratch) < lanes*laneRegion(c.size) {
			t.Errorf("ensure(%d, %v): huge %v, tt %d, pre %d, scratch %d", c.size, c.large, b.huge, len(b.tt), len(b.pre), len(b.scratch))
		}
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(b.tt))); c.huge && a%hugePageSize != 0 {
			t.Errorf("ensure(%d, %v): tt at %#x", c.size, c.large, a)
		}
	}
}

// TestParallelWindowHugePages: a parallel Reader's window, once the first
// one (1 MiB) is full, is laid out for huge pages: reading 2 MB of input
// into new 4 KiB pages took a page fault per 4 KiB.
func TestParallelWindowHugePages(t *testing.T) {
	text := randomBytes(2000000, 44)
	comp := compressWithTool(t, text, 9)
	z := NewReaderThreads(bytes.NewReader(comp), 2)
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if z.par.gen == 0 || !testenv.InHugePages(z.par.win) {
		t.Errorf("window %d from offset %d, %d bytes of %d: want a later window on huge pages", z.par.gen, z.par.base, len(z.par.win), cap(z.par.win))
	}
}

// TestParallelSmallFirstWindow: a parallel Reader's first window is one
// read (inBufSize) from the heap, and a stream longer than that goes on
// in a window on huge pages outside the heap: 600 KB of input in a first
// window of 1 MiB from the heap took a page fault per 4 KiB (150).
func TestParallelSmallFirstWindow(t *testing.T) {
	text := randomBytes(600000, 48)
	comp := compressWithTool(t, text, 9)
	z := NewReaderThreads(bytes.NewReader(comp), 2)
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if z.par.base != 0 || z.par.winMem == nil || !testenv.InHugePages(z.par.win) {
		t.Errorf("window %d from offset %d, %d bytes of %d, owned by a mapping: %v; want the whole input in a window on huge pages", z.par.gen, z.par.base, len(z.par.win), cap(z.par.win), z.par.winMem != nil)
	}
	z.Close()

	small := compressWithTool(t, text[:20000], 9)
	z = NewReaderThreads(bytes.NewReader(small), 2)
	if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, text[:20000]) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if cap(z.par.win) != inBufSize || z.par.winMem != nil {
		t.Errorf("a small stream's window: %d bytes, owned by a mapping: %v", cap(z.par.win), z.par.winMem != nil)
	}
	z.Close()
}

// TestBlockMemOffHeap checks that a level 9 block's buffers lie outside
// the Go heap, a large block's and a small one's (their 6 MB, 8 with the
// alignment's slack, started a collection in a run of a 4 MiB stream, a
// small one's in a run of a one-block stream with two threads), and that
// they stay mapped while a Reader uses them: a parallel decode that
// collects garbage at every read, so that the mappings of buffers no
// longer held are unmapped (their owners' cleanups), gives the text.
func TestBlockMemOffHeap(t *testing.T) {
	for _, large := range []bool{true, false} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var b blockBuf
		b.ensure(900000, large)
		runtime.ReadMemStats(&after)
		if grew := after.HeapAlloc - before.HeapAlloc; grew > 1<<20 || b.mem == nil {
			t.Errorf("a level 9 block's buffers (large %v) took %d bytes of the heap, owned by a mapping: %v", large, grew, b.mem != nil)
		}
		runtime.KeepAlive(&b)
	}

	text := append(textBytes(1500000, 45), randomBytes(1500000, 46)...)
	comp := compressWithTool(t, text, 9)
	for _, threads := range []int{1, 2} {
		z := NewReaderThreads(bytes.NewReader(comp), threads)
		var got []byte
		buf := make([]byte, 300000)
		for {
			n, err := z.Read(buf)
			got = append(got, buf[:n]...)
			runtime.GC()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("threads %d: %v", threads, err)
			}
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("threads %d: %d bytes, want %d (or different ones)", threads, len(got), len(text))
		}
		z.Close()
	}
}

// TestParallelWindowOffHeap: the windows of a parallel Reader after the
// first (1 MiB) are mapped outside the Go heap, as the blocks' buffers
// are: on the heap those of a 3 MB stream took 4 MB and more (with the
// alignment's slack) and started a collection in a run of garc.
func TestParallelWindowOffHeap(t *testing.T) {
	text := randomBytes(3000000, 47)
	comp := compressWithTool(t, text, 9)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	z := NewReaderThreads(bytes.NewReader(comp), 2)
	n, err := io.Copy(io.Discard, z)
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(len(text)) {
		t.Fatalf("%d bytes, %v", n, err)
	}
	if z.par.gen == 0 || z.par.winMem == nil {
		t.Fatalf("window %d, owned by a mapping: %v", z.par.gen, z.par.winMem != nil)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 3<<20 {
		t.Errorf("decoding took %d bytes of the heap", grew)
	}
	z.Close()
}
