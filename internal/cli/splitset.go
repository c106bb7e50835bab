package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/opener"
)

// errPartsAfterEnd is the warning about the parts of a raw split that
// follow the end of the archive.
var errPartsAfterEnd = errors.New("not part of the archive, which ends before them (left over from an older, longer set of that name?)")

// warnPartsAfterEnd warns (exit 1) when the raw split r was opened from
// has parts after the end of its archive (opener.PartsAfterEnd): they
// are not read, and their presence means the set on disk is not one
// archive's.
func (a *app) warnPartsAfterEnd(name string, r archive.Reader) {
	extra := opener.PartsAfterEnd(r)
	if len(extra) == 0 {
		return
	}
	names := make([]string, len(extra))
	for i, p := range extra {
		names[i] = filepath.Base(p)
	}
	if len(names) > 4 {
		names = append(names[:2], "…", names[len(names)-1])
	}
	a.warn(name, "", fmt.Errorf("%s: %w", strings.Join(names, ", "), errPartsAfterEnd))
}
