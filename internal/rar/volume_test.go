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
