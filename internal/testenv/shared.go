package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// SharedDir returns ../shared relative to the module root, the directory of
// the shared test material (corpus, corpus-more, tools), whether or not
// it exists.
func SharedDir() string {
	_, file, _, _ := runtime.Caller(0)
	// file is <module>/internal/testenv/shared.go
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared"))
}

var mixedCache struct {
	sync.Mutex
	data map[int][]byte
}

// MixedData returns n bytes of the standard benchmark input, the output
// of ../shared/tools/mixed-data (the Go source tree as a tar, then Go
// binaries), skipping (or failing) t when the generator is absent. The
// bytes are cached per size for the life of the test binary; callers must
// not modify them.
func MixedData(t testing.TB, n int) []byte {
	t.Helper()
	mixedCache.Lock()
	defer mixedCache.Unlock()
	if b, ok := mixedCache.data[n]; ok {
		return b
	}
	tool := filepath.Join(SharedDir(), "tools", "mixed-data")
	if _, err := os.Stat(tool); err != nil {
		Missing(t, "the benchmark input generator "+tool)
	}
	out, err := exec.Command(tool, strconv.Itoa(n)).Output()
	if err != nil || len(out) != n {
		t.Fatalf("%s %d: %d bytes, %v", tool, n, len(out), err)
	}
	if mixedCache.data == nil {
		mixedCache.data = make(map[int][]byte)
	}
	mixedCache.data[n] = out
	return out
}

// GOROOT returns the root of the Go installation that runs the tests, as
// `go env GOROOT` reports it, skipping (or failing) t when the go command
// is not on PATH.
func GOROOT(t testing.TB) string {
	t.Helper()
	gocmd := Tool(t, "go")
	out, err := exec.Command(gocmd, "env", "GOROOT").Output()
	root := string(bytes.TrimSpace(out))
	if err != nil || root == "" {
		Missing(t, "GOROOT (go env GOROOT: "+errString(err)+")")
	}
	return root
}

// GoBinary returns up to n bytes of the Go tool binary $GOROOT/bin/name
// (real machine code of the host), taken from its middle, past the
// headers. It skips (or fails) t when the binary is absent.
func GoBinary(t testing.TB, name string, n int) []byte {
	t.Helper()
	p := filepath.Join(GOROOT(t), "bin", name)
	b, err := os.ReadFile(p)
	if err != nil {
		Missing(t, p)
	}
	if len(b) > n {
		start := len(b) / 8
		b = b[start : start+min(n, len(b)-start)]
	}
	return b
}

// OptIn skips t unless the environment variable env is "1": for tests
// that are slow or machine-dependent by design (comparisons with other
// programs), which run on request and never in CI by default.
func OptIn(t testing.TB, env, what string) {
	t.Helper()
	if os.Getenv(env) != "1" {
		t.Skipf("skipping %s: set %s=1 to run it", what, env)
	}
}

// Short skips t in -short mode: for tests that are slow, not for
// prerequisites.
func Short(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("skipping in -short mode: %s", why)
	}
}

func errString(err error) string {
	if err == nil {
		return "empty output"
	}
	return err.Error()
}
