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
)

// TestBlockStreamHugePages checks that the streaming encoder of the fast
// levels asks for transparent huge pages for its hash-chain tables,
// which at level 1 (1 MiB each) are smaller than a huge page pair, so
// adviseHugePages must round their range outwards: the memory mappings
// that hold them must be eligible for huge pages (in the kernel's
// "madvise" mode only advised ones are).
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
				s    []uint32
			}{{"main table", e.mf.hash4}, {"chain", e.mf.son}} {
				if !thpEligible(t, uintptr(unsafe.Pointer(unsafe.SliceData(tbl.s)))) {
					t.Errorf("the %s (%d KiB) is not eligible for huge pages", tbl.name, cap(tbl.s)*4>>10)
				}
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
