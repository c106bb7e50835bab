package rar

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// exercise opens data as an archive and extracts everything with bounded
// output, for corrupt-input tests and fuzzing. It must never panic.
func exercise(data []byte) {
	calls := 0
	opts := &archive.Options{
		MaxDict:    4 << 20,
		MaxKDFCost: 4, // keep fuzzing fast: real archives use 15
		Password: func() (string, error) {
			calls++
			return "password", nil
		},
	}
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return
	}
	defer r.Close()
	for _, e := range r.Entries() {
		_ = e.Name
	}
	_ = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		_, err := io.Copy(io.Discard, io.LimitReader(rd, 8<<20))
		_ = err
		return nil
	})
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
			h, err := r.readHeader5(0, pos, nil)
			if err != nil {
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
			b, err := r.readBlock4(0, pos, false)
			if err != nil {
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
		t.Skip("no corpus")
	}
	cases := 0
	for _, data := range seeds {
		for _, off := range headerBoundaries(data) {
			for _, d := range []int{-1, 0, 7} {
				if n := off + d; n > 0 && n < len(data) {
					exercise(data[:n])
					cases++
				}
			}
			for _, d := range []int{0, 5, 12} {
				if n := off + d; n < len(data) {
					c := bytes.Clone(data)
					c[n] ^= 0x55
					exercise(c)
					cases++
					if !testing.Short() {
						c[n] = 0xff
						exercise(c)
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
		exercise(data)
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
		exercise(data)
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
		exercise(data)
	})
}
