package rar

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// copyVolumes copies the corpus files rels into a new directory, except
// those whose index is in skip, and returns the new paths by index.
func copyVolumes(t *testing.T, rels []string, skip ...int) []string {
	t.Helper()
	root := testenv.CorpusRoot(t)
	dir := t.TempDir()
	paths := make([]string, len(rels))
	for i, rel := range rels {
		paths[i] = filepath.Join(dir, filepath.Base(rel))
		if containsInt(skip, i) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			testenv.Missing(t, rel)
		}
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// volumeSets are complete sets of the corpus in both naming schemes and
// all three container formats that have volumes.
var volumeSets = []struct {
	name string
	rels []string
}{
	{"rar5-new-naming", []string{
		"files/sharpcompress/Archives__Rar5.multi.part01.rar",
		"files/sharpcompress/Archives__Rar5.multi.part02.rar",
		"files/sharpcompress/Archives__Rar5.multi.part03.rar",
		"files/sharpcompress/Archives__Rar5.multi.part04.rar",
		"files/sharpcompress/Archives__Rar5.multi.part05.rar",
		"files/sharpcompress/Archives__Rar5.multi.part06.rar",
	}},
	{"rar4-new-naming", []string{
		"files/rarfile/files__rar3-vols.part1.rar",
		"files/rarfile/files__rar3-vols.part2.rar",
		"files/rarfile/files__rar3-vols.part3.rar",
	}},
	{"rar4-old-naming", []string{
		"files/rarfile/files__rar3-old.rar",
		"files/rarfile/files__rar3-old.r00",
		"files/rarfile/files__rar3-old.r01",
	}},
}

// incompleteSets are volume sets with several entries, whose first
// volumes hold whole entries before the one continuing into the next.
var incompleteSets = []struct {
	name string
	rels []string
}{
	{"rar4-several-files", []string{
		"files/junrar/com__github__junrar__volumes__new-part__test-documents.part1.rar",
		"files/junrar/com__github__junrar__volumes__new-part__test-documents.part2.rar",
		"files/junrar/com__github__junrar__volumes__new-part__test-documents.part3.rar",
	}},
	{"rar5-solid", []string{
		"files/libarchive/test_read_format_rar5_multiarchive_solid.part01.rar",
		"files/libarchive/test_read_format_rar5_multiarchive_solid.part02.rar",
		"files/libarchive/test_read_format_rar5_multiarchive_solid.part03.rar",
		"files/libarchive/test_read_format_rar5_multiarchive_solid.part04.rar",
	}},
}

// contents extracts every entry of r: the content of those that read
// whole, the error of the others, and Extract's own error.
func contents(t *testing.T, r archive.Reader) (whole map[string]string, failed map[string]error, err error) {
	t.Helper()
	whole, failed = map[string]string{}, map[string]error{}
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		b, rerr := io.ReadAll(rd)
		if rerr != nil {
			failed[e.Name] = rerr
		} else if e.Type == archive.TypeFile {
			whole[e.Name] = string(b)
		}
		return nil
	})
	return whole, failed, err
}

// TestIncompleteVolumeSet (issue 23): a set with a middle or the last
// volume missing opens with the entries of the volumes before it, as
// unrar reads it: those whole there extract byte for byte as from the
// complete set, the one continuing into the missing volume fails naming
// it, and Err and Extract's result name it too (ErrMissingVolume, which
// wraps ErrFormat). Before, Open refused the set and nothing was read.
func TestIncompleteVolumeSet(t *testing.T) {
	for _, set := range append(volumeSets, incompleteSets...) {
		last := len(set.rels) - 1
		ref, err := Open(copyVolumes(t, set.rels)[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wantFailed, err := contents(t, ref)
		ref.Close()
		if err != nil || len(wantFailed) > 0 {
			t.Fatalf("%s: complete set: %v %v", set.name, err, wantFailed)
		}
		for _, missing := range []int{1, last} {
			t.Run(set.name+"/"+filepath.Base(set.rels[missing]), func(t *testing.T) {
				paths := copyVolumes(t, set.rels, missing)
				gone := filepath.Base(paths[missing])
				isMissing := func(what string, err error) {
					t.Helper()
					if !errors.Is(err, ErrMissingVolume) || !errors.Is(err, archive.ErrFormat) || !strings.Contains(err.Error(), gone) {
						t.Errorf("%s: want ErrMissingVolume naming %s, got %v", what, gone, err)
					}
				}
				r, err := Open(paths[0], nil)
				if err != nil {
					t.Fatalf("Open with %s missing: %v", gone, err)
				}
				defer r.Close()
				isMissing("Err", r.(interface{ Err() error }).Err())
				if got := len(r.Info().Volumes); got != missing {
					t.Errorf("read %d volumes, want %d", got, missing)
				}
				whole, failed, err := contents(t, r)
				isMissing("Extract", err)
				for name, content := range whole {
					if content != want[name] {
						t.Errorf("%s: extracted content differs from the complete set's", name)
					}
				}
				for name, ferr := range failed {
					isMissing(name, ferr)
				}
				entries := r.Entries()
				cut := entries[len(entries)-1]
				if len(failed) > 1 || len(failed) == 1 && (failed[cut.Name] == nil || !cut.SplitAfter) {
					t.Errorf("failed %v: want only the last entry, %s, cut at the missing volume", failed, cut.Name)
				}
				if strings.Contains(set.name, "several") || strings.Contains(set.name, "solid") {
					if missing == last && len(whole) < 2 {
						t.Errorf("only %d whole entries extracted with the last volume missing", len(whole))
					}
				}
			})
		}
		t.Run(set.name+"/complete", func(t *testing.T) {
			paths := copyVolumes(t, set.rels)
			r, err := Open(paths[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := len(r.Info().Volumes); got != len(paths) {
				t.Errorf("read %d volumes, want %d", got, len(paths))
			}
			if err := r.(interface{ Err() error }).Err(); err != nil {
				t.Errorf("Err of a complete set: %v", err)
			}
		})
	}
}

// TestOpenLaterVolume: given any later volume of a complete set, Open
// reads the set from its first volume (as 7-Zip does for name.7z.002) and
// says so in Info().Volumes[0]; only when the first volume is missing does
// it fail, naming the first volume.
func TestOpenLaterVolume(t *testing.T) {
	for _, set := range volumeSets {
		t.Run(set.name, func(t *testing.T) {
			paths := copyVolumes(t, set.rels)
			want := listNames(t, paths[0])
			for _, p := range paths[1:] {
				r, err := Open(p, nil)
				if err != nil {
					t.Errorf("Open(%s): %v", filepath.Base(p), err)
					continue
				}
				vols := r.Info().Volumes
				if len(vols) != len(paths) || vols[0] != paths[0] {
					t.Errorf("Open(%s): volumes %q, want the set from %s", filepath.Base(p), vols, filepath.Base(paths[0]))
				}
				if got := entryNames(r); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("Open(%s): entries %q, want %q", filepath.Base(p), got, want)
				}
				r.Close()
			}
			paths = copyVolumes(t, set.rels, 0)
			_, err := Open(paths[len(paths)-1], nil)
			if !errors.Is(err, archive.ErrFormat) || !strings.Contains(err.Error(), filepath.Base(paths[0])) {
				t.Errorf("first volume missing: want ErrFormat naming %s, got %v", filepath.Base(paths[0]), err)
			}
		})
	}
}

func listNames(t *testing.T, path string) []string {
	t.Helper()
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return entryNames(r)
}

func entryNames(r archive.Reader) []string {
	var names []string
	for _, e := range r.Entries() {
		names = append(names, e.Name)
	}
	return names
}
