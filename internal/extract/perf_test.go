package extract

import (
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// Writing a small file costs few allocations: no os.File (whose poller
// registration and finalizer cost system calls and memory), no FileInfo
// for the existence check, no second stat by os.Rename, no re-examination
// of a directory verified by the previous entry (issue 13).
func TestWriteSmallFileAllocs(t *testing.T) {
	x, err := New(Options{Dest: t.TempDir(), Overwrite: OverwriteAll})
	if err != nil {
		t.Fatal(err)
	}
	e := &archive.Entry{Name: "src/dir/file.txt", Type: archive.TypeFile, Size: -1, ModTime: archiveTime()}
	r := strings.NewReader("")
	allocs := testing.AllocsPerRun(200, func() {
		r.Reset("content\n")
		if err := x.Write(e, r); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per file", allocs)
	if allocs > 12 {
		t.Errorf("%.1f allocations per small file, want at most 12", allocs)
	}
}
