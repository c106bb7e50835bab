package cli

import (
	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
)

// checkStrip checks --strip-components: not negative, and only for
// extraction to files (-so writes contents, which have no names).
func checkStrip(f *extractFlags) error {
	switch {
	case f.strip < 0:
		return usagef("--strip-components must not be negative")
	case f.strip > 0 && f.stdout:
		return usagef("--strip-components changes the names of extracted files; --stdout (-so) writes none")
	}
	return nil
}

// stripWant leaves out of want the entries --strip-components n skips
// (n or fewer components in their names), so that they are not even
// decoded where the format can skip them.
func stripWant(n int, want func(*archive.Entry) bool) func(*archive.Entry) bool {
	if n <= 0 {
		return want
	}
	return func(e *archive.Entry) bool {
		if _, ok := extract.StripComponents(e.Name, n); !ok {
			return false
		}
		return want(e)
	}
}
