package opener

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// traceOpenEnv names the archive the test binary opens when it runs as
// TestRAROpenedOnce's traced child.
const traceOpenEnv = "GARC_OPENER_TRACE_OPEN"

// TestRAROpenedOnce traces the openat calls of Open on RAR archives, a
// single one and each volume of a set: every file is opened once. The
// opener hands the file it recognised the archive in to rar.OpenFile;
// before, rar.Open opened (and stat'ed) the first volume a second time.
func TestRAROpenedOnce(t *testing.T) {
	if path := os.Getenv(traceOpenEnv); path != "" {
		// The traced child: open and close the archive.
		r, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		return
	}
	for _, tc := range []struct {
		name  string
		first func(t *testing.T) string
		parts int
	}{
		{"single", func(*testing.T) string { return filepath.Join("..", "rar", "testdata", "example.rar") }, 1},
		{"volumes", func(t *testing.T) string {
			return filepath.Join(testenv.CorpusRoot(t), "files/sharpcompress/Archives__Rar.multi.part01.rar")
		}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			strace := testenv.Tool(t, "strace")
			first, err := filepath.Abs(tc.first(t))
			if err != nil {
				t.Fatal(err)
			}
			trace := filepath.Join(t.TempDir(), "trace")
			cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=open,openat", "-o", trace,
				os.Args[0], "-test.run=^TestRAROpenedOnce$", "-test.count=1")
			cmd.Env = append(os.Environ(), traceOpenEnv+"="+first)
			if out, err := cmd.CombinedOutput(); err != nil {
				if strings.Contains(string(out), "ptrace") {
					testenv.Missing(t, "strace's ptrace permission ("+strings.TrimSpace(string(out))+")")
				}
				t.Fatalf("strace: %v\n%s", err, out)
			}
			b, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			opens := map[string]int{}
			for _, line := range strings.Split(string(b), "\n") {
				if _, rest, ok := strings.Cut(line, `"`); ok && strings.Contains(line, "open") {
					if name, _, ok := strings.Cut(rest, `"`); ok && strings.HasPrefix(filepath.Base(name), strings.TrimSuffix(filepath.Base(first), "01.rar")) {
						opens[name]++
					}
				}
			}
			if len(opens) != tc.parts {
				t.Errorf("%d files opened, want %d: %v", len(opens), tc.parts, opens)
			}
			for name, n := range opens {
				if n != 1 {
					t.Errorf("%s opened %d times", filepath.Base(name), n)
				}
			}
		})
	}
}
