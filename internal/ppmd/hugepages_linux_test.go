package ppmd

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
)

// hugePageSize is the size of a transparent huge page.
const hugePageSize = hugemem.PageSize

// TestNewArenaAligned checks that an arena of two huge pages or more starts
// on a huge-page boundary (so that madvise can back all of it with huge
// pages) and has exactly the size asked for, and that a small one is a
// plain slice of that size.
func TestNewArenaAligned(t *testing.T) {
	for _, size := range []uint32{MinMemSize, 2*hugePageSize - 1, 2 * hugePageSize, 16<<20 + 12, 24 << 20} {
		_, b := newArena(size)
		if len(b) != int(size) || cap(b) != int(size) {
			t.Errorf("size %d: len %d cap %d", size, len(b), cap(b))
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if size >= 2*hugePageSize && addr%hugePageSize != 0 {
			t.Errorf("size %d: arena at %#x, not on a %d-byte boundary", size, addr, hugePageSize)
		}
		for i, v := range b[len(b)-64:] {
			if v != 0 {
				t.Fatalf("size %d: byte %d is %d, want 0", size, len(b)-64+i, v)
			}
		}
	}
}

// TestArenaOffHeap checks that an arena of two huge pages or more is
// mapped outside the Go heap, so that it starts no garbage collection
// (7z's default 16 MiB arena from the heap started one in every run of a
// 4 MiB stream), that Reset reuses it, and that a stream decodes right
// with collections between its reads (the mapping must stay while the
// Reader7z does).
func TestArenaOffHeap(t *testing.T) {
	const memSize = 16 << 20
	data := mixedData(300000)
	packed := encode7z(t, data, 6, memSize, false)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := NewReader7z(bytes.NewReader(packed), 6, memSize, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("a Reader7z with a %d-byte arena took %d bytes of the heap", memSize, grew)
	}
	if d.m.arena == nil {
		t.Fatal("the arena has no mapping")
	}
	arena := unsafe.SliceData(d.m.mem)
	for round := range 2 {
		if round > 0 {
			if err := d.Reset(bytes.NewReader(packed), 6, memSize, int64(len(data))); err != nil {
				t.Fatal(err)
			}
			if unsafe.SliceData(d.m.mem) != arena {
				t.Error("Reset allocated a new arena")
			}
		}
		var got []byte
		buf := make([]byte, 50000)
		for {
			n, err := d.Read(buf)
			got = append(got, buf[:n]...)
			runtime.GC()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("round %d: %d bytes, want %d (or different ones)", round, len(got), len(data))
		}
	}
}
