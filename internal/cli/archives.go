package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/wildcard"
)

// hasWildcard reports whether an archive argument contains 7-Zip's
// wildcard characters.
func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// expandArchives turns the archive argument into the archives to process.
// An argument without '*' or '?', or one naming an existing file, is taken
// literally. Otherwise its last path component is a wildcard matched, as
// 7-Zip and unrar do, against the regular files of its directory; the
// matches come back sorted by name. Wildcards in the directory part are a
// usage error; no match is an error wrapping fs.ErrNotExist (exit 2).
func expandArchives(arg string) ([]string, error) {
	if !hasWildcard(arg) {
		return []string{arg}, nil
	}
	if _, err := os.Lstat(arg); err == nil {
		return []string{arg}, nil
	}
	dir, pat := filepath.Split(arg)
	if hasWildcard(dir) {
		return nil, usagef("%s: wildcards are allowed in the archive's file name only, not in its directory", arg)
	}
	d := dir
	if d == "" {
		d = "."
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	var out []string
	for _, e := range ents { // sorted by name
		if !wildcard.Match(pat, e.Name()) {
			continue
		}
		p := dir + e.Name()
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no archive matches the name: %w", arg, fs.ErrNotExist)
	}
	return out, nil
}

// forEachArchive runs fn for every archive the argument names (see
// expandArchives). With a wildcard, parts of a multi-part archive other
// than the first (opener.IsLaterVolume) and files already read as a
// volume of an earlier match are skipped, and the failure of one archive
// is reported and folded into the exit code before the next one is
// processed; interruption and usage errors stop the run. It returns the
// number of archives fn was called for.
func (a *app) forEachArchive(arg string, fn func(name string) error) (int, error) {
	names, err := expandArchives(arg)
	if err != nil {
		return 0, err
	}
	if len(names) == 1 && names[0] == arg {
		return 1, fn(arg)
	}
	done := map[string]bool{}
	n := 0
	for _, name := range names {
		if done[filepath.Clean(name)] || opener.IsLaterVolume(name) {
			continue
		}
		a.volumes = nil
		n++
		err := fn(name)
		for _, v := range a.volumes {
			done[filepath.Clean(v)] = true
		}
		if err == nil {
			continue
		}
		var ue *usageError
		if errors.Is(err, errInterrupted) || errors.Is(err, context.Canceled) || a.ctx.Err() != nil || errors.As(err, &ue) {
			return n, err
		}
		if !errors.Is(err, errReported) {
			a.prog.Clear()
			fmt.Fprintf(a.stderr, "garc: %s\n", printable.String(diagnostic("", "", err)))
		}
		a.code = worse(a.code, exitCodeFor(err))
	}
	return n, nil
}

// archiveStem is an archive's file name without its extension and, for
// the parts of multi-part archives, without the part number: "a.7z" →
// "a", "a.7z.001" → "a", "b.part1.rar" → "b", "c.tar.7z" → "c.tar". The
// name a set's files share is opener.VolumeSetStem's; it keeps the
// format's extension of a raw split part (a.7z.001 → a.7z), which is
// removed here too.
func archiveStem(name string) string {
	base := filepath.Base(name)
	stem := opener.VolumeSetStem(base)
	if stem == base || isRawSplitExt(filepath.Ext(base)) {
		stem = strings.TrimSuffix(stem, filepath.Ext(stem))
	}
	if stem == "" {
		stem = base
	}
	return safeComponent(stem)
}

// isRawSplitExt reports whether ext (".001") is a number, as the parts of
// raw splits are named.
func isRawSplitExt(ext string) bool {
	return len(ext) > 1 && strings.Trim(ext[1:], "0123456789") == ""
}

// safeComponent makes a name derived from an archive's file name usable
// as one path component inside the destination: separators become '_',
// and a name that would leave or stay in its directory ("", ".", "..", or
// only dots and spaces, which Windows trims to nothing) becomes "_", as
// 7-Zip does.
func safeComponent(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == filepath.Separator || r == 0 {
			return '_'
		}
		return r
	}, s)
	if strings.Trim(s, ". ") == "" {
		return "_"
	}
	return s
}

// outputDir returns the destination for one archive: as 7-Zip does with
// -o, every '*' in dir is replaced by the archive's stem, so that
// `garc x '*.7z' -o'*'` extracts each archive into a directory of its own.
func outputDir(dir, archiveName string) string {
	if !strings.Contains(dir, "*") {
		return dir
	}
	return strings.ReplaceAll(dir, "*", archiveStem(archiveName))
}
