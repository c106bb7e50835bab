package main

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

var (
	buildOnce sync.Once
	garcBin   string
	buildErr  error
	buildOut  []byte
)

// garc returns the path of a garc binary built as make build does.
func garc(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "garc-startup")
		if err != nil {
			buildErr = err
			return
		}
		garcBin = filepath.Join(dir, "garc")
		build := exec.Command("go", "build", "-trimpath", "-o", garcBin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = build.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return garcBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if garcBin != "" {
		os.RemoveAll(filepath.Dir(garcBin))
	}
	os.Exit(code)
}

// sample is the path of the repository's sample archive.
func sample(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sample.7z"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInitOrder checks that package oneproc sets GOMAXPROCS to 1 before
// any package initializer allocates, and that the command line's own
// packages build nothing big at start-up (GODEBUG=inittrace=1 lists the
// initializers in order, with the bytes each allocated).
func TestInitOrder(t *testing.T) {
	cmd := exec.Command(garc(t), "t", "-q", sample(t))
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("garc t: %v\n%s", err, out)
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" {
			continue
		}
		switch {
		case f[1] == "github.com/garc-dev/garc/cmd/garc/internal/oneproc":
			found = true
		case !found && f[7] != "0":
			t.Errorf("%s initializes before oneproc and allocates %s bytes", f[1], f[7])
		case lightInit[f[1]]:
			// Tables are switch statements or built on first use,
			// not maps built in every process.
			if n, err := strconv.Atoi(f[7]); err != nil || n > 512 {
				t.Errorf("%s: the package's initialization allocates %s bytes, want at most 512", f[1], f[7])
			}
		}
	}
	if !found {
		t.Errorf("no init line for oneproc:\n%s", out)
	}
}

// lightInit are the packages of the command line whose initialization
// TestInitOrder bounds.
var lightInit = map[string]bool{
	"github.com/garc-dev/garc/internal/cli":       true,
	"github.com/garc-dev/garc/internal/opener":    true,
	"github.com/garc-dev/garc/internal/listing":   true,
	"github.com/garc-dev/garc/internal/argv":      true,
	"github.com/garc-dev/garc/internal/progress":  true,
	"github.com/garc-dev/garc/internal/prompt":    true,
	"github.com/garc-dev/garc/internal/printable": true,
	"github.com/garc-dev/garc/internal/sfxscan":   true,
}

// TestStartupSystemCalls traces the system calls of `garc t` on a small
// 7z archive (issue 13): the archive is opened without offering it to
// the runtime's poller, which os.Open does for every file (two fcntl
// F_SETFL around an epoll_ctl that fails for regular files).
func TestStartupSystemCalls(t *testing.T) {
	strace := testenv.Tool(t, "strace")
	bin := garc(t)
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=openat,fcntl,epoll_ctl", "-o", trace, bin, "t", "-q", sample(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "ptrace") {
			// A container without the ptrace permission.
			testenv.Missing(t, "strace's ptrace permission ("+strings.TrimSpace(string(out))+")")
		}
		t.Fatalf("strace garc t: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	calls := string(b)
	if !strings.Contains(calls, "sample.7z") {
		t.Fatalf("the trace does not show the archive being opened:\n%s", calls)
	}
	for _, line := range strings.Split(calls, "\n") {
		if strings.Contains(line, "F_SETFL") || strings.Contains(line, "epoll_ctl") && strings.Contains(line, "EPERM") {
			t.Errorf("garc t of a 7z archive: %s", line)
		}
	}
}

// TestNoMaxProcsUpdates checks that the binary turns off the runtime's
// periodic GOMAXPROCS update (//go:debug updatemaxprocs=0 in main.go),
// whose goroutine woke a second thread at every start (issue 27).
func TestNoMaxProcsUpdates(t *testing.T) {
	info, err := buildinfo.ReadFile(garc(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range info.Settings {
		if s.Key == "DefaultGODEBUG" && slices.Contains(strings.Split(s.Value, ","), "updatemaxprocs=0") {
			return
		}
	}
	t.Errorf("the binary's build settings have no updatemaxprocs=0: %v", info.Settings)
}

// TestNoInitWork checks that packages whose tables are built on first use
// have no initialization function in the binary (the compiler emits one
// only for package-level work at start-up), and that golang.org/x/sys/cpu,
// whose initialization asks the CPU a dozen times, and net/http, which
// brings crypto/tls, x509 and some forty initializers more (progressbar
// v3.18.0 and later), are not linked (issue 27).
func TestNoInitWork(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", garc(t)).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		name := f[len(f)-1]
		for _, pkg := range noInit {
			if strings.HasPrefix(name, pkg+".init") {
				t.Errorf("%s has initialization work: %s", pkg, name)
			}
		}
		for _, pkg := range []string{"golang.org/x/sys/cpu.", "net/http.", "crypto/tls."} {
			if strings.HasPrefix(name, pkg) {
				t.Errorf("%s is linked: %s", strings.TrimSuffix(pkg, "."), name)
			}
		}
	}
}

// noInit are the packages TestNoInitWork checks.
var noInit = []string{
	"github.com/garc-dev/garc/internal/deflate",
	"github.com/garc-dev/garc/internal/deflate64",
}
