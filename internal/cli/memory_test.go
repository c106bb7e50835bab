package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/opener"
)

// TestArchivesShareOneMemoryBudget: every archive of one run is opened
// with the same archive.MemoryBudget of --max-dict bytes (issue 11.4), and
// the garbage collector is told to keep the process within --max-dict +
// 256 MiB.
func TestArchivesShareOneMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.7z", "b.7z", "c.7z"} {
		makeArchive(t, dir, n)
	}
	var budgets []*archive.MemoryBudget
	var memLimit int64
	saved := openArchive
	openArchive = func(name string, opts *archive.Options) (archive.Reader, error) {
		budgets = append(budgets, opts.Memory)
		memLimit = debug.SetMemoryLimit(-1)
		return opener.Open(name, opts)
	}
	t.Cleanup(func() { openArchive = saved })
	prev := debug.SetMemoryLimit(-1)

	var stdout, stderr bytes.Buffer
	args := []string{"t", "--max-dict", "300m", filepath.Join(dir, "*.7z")}
	if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if len(budgets) != 3 {
		t.Fatalf("%d archives opened, want 3", len(budgets))
	}
	for i, b := range budgets {
		if b == nil || b != budgets[0] || b.Limit() != 300<<20 {
			t.Fatalf("archive %d: budget %p, first %p: not one shared budget of --max-dict", i, b, budgets[0])
		}
	}
	if b := budgets[0]; b.InUse() != 0 {
		t.Errorf("%d bytes still charged after the run", b.InUse())
	}
	if want := int64(300<<20 + memoryHeadroom - memorySlack); memLimit != want {
		t.Errorf("memory limit %d during the run, want %d", memLimit, want)
	}
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("memory limit %d after the run, was %d before", got, prev)
	}
}

// TestCopyBufferSize: t and -so of a tiny archive do not clear and fault
// in a 256 KiB buffer (issue 13's start-up cost); large or unknown totals
// get the full buffer.
func TestCopyBufferSize(t *testing.T) {
	for _, tc := range []struct {
		total int64
		want  int
	}{{-1, 256 << 10}, {0, 4 << 10}, {1, 4 << 10}, {4096, 4 << 10}, {4097, 8 << 10}, {200 << 10, 200 << 10}, {256 << 10, 256 << 10}, {1 << 40, 256 << 10}} {
		if got := copyBufferSize(tc.total); got != tc.want {
			t.Errorf("copyBufferSize(%d) = %d, want %d", tc.total, got, tc.want)
		}
	}
}
