package security

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// A raw split of 5,000 parts extracts under a descriptor limit of 256:
// parts are opened as they are read, not all at once.
func TestExtractSplitManyPartsLowFDLimit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ulimit is a unix shell builtin")
	}
	sh := testenv.Tool(t, "sh")
	arc := make7z(t, []entrySpec{{name: "hello.txt", content: strings.Repeat("hello ", 2000)}})
	data, err := os.ReadFile(arc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const parts = 5000
	per := (len(data) + parts - 1) / parts
	for i := 0; i < parts; i++ {
		lo, hi := min(i*per, len(data)), min((i+1)*per, len(data))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("big.7z.%03d", i+1)), data[lo:hi], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if garcBin == "" {
		t.Fatal("the garc binary could not be built (see the test output)")
	}
	cmd := exec.Command(sh, "-c", `ulimit -n 256 && exec "$0" x big.7z.001 -o out`, garcBin)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("garc x of a %d-part split under ulimit -n 256: %v\n%s", parts, err, out.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "out", "hello.txt"))
	if err != nil || string(got) != strings.Repeat("hello ", 2000) {
		t.Fatalf("extracted content wrong (%v)", err)
	}
}
