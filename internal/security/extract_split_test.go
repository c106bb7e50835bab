package security

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// A raw split of 5,000 parts or more extracts under a descriptor limit of 256:
// parts are opened as they are read, not all at once.
func TestExtractSplitManyPartsLowFDLimit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ulimit is a unix shell builtin")
	}
	sh := testenv.Tool(t, "sh")
	// Incompressible content, so that every one of the 5,000 or more
	// parts holds bytes of the archive (an empty part after its end
	// would be a part left over from another set, which x warns about).
	content := make([]byte, 12000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range content {
		content[i] = byte(rng.Uint32())
	}
	arc := make7z(t, []entrySpec{{name: "hello.txt", content: string(content)}})
	data, err := os.ReadFile(arc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const per = 2
	parts := (len(data) + per - 1) / per
	if parts < 5000 {
		t.Fatalf("the archive is %d bytes, %d parts: want 5000 or more", len(data), parts)
	}
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
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("extracted content wrong (%v)", err)
	}
}
