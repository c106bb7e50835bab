// Package testenv decides what tests do when something they need from the
// machine is missing: a tool such as 7zz, or the shared corpus. On a
// developer machine such tests skip with a message naming what is missing;
// in CI (GARC_REQUIRE_ALL=1, set by .ci/run) they fail instead, so nothing
// is silently skipped where it must run.
package testenv

import (
	"os"
	"os/exec"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
)

// RequireAll reports whether missing prerequisites must fail tests.
func RequireAll() bool { return os.Getenv("GARC_REQUIRE_ALL") == "1" }

// Missing skips t with a message naming what is missing, or fails it when
// RequireAll is set.
func Missing(t testing.TB, what string) {
	t.Helper()
	if RequireAll() {
		t.Fatalf("%s is missing, and GARC_REQUIRE_ALL=1 says it must be present", what)
	}
	t.Skipf("skipping: %s is missing", what)
}

// Tool returns the path of an executable, skipping (or failing) t when it
// is not on PATH.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" (not on PATH; install it, e.g. apt-get install -y 7zip for 7zz)")
	}
	return p
}

// SevenZip returns the path of 7zz, skipping (or failing) t when absent.
func SevenZip(t testing.TB) string {
	t.Helper()
	return Tool(t, "7zz")
}

// CorpusRoot returns the shared corpus directory, skipping (or failing) t
// when it is absent.
func CorpusRoot(t testing.TB) string {
	t.Helper()
	root, ok := corpus.Root()
	if !ok {
		Missing(t, "the shared corpus at "+root)
	}
	return root
}

// MoreCorpusRoot returns the second shared corpus (ZIP, TAR, single
// streams), skipping (or failing) t when it is absent.
func MoreCorpusRoot(t testing.TB) string {
	t.Helper()
	root, ok := corpus.MoreRoot()
	if !ok {
		Missing(t, "the shared corpus at "+root)
	}
	return root
}
