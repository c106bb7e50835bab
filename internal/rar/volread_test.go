package rar

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// manyEntryOptions opens the archives of manyEntryArchives.
var manyEntryOptions = &archive.Options{Password: func() (string, error) { return "pw", nil }}

// countingReaderAt counts the ReadAt calls made on an archive and the
// bytes they asked for.
type countingReaderAt struct {
	ra    io.ReaderAt
	calls int
	bytes int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	c.bytes += int64(len(p))
	return c.ra.ReadAt(p, off)
}

// manyEntryFormats are the archives manyEntryArchives makes; the one
// with encrypted headers has the password "pw".
var manyEntryFormats = []string{"RAR5", "RAR5 -hp", "RAR4", "RAR1.4"}

// manyEntryArchives returns archives of n stored entries of a few bytes
// ("file N\n"), 100 to a directory name, as RAR5 (also with encrypted
// headers), RAR 2.9 and RAR 1.4 write them, with the contents expected
// per entry name.
func manyEntryArchives(n int) (map[string][]byte, map[string]string) {
	want := map[string]string{}
	w := newRAR5Builder().main(0)
	hp := newRAR5Builder().encryptedHeaders("pw", 1).main(0)
	var blocks4, files14 [][]byte
	for i := range n {
		name := fmt.Sprintf("d%04d/f%06d.txt", i/100, i)
		data := []byte(fmt.Sprintf("file %d\n", i))
		want[name] = string(data)
		w.file(name, data, nil)
		hp.file(name, data, nil)
		blocks4 = append(blocks4, rar4File(0, name, 29, 0x30, 0o100644, data, data))
		files14 = append(files14, rar14File(0, name, 0, 0, data, data))
	}
	blocks4 = append(blocks4, rar4End())
	return map[string][]byte{
		"RAR5":     w.end(false).bytes(),
		"RAR5 -hp": hp.end(false).bytes(),
		"RAR4":     rar4Archive(0, blocks4...),
		"RAR1.4":   rar14Archive(0, files14...),
	}, want
}

// TestReadsPerEntry checks that opening and extracting an archive of many
// small stored entries reads the archive a window at a time (encrypted
// headers too): a few dozen ReadAt calls for 5,000 entries, where reading
// each header and each entry's data on its own made three per entry
// (issue 13; four with encrypted headers).
func TestReadsPerEntry(t *testing.T) {
	const n = 5000
	archives, want := manyEntryArchives(n)
	for _, format := range manyEntryFormats {
		t.Run(format, func(t *testing.T) {
			data := archives[format]
			cr := &countingReaderAt{ra: bytes.NewReader(data)}
			r, err := NewReader(cr, int64(len(data)), manyEntryOptions)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := len(r.Entries()); got != n {
				t.Fatalf("%d entries, want %d", got, n)
			}
			opened := cr.calls
			cr.calls, cr.bytes = 0, 0
			got := 0
			err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
				b, err := io.ReadAll(rd)
				if err != nil {
					return err
				}
				if string(b) != want[e.Name] {
					return fmt.Errorf("%s: %q, want %q", e.Name, b, want[e.Name])
				}
				got++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Fatalf("%d entries extracted, want %d", got, n)
			}
			// 4 KiB doubling to 256 KiB: the windows of an archive of
			// S bytes number about log2(256K/4K) + S/256K; reading each header
			// and each entry on its own made 15,000 reads.
			limit := 16 + len(data)/maxWindow
			t.Logf("%d bytes, %d entries: %d reads opening, %d extracting (%d bytes)", len(data), n, opened, cr.calls, cr.bytes)
			if opened > limit {
				t.Errorf("opening made %d reads, want at most %d", opened, limit)
			}
			if cr.calls > limit {
				t.Errorf("extracting made %d reads, want at most %d", cr.calls, limit)
			}
			if cr.bytes > 2*int64(len(data)) {
				t.Errorf("extracting read %d bytes of a %d-byte archive", cr.bytes, len(data))
			}
		})
	}
}

// TestSparseReads checks that the window stays small where it serves one
// item at a time: the headers of an archive of large entries, and a few
// entries picked out of a large archive, cost reads near their size, not
// a full window each.
func TestSparseReads(t *testing.T) {
	t.Run("headers of large entries", func(t *testing.T) {
		const n, size = 20, 300 << 10
		data := storedArchive(n, size)
		cr := &countingReaderAt{ra: bytes.NewReader(data)}
		r, err := NewReader(cr, int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		t.Logf("%d entries of %d bytes: opening read %d bytes in %d calls", n, size, cr.bytes, cr.calls)
		if cr.bytes > n*2*minWindowRead {
			t.Errorf("opening read %d bytes for %d headers", cr.bytes, n)
		}
	})
	t.Run("a few entries", func(t *testing.T) {
		const n, size, picked = 1000, 1000, 10
		data := storedArchive(n, size)
		cr := &countingReaderAt{ra: bytes.NewReader(data)}
		r, err := NewReader(cr, int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cr.calls, cr.bytes = 0, 0
		got := 0
		err = r.Extract(context.Background(), func(e *archive.Entry) bool { return e.Index%(n/picked) == 0 }, func(e *archive.Entry, rd io.Reader) error {
			m, err := io.Copy(io.Discard, rd)
			if m != size {
				return fmt.Errorf("%s: %d bytes, want %d", e.Name, m, size)
			}
			got++
			return err
		})
		if err != nil || got != picked {
			t.Fatalf("%d entries extracted, want %d: %v", got, picked, err)
		}
		t.Logf("%d entries of %d bytes out of %d: read %d bytes in %d calls", picked, size, len(data), cr.bytes, cr.calls)
		if cr.bytes > picked*minWindowRead {
			t.Errorf("read %d bytes for %d entries of %d bytes", cr.bytes, picked, size)
		}
	})
}

// TestVolumeSectionRead checks volumeSection against io.SectionReader's
// behaviour: an empty read is no end, a piece is read whole through
// reads of any size, and a volume shorter than the piece ends it early.
func TestVolumeSectionRead(t *testing.T) {
	vol := bytes.Repeat([]byte("0123456789"), 100)
	r := &reader{vols: []io.ReaderAt{bytes.NewReader(vol)}, sizes: []int64{int64(len(vol))}}
	tests := []struct {
		name      string
		off, size int64
		sizes     []int // read sizes, the last repeated
		want      int64 // bytes before io.EOF
	}{
		{"empty read first", 10, 20, []int{0, 7}, 20},
		{"one byte at a time", 995, 5, []int{1}, 5},
		{"whole", 0, 1000, []int{4096}, 1000},
		{"past the volume", 990, 30, []int{8}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s volumeSection
			s.open(r, &part{offset: tc.off, size: tc.size})
			var got []byte
			for i := 0; ; i++ {
				p := make([]byte, tc.sizes[min(i, len(tc.sizes)-1)])
				n, err := s.Read(p)
				got = append(got, p[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 && len(p) > 0 {
					t.Fatalf("read %d: no bytes and no error", i)
				}
			}
			end := min(tc.off+tc.size, int64(len(vol)))
			if int64(len(got)) != tc.want || !bytes.Equal(got, vol[tc.off:end]) {
				t.Errorf("read %d bytes (%q...), want %d of the volume from %d", len(got), got[:min(len(got), 10)], tc.want, tc.off)
			}
		})
	}
}
