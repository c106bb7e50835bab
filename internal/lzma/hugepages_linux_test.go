package lzma

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
)

// hugePage is the size of a transparent huge page.
const hugePage = hugemem.PageSize

// TestBlockStreamHugePages checks that the streaming encoder of the fast
// levels asks for transparent huge pages for its hash-chain tables (at
// level 1 1 MiB each, together one huge page from a huge-page boundary)
// and its window: the memory mappings that hold them must be eligible
// for huge pages (in the kernel's "madvise" mode only advised ones are).
func TestBlockStreamHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skip("transparent huge pages are not available")
	}
	for _, level := range []int{1, 2} {
		t.Run(fmt.Sprintf("mx%d", level), func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter2(&out, LevelOptions(level))
			if err != nil {
				t.Fatal(err)
			}
			if w.stream == nil {
				t.Fatal("Writer2 does not stream its blocks")
			}
			data := make([]byte, 6<<20) // more than the window: the encoder starts
			rand.New(rand.NewSource(1)).Read(data)
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			e := w.stream.e
			if e == nil {
				t.Fatal("no encoder after a write larger than the window")
			}
			for _, tbl := range []struct {
				name string
				p    unsafe.Pointer
				size int
			}{
				{"main table", unsafe.Pointer(unsafe.SliceData(e.mf.hash4)), 4 * len(e.mf.hash4)},
				{"chain", unsafe.Pointer(unsafe.SliceData(e.mf.son)), 4 * len(e.mf.son)},
				{"window", unsafe.Pointer(unsafe.SliceData(w.stream.win)), len(w.stream.win)},
			} {
				if !thpEligible(t, uintptr(tbl.p)) {
					t.Errorf("the %s (%d KiB) is not eligible for huge pages", tbl.name, tbl.size>>10)
				}
			}
			if a := uintptr(unsafe.Pointer(unsafe.SliceData(e.mf.hash4))); a%hugePage != 0 {
				t.Errorf("the tables start at %#x, not at a huge page", a)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// thpEligible reports the THPeligible field of the mapping of this
// process that holds addr (/proc/self/smaps).
func thpEligible(t *testing.T, addr uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, "-") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "THPeligible:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "THPeligible:")) == "1"
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return false
}

// TestHugeBytes checks hugeBytes: n zero bytes, from a huge-page boundary
// from half a huge page on, advised for huge pages over the whole pages
// and a last part of at least half a page, and plain slices below half a
// page.
func TestHugeBytes(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skip("transparent huge pages are not available")
	}
	for _, n := range []int{100, hugePage/2 - 1, hugePage / 2, hugePage + 4, hugePage + hugePage/2, 3*hugePage + 1000} {
		b := hugeBytes(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("hugeBytes(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("hugeBytes(%d)[%d] = %d", n, i, v)
			}
		}
		a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if n < hugePage/2 {
			continue // a plain slice, which may land on a boundary by chance
		}
		if a%hugePage != 0 {
			t.Errorf("hugeBytes(%d) at %#x: not on a huge-page boundary", n, a)
		}
		if !thpEligible(t, a) {
			t.Errorf("hugeBytes(%d): the first page is not eligible for huge pages", n)
		}
		// (A last part too small to advise may still share a mapping
		// with an advised neighbour, so only advised parts are checked.)
		last := a + uintptr(n-1)&^(hugePage-1)
		if n%hugePage == 0 || n%hugePage >= hugePage/2 {
			if !thpEligible(t, last) {
				t.Errorf("hugeBytes(%d): the last part (%d bytes) is not eligible for huge pages", n, n%hugePage)
			}
		}
	}
}

// TestMTFinderBuffersHugePage checks that the pipelined finder's batches
// of matches and chunks of candidates lie side by side in one huge page,
// from a huge-page boundary and eligible for huge pages: in pages of 4
// KiB, their first use took up to 384 page faults.
func TestMTFinderBuffersHugePage(t *testing.T) {
	mt := newMTFinder()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mt.batches[0][:1])))
	if base%hugePage != 0 {
		t.Errorf("the first batch starts at %#x, not at a huge page", base)
	}
	type span struct {
		name   string
		lo, hi uintptr
	}
	var spans []span
	for i, b := range mt.batches {
		if len(b) != 0 || cap(b) != mtBatchLen {
			t.Errorf("batch %d: len %d cap %d, want 0 and %d", i, len(b), cap(b), mtBatchLen)
		}
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))
		spans = append(spans, span{fmt.Sprintf("batch %d", i), lo, lo + uintptr(cap(b))*unsafe.Sizeof(match{})})
	}
	for i, h := range mt.heads {
		if len(h) != 0 || cap(h) != mtHeadChunk {
			t.Errorf("chunk %d: len %d cap %d, want 0 and %d", i, len(h), cap(h), mtHeadChunk)
		}
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(h[:1])))
		spans = append(spans, span{fmt.Sprintf("chunk %d", i), lo, lo + uintptr(cap(h))*4})
	}
	for i, s := range spans {
		if s.lo < base || s.hi > base+hugePage {
			t.Errorf("%s at [%#x, %#x) is outside the huge page at %#x", s.name, s.lo, s.hi, base)
		}
		for _, o := range spans[i+1:] {
			if s.lo < o.hi && o.lo < s.hi {
				t.Errorf("%s and %s overlap", s.name, o.name)
			}
		}
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err == nil && !bytes.Contains(mode, []byte("[never]")) && !thpEligible(t, base) {
		t.Errorf("the batches (at %#x) are not eligible for huge pages", base)
	}
}
