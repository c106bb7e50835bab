package rar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// checkSentinel fails t when err is neither nil nor wraps an archive
// sentinel: every failure on hostile input must be classified, or the
// command line cannot give it an exit code.
func checkSentinel(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil || archive.HasSentinel(err) {
		return
	}
	t.Fatalf("%s: error %q (%T) wraps no archive sentinel", what, err, err)
}

// Bounds of exercise: output of an entry of unknown size, and reads in a
// row that return nothing without an error (a reader stuck there would
// hang io.Copy).
const (
	exerciseUnknownSizeCap = 8 << 20
	exerciseMaxEmptyReads  = 100
)

// exercise opens data as an archive and extracts everything, checking
// what must hold for any input: no panic; every error wraps an archive
// sentinel; Extract calls back at most once per entry; no entry yields
// more bytes than its declared size, nor a file fewer without an error; every
// read makes progress or ends.
func exercise(t testing.TB, data []byte) {
	t.Helper()
	opts := &archive.Options{
		MaxDict:    4 << 20,
		MaxKDFCost: 4, // keep fuzzing fast: real archives use 15
		Password:   func() (string, error) { return "password", nil },
	}
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		checkSentinel(t, "NewReader", err)
		return
	}
	defer r.Close()
	entries := r.Entries()
	for _, e := range entries {
		if e.Size < -1 {
			t.Fatalf("entry %q: size %d", e.Name, e.Size)
		}
	}
	calls := 0
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		calls++
		if calls > len(entries) {
			t.Fatalf("Extract called back %d times for %d entries", calls, len(entries))
		}
		limit := int64(exerciseUnknownSizeCap)
		if e.Size >= 0 {
			limit = e.Size
		}
		n, err := readBounded(rd, limit)
		if n > limit && e.Size >= 0 {
			t.Fatalf("entry %q yields more than its size %d", e.Name, e.Size)
		}
		switch {
		case err == errNoProgress:
			t.Fatalf("entry %q: %d reads in a row returned nothing", e.Name, exerciseMaxEmptyReads)
		case err != nil:
			checkSentinel(t, "entry "+e.Name, err)
		case e.Type == archive.TypeFile && e.Size >= 0 && n != e.Size:
			t.Fatalf("entry %q ends cleanly after %d of its %d bytes", e.Name, n, e.Size)
		}
		return nil
	})
	checkSentinel(t, "Extract", err)
}

var errNoProgress = errors.New("no progress")

// readBounded reads rd to its end or until more than limit bytes came,
// and returns how many bytes it read and the error that ended the read
// (nil at EOF).
func readBounded(rd io.Reader, limit int64) (int64, error) {
	var buf [32 << 10]byte
	var n int64
	empty := 0
	for n <= limit {
		k, err := rd.Read(buf[:])
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if k == 0 {
			if empty++; empty >= exerciseMaxEmptyReads {
				return n, errNoProgress
			}
		} else {
			empty = 0
		}
	}
	return n, nil
}

// seedFiles returns small corpus archives of the given signature.
func seedFiles(tb testing.TB, sig []byte, maxSize int64) [][]byte {
	root, ok := corpus.Root()
	if !ok {
		return nil
	}
	units, err := corpus.Units(root)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, u := range units {
		if !isRARFormat(u.Format) || u.Kind != "single" {
			continue
		}
		p := filepath.Join(root, u.Unit)
		st, err := os.Stat(p)
		if err != nil || st.Size() > maxSize {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, sig) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// headerBoundaries returns the offsets where headers start, found by
// walking the archive with the real parser.
func headerBoundaries(data []byte) []int {
	var offs []int
	r := &reader{vols: []io.ReaderAt{bytes.NewReader(data)}, sizes: []int64{int64(len(data))}}
	switch {
	case bytes.HasPrefix(data, sigRAR5):
		pos := int64(len(sigRAR5))
		for pos < int64(len(data)) {
			offs = append(offs, int(pos))
			var h header5
			if err := r.readHeader5(0, pos, nil, &h); err != nil {
				break
			}
			if h.dataSize > 0 {
				offs = append(offs, int(h.dataOff), int(h.dataOff+h.dataSize/2))
			}
			pos = h.next
		}
	case bytes.HasPrefix(data, sigRAR4):
		pos := int64(len(sigRAR4))
		for pos < int64(len(data)) {
			offs = append(offs, int(pos))
			var b block4
			if err := r.readBlock4(0, pos, false, &b); err != nil {
				break
			}
			if b.dataSize > 0 {
				offs = append(offs, int(b.dataOff), int(b.dataOff+b.dataSize/2))
			}
			pos = b.next
		}
	}
	return offs
}

// TestCorruptInputs truncates corpus archives at every header boundary
// (and just around it) and flips bytes in the headers; nothing may panic.
func TestCorruptInputs(t *testing.T) {
	seeds := append(seedFiles(t, sigRAR5, 64<<10), seedFiles(t, sigRAR4, 64<<10)...)
	if len(seeds) == 0 {
		testenv.Missing(t, "the shared corpus's small RAR archives")
	}
	cases := 0
	for _, data := range seeds {
		for _, off := range headerBoundaries(data) {
			for _, d := range []int{-1, 0, 7} {
				if n := off + d; n > 0 && n < len(data) {
					exercise(t, data[:n])
					cases++
				}
			}
			for _, d := range []int{0, 5, 12} {
				if n := off + d; n < len(data) {
					c := bytes.Clone(data)
					c[n] ^= 0x55
					exercise(t, c)
					cases++
					if !testing.Short() {
						c[n] = 0xff
						exercise(t, c)
						cases++
					}
				}
			}
		}
	}
	if cases < 100 {
		t.Errorf("only %d corrupt cases", cases)
	}
}

func FuzzRAR5Headers(f *testing.F) {
	for _, s := range seedFiles(f, sigRAR5, 16<<10) {
		f.Add(s)
	}
	f.Add(append(bytes.Clone(sigRAR5), 0, 0, 0, 0, 1, 1, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, sigRAR5) {
			data = append(bytes.Clone(sigRAR5), data...)
		}
		exercise(t, data)
	})
}

func FuzzRAR4Headers(f *testing.F) {
	for _, s := range seedFiles(f, sigRAR4, 16<<10) {
		f.Add(s)
	}
	f.Add(append(bytes.Clone(sigRAR4), 0, 0, 0x73, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, sigRAR4) {
			data = append(bytes.Clone(sigRAR4), data...)
		}
		exercise(t, data)
	})
}

func FuzzRAR14Headers(f *testing.F) {
	for _, s := range seedFiles(f, sigRAR14, 16<<10) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, sigRAR14) {
			data = append(bytes.Clone(sigRAR14), data...)
		}
		exercise(t, data)
	})
}
