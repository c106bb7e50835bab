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

// TestIncompleteVolumeSet: a set with a middle or the last volume missing
// is refused when it is opened, so listing is not a partial success and
// extraction does not end in "unexpected end of packed data"; the error
// wraps ErrFormat and names the missing file.
func TestIncompleteVolumeSet(t *testing.T) {
	for _, set := range volumeSets {
		last := len(set.rels) - 1
		for _, missing := range []int{1, last} {
			t.Run(set.name+"/"+filepath.Base(set.rels[missing]), func(t *testing.T) {
				paths := copyVolumes(t, set.rels, missing)
				r, err := Open(paths[0], nil)
				if err == nil {
					r.Close()
					t.Fatalf("Open succeeded with %s missing", filepath.Base(paths[missing]))
				}
				if !errors.Is(err, archive.ErrFormat) {
					t.Errorf("want ErrFormat, got %v", err)
				}
				if !strings.Contains(err.Error(), filepath.Base(paths[missing])) {
					t.Errorf("error does not name %s: %v", filepath.Base(paths[missing]), err)
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
			if err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
				_, err := io.Copy(io.Discard, rd)
				return err
			}); err != nil {
				t.Error(err)
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
