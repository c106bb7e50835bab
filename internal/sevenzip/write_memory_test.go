package sevenzip

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestUpdateMemoryPerEntry bounds what the writer allocates per entry of
// the archive it updates, beyond what reading the base archive takes: a
// base with many entries (issue 11.5: 4,000,000 empty entries in a few
// KB) must not be copied over and over.
func TestUpdateMemoryPerEntry(t *testing.T) {
	testenv.Short(t, "writes and updates an archive of 200,000 entries")
	const n = 200000
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	base := make([]WriteItem, n)
	for i := range base {
		base[i] = WriteItem{Name: fmt.Sprintf("d/e%07d", i), Type: archive.TypeFile, ModTime: t0}
	}
	var old memOutput
	if _, err := Write(context.Background(), &old, base, &WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	add := []WriteItem{{Name: "new.txt", Size: 3, ModTime: t0, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader([]byte("new"))), nil
	}}}
	allocated := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	reading := allocated(func() {
		if _, err := newReader(bytes.NewReader(old.b), int64(len(old.b)), &archive.Options{}); err != nil {
			t.Fatal(err)
		}
	})
	var out memTarget
	updating := allocated(func() {
		if _, err := Update(context.Background(), &out, &Existing{bytes.NewReader(old.b), int64(len(old.b))},
			&Changes{Add: add}, &WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	perEntry := (float64(updating) - float64(reading)) / n
	t.Logf("reading %d bytes, updating %d bytes: %.0f bytes per entry beyond reading", reading, updating, perEntry)
	if perEntry > 400 {
		t.Errorf("the writer allocates %.0f bytes per base entry beyond reading it, want at most 400", perEntry)
	}
}

// TestWriteReusesFolderEncoders: folders smaller than the dictionary get
// encoders sized to them, and folders of the same size class reuse those
// encoders instead of allocating new ones for each folder.
func TestWriteReusesFolderEncoders(t *testing.T) {
	const folders, size = 24, 200 << 10
	var files []testFile
	for i := range folders {
		files = append(files, testFile{name: fmt.Sprintf("f%02d.txt", i), data: pseudoText(uint64(i), size), mode: 0o100644})
	}
	for _, c := range []struct {
		name string
		opts WriteOptions
	}{
		{"lzma2-mt1", WriteOptions{Level: 5, Threads: 1, Solid: SolidOptions{Off: true}}},
		{"lzma2-mt2", WriteOptions{Level: 5, Threads: 2, Solid: SolidOptions{Off: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			its := items(files)
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			var out memOutput
			if _, err := Write(context.Background(), &out, its, &c.opts); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&m1)
			perFolder := float64(m1.TotalAlloc-m0.TotalAlloc) / folders
			t.Logf("%.0f bytes allocated per %d-byte folder", perFolder, size)
			// An encoder for a 256 KiB dictionary takes about 3 MiB; made
			// once per thread, it costs a few hundred KiB per folder.
			if perFolder > 1<<20 {
				t.Errorf("%.0f bytes allocated per folder, want at most 1 MiB", perFolder)
			}
			ents, data := readBack(t, out.b, "")
			checkTree(t, files, ents, data)
		})
	}
}
