package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/collect"
	"github.com/garc-dev/garc/internal/tar"
)

// TestWriteTarItemHeap checks that writing the files of a tree into a
// tar allocates little per file: the content goes through the one
// buffer createTar gives writeTarItem, not a buffer per file (io.CopyN
// took 32 KiB for each, which a source tree of thousands of files turned
// into garbage collections), and the entry's owner, links and blocks
// come from collect's stat.
func TestWriteTarItemHeap(t *testing.T) {
	dir := t.TempDir()
	const files, size = 64, 40 << 10
	data := make([]byte, size)
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	items, err := collect.Collect(collect.Options{Inputs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	o := &CreateOptions{StoreMTime: true}
	tw := tar.NewWriter(io.Discard)
	links := map[fileKey]string{}
	owners := &ownerNames{}
	buf := make([]byte, tarCopyBuffer)
	var done int64
	write := func() {
		for i := range items {
			if _, err := writeTarItem(context.Background(), tw, &items[i], o, links, owners, &done, nil, buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	write() // the owner names are looked up once
	clear(links)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	write()
	runtime.ReadMemStats(&after)
	if done != 2*files*size {
		t.Fatalf("%d bytes read, want %d", done, 2*files*size)
	}
	if perFile := (after.TotalAlloc - before.TotalAlloc) / uint64(len(items)); perFile > 1024 {
		t.Errorf("%d bytes allocated per file, want at most 1 KiB", perFile)
	}
}
