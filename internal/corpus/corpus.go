// Package corpus reads the shared conformance corpus index
// (../shared/corpus/units.tsv, and ../shared/corpus-more/units.tsv for the
// ZIP, TAR and single-stream formats) and its ground-truth listings, for tests.
// It is test support only: nothing in the garc binary imports it.
package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Unit is one row of units.tsv.
type Unit struct {
	Unit     string   // path of the file to open, relative to the corpus root
	Kind     string   // single, rar-volumes, raw-split
	Format   string   // 7z, rar5, rar4, rar1.5-2, rar1.4, other
	Password string   // password used by the source's tests
	Expect   string   // ok, error-corrupt, error-unsupported, unknown
	Expected string   // path of the ground-truth listing, relative to the root; may be empty
	GTTool   string   // reference tool
	GTNote   string   // when set, the listing is not a requirement (see README)
	UnrarT   string   // RAR only: pass or fail:...
	Members  []string // every file of the unit, in volume order
	Features string
}

// Path returns the absolute path of the unit's file to open.
func (u *Unit) Path(root string) string { return filepath.Join(root, u.Unit) }

// HasFeature reports whether the features column contains f as a
// ';'-separated item.
func (u *Unit) HasFeature(f string) bool {
	for _, s := range strings.Split(u.Features, ";") {
		if strings.TrimSpace(s) == f {
			return true
		}
	}
	return false
}

// ExpectedEntry is one row of a ground-truth listing.
type ExpectedEntry struct {
	Path       string
	Size       int64
	SHA256     string
	IsDir      bool
	IsSymlink  bool
	LinkTarget string
}

// Root returns the corpus directory (../shared/corpus relative to the
// module root) and whether it exists.
func Root() (string, bool) { return sharedDir("corpus") }

// MoreRoot returns the second corpus, of ZIP, TAR and single-stream files
// (../shared/corpus-more relative to the module root), and whether it
// exists. Its index has the same schema as Root's.
func MoreRoot() (string, bool) { return sharedDir("corpus-more") }

// sharedDir locates ../shared/<name> from the module root and reports
// whether it holds a units.tsv.
func sharedDir(name string) (string, bool) {
	_, file, _, _ := runtime.Caller(0)
	// file is <module>/internal/corpus/corpus.go
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", name)
	if st, err := os.Stat(filepath.Join(root, "units.tsv")); err == nil && !st.IsDir() {
		return filepath.Clean(root), true
	}
	return root, false
}

// Units parses root/units.tsv.
func Units(root string) ([]Unit, error) {
	f, err := os.Open(filepath.Join(root, "units.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var units []Unit
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cols map[string]int
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = map[string]int{}
			for i, c := range fields {
				cols[c] = i
			}
			continue
		}
		get := func(name string) string {
			if i, ok := cols[name]; ok && i < len(fields) {
				return fields[i]
			}
			return ""
		}
		u := Unit{
			Unit: get("unit"), Kind: get("kind"), Format: get("format"), Password: get("password"),
			Expect: get("expect"), Expected: get("expected"), GTTool: get("gt_tool"), GTNote: get("gt_note"),
			UnrarT: get("unrar_t"), Features: get("features"),
		}
		for _, m := range strings.Fields(get("members")) {
			if m = strings.TrimSpace(m); m != "" {
				u.Members = append(u.Members, m)
			}
		}
		units = append(units, u)
	}
	return units, sc.Err()
}

// Listing parses a ground-truth listing file (path relative to root).
func Listing(root, rel string) ([]ExpectedEntry, error) {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	var out []ExpectedEntry
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "path\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 6 {
			return nil, fmt.Errorf("%s:%d: %d fields", rel, i+1, len(f))
		}
		var size int64
		if f[1] != "" {
			size, err = strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: size: %v", rel, i+1, err)
			}
		}
		out = append(out, ExpectedEntry{
			Path: f[0], Size: size, SHA256: f[2],
			IsDir: f[3] == "1" || f[3] == "true", IsSymlink: f[4] == "1" || f[4] == "true",
			LinkTarget: f[5],
		})
	}
	return out, nil
}
