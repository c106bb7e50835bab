package tar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// oldGNUSparse is an old GNU sparse entry (type 'S'): the map's first
// four segments in the header, the others in extension blocks of 21,
// then data (the segments' bytes in order).
func oldGNUSparse(name string, realSize int64, segs [][2]int64, data string) []byte {
	field := func(v int64) string {
		if v < 1<<33 {
			return fmt.Sprintf("%011o\x00", v)
		}
		b := make([]byte, 12) // base-256, as GNU tar writes large numbers
		b[0] = 0x80
		for i := 11; i > 0; i, v = i-1, v>>8 {
			b[i] = byte(v)
		}
		return string(b)
	}
	at := map[int]string{483: field(realSize)}
	for i := 0; i < 4 && i < len(segs); i++ {
		at[386+24*i] = field(segs[i][0]) + field(segs[i][1])
	}
	if len(segs) > 4 {
		at[482] = "\x01"
	}
	b := rawHeader{name: name, typeflag: 'S', magic: "ustar  \x00", data: data, at: at}.bytes()
	out := append([]byte(nil), b[:blockSize]...)
	for rest := segs[min(4, len(segs)):]; len(rest) > 0; {
		ext := make([]byte, blockSize)
		k := min(21, len(rest))
		for i := 0; i < k; i++ {
			copy(ext[24*i:], field(rest[i][0])+field(rest[i][1]))
		}
		if rest = rest[k:]; len(rest) > 0 {
			ext[504] = 1
		}
		out = append(out, ext...)
	}
	return append(out, b[blockSize:]...)
}

// skimSparse reads a sparse entry's content as the extractor does, its
// holes skipped (archive.HoleSkipper) and its data read, and returns the
// data as "OFFSET:BYTES" runs and the bytes skipped; it fails when the
// reader cannot skip holes, or when a read returns more than 1 MiB of
// the entry (the holes would then be read).
func skimSparse(rd io.Reader) (runs []string, skipped int64, err error) {
	hs, ok := rd.(archive.HoleSkipper)
	if !ok {
		return nil, 0, errors.New("the reader does not skip holes")
	}
	var pos, read int64
	buf := make([]byte, 64<<10)
	for {
		n, err := hs.SkipHole()
		if err != nil {
			return runs, skipped, err
		}
		pos += n
		skipped += n
		k, err := rd.Read(buf)
		if k > 0 {
			runs = append(runs, fmt.Sprintf("%d:%s", pos, buf[:k]))
			pos += int64(k)
			if read += int64(k); read > 1<<20 {
				return runs, skipped, errors.New("more than 1 MiB read")
			}
		}
		if err == io.EOF {
			return runs, skipped, nil
		}
		if err != nil {
			return runs, skipped, err
		}
	}
}

// TestSparseHolesSkipped: the content reader of a sparse entry of 1 TiB
// (old GNU, pax 0.1 and pax 1.0 maps) skips its holes without producing
// them (archive.HoleSkipper), so that extracting or testing it costs the
// data and the map; garc produced every zero of the holes (4 min 24 s).
func TestSparseHolesSkipped(t *testing.T) {
	const tib = int64(1) << 40
	segs := [][2]int64{{0, 4}, {1 << 30, 6}, {tib - 4, 4}}
	data := "headmiddletail"
	mapText := fmt.Sprintf("3\n0\n4\n%d\n6\n%d\n4\n", int64(1)<<30, tib-4)
	for _, c := range []struct {
		name string
		tar  []byte
	}{
		{"old GNU", oldGNUSparse("sp", tib, segs, data)},
		{"pax 0.1", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.map", fmt.Sprintf("0,4,%d,6,%d,4", int64(1)<<30, tib-4)) +
			paxRecord("GNU.sparse.size", fmt.Sprint(tib)) + paxRecord("path", "sp")}.bytes(), rawHeader{name: "x", typeflag: '0', data: data}.bytes())},
		{"pax 1.0", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") +
			paxRecord("GNU.sparse.name", "sp") + paxRecord("GNU.sparse.realsize", fmt.Sprint(tib))}.bytes(),
			rawHeader{name: "x", typeflag: '0', data: mapText + strings.Repeat("\x00", blockSize-len(mapText)) + data}.bytes())},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := openBytes("t.tar", tarOf(c.tar, make([]byte, 2*blockSize)), nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
				n++
				runs, skipped, err := skimSparse(rd)
				if got := strings.Join(runs, " "); e.Name != "sp" || e.Size != tib || !e.IsSparse() || err != nil ||
					got != fmt.Sprintf("0:head %d:middle %d:tail", int64(1)<<30, tib-4) || skipped != tib-14 {
					t.Errorf("%q size %d sparse %v: data %q, %d skipped, %v", e.Name, e.Size, e.IsSparse(), got, skipped, err)
				}
				return nil
			})
			if err != nil || n != 1 {
				t.Fatalf("%d entries, %v", n, err)
			}
		})
	}
}

// TestSparseMapCharged: a sparse map is charged to the run's memory
// budget (Options.Memory), which the decoders and other archives share,
// while it is held, and given back after its entry: a map that does not
// fit what the budget has free is refused (exit 8) instead of being held
// beside it (garc checked it against the whole limit alone, and its
// array's growth not at all: 2.4–2.9 GB under --max-dict 1g). Segments
// that continue one another are merged (a map of 20,000 adjacent
// segments takes one entry, and fits a budget its 320 KB would not).
func TestSparseMapCharged(t *testing.T) {
	const n = 20000
	var spread, adjacent [][2]int64
	for i := int64(0); i < n; i++ {
		spread = append(spread, [2]int64{2 * i, 1})
		adjacent = append(adjacent, [2]int64{i, 1})
	}
	data := strings.Repeat("d", n)
	for _, c := range []struct {
		name    string
		tar     []byte
		limit   int64
		taken   int64 // of the budget, before the archive is read
		limited bool
	}{
		{"spread map beside other holdings", oldGNUSparse("sp", 2*n, spread, data), 1 << 20, 700 << 10, true},
		{"spread map alone", oldGNUSparse("sp", 2*n, spread, data), 1 << 20, 0, false},
		{"adjacent segments merged", oldGNUSparse("sp", n, adjacent, data), 256 << 10, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := archive.NewMemoryBudget(c.limit)
			mem.ForceAcquire(c.taken)
			b := tarOf(c.tar, rawHeader{name: "f", typeflag: '0', data: "x"}.bytes(), make([]byte, 2*blockSize))
			r, err := Open(bytes.NewReader(b), int64(len(b)), 0, &archive.Options{Name: "t.tar", MaxDict: c.limit, Memory: mem})
			if err == nil {
				_, err = extracted(r)
				if err == nil && r.Err() != nil {
					err = r.Err()
				}
				r.Close()
			}
			if got := errors.Is(err, archive.ErrLimit); got != c.limited {
				t.Errorf("error %v; want a limit error: %v", err, c.limited)
			}
			if c.limited && !strings.Contains(fmt.Sprint(err), "memory for a sparse map") {
				t.Errorf("error %v does not name the sparse map", err)
			}
			if in := mem.InUse(); in != c.taken {
				t.Errorf("%d bytes still charged after Close, want %d", in, c.taken)
			}
		})
	}
}

// TestEntryListCharged: the entry list is charged to the run's memory
// budget, not checked against the limit alone: 1,000 entries do not fit
// beside 900 KiB of other holdings in a budget of 1 MiB (exit 8), and
// Close gives their charge back, also after the list failed (Entries,
// Err).
func TestEntryListCharged(t *testing.T) {
	var parts [][]byte
	for i := 0; i < 1000; i++ {
		parts = append(parts, rawHeader{name: fmt.Sprintf("f%04d", i), typeflag: '0'}.bytes())
	}
	b := tarOf(append(parts, make([]byte, 2*blockSize))...)
	for _, taken := range []int64{900 << 10, 0} {
		mem := archive.NewMemoryBudget(1 << 20)
		mem.ForceAcquire(taken)
		r, err := Open(bytes.NewReader(b), int64(len(b)), 0, &archive.Options{Name: "t.tar", MaxDict: 1 << 20, Memory: mem})
		if err != nil {
			t.Fatal(err)
		}
		r.Entries()
		err = r.Err()
		limited := errors.Is(err, archive.ErrLimit) && strings.Contains(fmt.Sprint(err), "memory for the entry list")
		if limited != (taken > 0) {
			t.Errorf("%d bytes taken: error %v", taken, err)
		}
		if err == nil {
			if len(r.Entries()) != 1000 {
				t.Errorf("%d entries", len(r.Entries()))
			}
			if mem.InUse() <= 1000*entryCost {
				t.Errorf("%d bytes charged for 1,000 entries", mem.InUse())
			}
		}
		r.Close()
		if in := mem.InUse(); in != taken {
			t.Errorf("%d bytes still charged after Close, want %d", in, taken)
		}
	}
}

// TestSparseMapChunks: a map of more entries than one chunk holds
// (sparseChunk) is read, checked and expanded across its chunks; one out
// of order is refused at its first misplaced segment, before the rest is
// read or held (garc read on to the memory limit, then found the order
// wrong: 2.9 GB and 75 s for a 590 KB .tar.zst under --max-dict 1g).
func TestSparseMapChunks(t *testing.T) {
	const n = sparseChunk + 5000
	var segs [][2]int64
	var want []string
	for i := int64(0); i < n; i++ {
		segs = append(segs, [2]int64{3 * i, 1})
		want = append(want, fmt.Sprintf("%d:%c", 3*i, 'a'+i%26))
	}
	var data strings.Builder
	for i := 0; i < n; i++ {
		data.WriteByte(byte('a' + i%26))
	}
	disordered := append([][2]int64{{0, 1}, {10, 1}, {5, 1}}, segs[4:]...)
	for _, c := range []struct {
		name  string
		tar   []byte
		limit int64
		err   string // "" for none
	}{
		// The budget holds the map's two chunks (2 MiB).
		{"in order", oldGNUSparse("sp", 3*n, segs, data.String()), 3 << 20, ""},
		// Not the map: the order is wrong before the memory runs out.
		{"out of order", oldGNUSparse("sp", 3*n, disordered, data.String()[:n-1]), 512 << 10, "invalid sparse map"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := archive.NewMemoryBudget(c.limit)
			b := tarOf(c.tar, make([]byte, 2*blockSize))
			r, err := Open(bytes.NewReader(b), int64(len(b)), 0, &archive.Options{Name: "t.tar", Memory: mem})
			if err == nil {
				err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
					runs, skipped, err := skimSparse(rd)
					if err != nil || skipped != 3*n-n || len(runs) != n {
						t.Errorf("%d runs, %d skipped, %v", len(runs), skipped, err)
					}
					for i, r := range runs {
						if r != want[i] {
							t.Fatalf("run %d: %q, want %q", i, r, want[i])
						}
					}
					return nil
				})
				r.Close()
			}
			if c.err == "" && err != nil || c.err != "" && (!errors.Is(err, archive.ErrFormat) || !strings.Contains(fmt.Sprint(err), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if in := mem.InUse(); in != 0 {
				t.Errorf("%d bytes still charged", in)
			}
		})
	}
}
