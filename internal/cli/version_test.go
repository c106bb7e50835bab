package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestDescribeBuild checks what --version is made of for each way garc
// is built: `go install …@version` (a module version, no VCS stamp), a
// `go build` in a checkout (a pseudo-version and the VCS stamp), a build
// without either, and a release build whose -ldflags win.
func TestDescribeBuild(t *testing.T) {
	stamp := []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-12-06T16:11:30Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name                  string
		bi                    *debug.BuildInfo
		ldVersion, ldCommit   string
		version, commit, date string
	}{
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "", "", "v1.4.0", "", ""},
		{"go build in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261206161130-0123456789ab"}, Settings: stamp},
			"", "", "v0.0.0-20261206161130-0123456789ab", "0123456789ab-dirty", "2026-12-06T16:11:30Z"},
		{"no module version", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "", "(devel)", "", ""},
		{"no build information", nil, "", "", "(devel)", "", ""},
		{"release ldflags", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-x"}, Settings: stamp}, "v2.0.0", "feedface", "v2.0.0", "feedface", "2026-12-06T16:11:30Z"},
	}
	for _, tt := range tests {
		v, c, d := describeBuild(tt.bi, tt.ldVersion, tt.ldCommit, "")
		if v != tt.version || c != tt.commit || d != tt.date {
			t.Errorf("%s: got %q %q %q, want %q %q %q", tt.name, v, c, d, tt.version, tt.commit, tt.date)
		}
	}
}

// TestVersionPlainBuild builds garc with a plain `go build` in a clone of
// the checkout (VCS stamping on, as Go does by default) and checks that --version reports the
// module's pseudo-version and the checkout's revision.
func TestVersionPlainBuild(t *testing.T) {
	gitBin := testenv.Tool(t, "git")
	goBin := testenv.Tool(t, "go")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := exec.Command(gitBin, "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		testenv.Missing(t, "a git checkout (go build stamps the revision from it)")
	}
	short := strings.TrimSpace(string(rev))
	// Go stamps a build only in a checkout it recognises, which a git
	// worktree (.git is a file there) is not: build in a clone of HEAD,
	// sharing the checkout's objects.
	clone := filepath.Join(t.TempDir(), "src")
	if out, err := exec.Command(gitBin, "clone", "-q", "--shared", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if out, err := exec.Command(gitBin, "-C", clone, "checkout", "-q", "--detach", short).CombinedOutput(); err != nil {
		t.Fatalf("git checkout: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "garc")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/garc")
	cmd.Dir = clone
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^garc version v\d+\.\d+\.\d+-\S*` + short + `\S* \(commit ` + short + `(-dirty)?, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$`)
	if !want.Match(out) {
		t.Errorf("go build: --version prints %q, want %s", out, want)
	}
}
