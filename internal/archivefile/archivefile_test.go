package archivefile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".garc-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestArchiveFileCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.7z")
	os.WriteFile(target, []byte("old archive"), 0o640)
	a, err := Create(target, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("xxxx new archive"))
	if b, _ := os.ReadFile(target); string(b) != "old archive" {
		t.Fatal("target changed before Commit")
	}
	a.Abort()
	if b, _ := os.ReadFile(target); string(b) != "old archive" {
		t.Fatal("target changed by Abort")
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("temporaries left: %v", l)
	}
	a, _ = Create(target, 0)
	a.Write([]byte("xxxx new archive"))
	a.WriteAt([]byte("NEW!"), 0)
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if string(b) != "NEW! new archive" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("committed %q mode %v", b, fi.Mode())
	}
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("write after Commit accepted")
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("temporaries left: %v", l)
	}
}

func TestArchiveFileVolumes(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "v.7z")
	a, err := Create(target, 10)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for i := range data { // 1-byte writes cross every boundary
		a.Write(data[i : i+1])
	}
	a.WriteAt([]byte("ABCDEFGHIJKL"), 4) // spans volumes 1 and 2
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for i := 0; ; i++ {
		b, err := os.ReadFile(VolumeName(target, i))
		if err != nil {
			if i != 4 {
				t.Fatalf("%d volumes, want 4", i)
			}
			break
		}
		if len(b) > 10 {
			t.Fatalf("volume %d has %d bytes", i, len(b))
		}
		got = append(got, b...)
	}
	if want := "0123ABCDEFGHIJKLghijklmnopqrstuvwxyz"; !bytes.Equal(got, []byte(want)) {
		t.Fatalf("volumes hold %q, want %q", got, want)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("temporaries left: %v", l)
	}
	b, _ := Create(filepath.Join(dir, "w.7z"), 4)
	b.Write(data)
	b.Abort()
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("temporaries left after Abort: %v", l)
	}
}

// CutBack drops what was written from an offset on and the next Write
// continues there; into a finished volume it changes nothing and says so.
func TestArchiveFileCutBack(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "c.zip")
	a, err := Create(target, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("header compressed data that grew"))
	if ok, err := a.CutBack(7); !ok || err != nil {
		t.Fatalf("CutBack(7): %v, %v", ok, err)
	}
	a.Write([]byte("stored"))
	if ok, err := a.CutBack(100); ok || err != nil {
		t.Fatalf("CutBack beyond the end: %v, %v", ok, err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "header stored" || a.Size() != 13 {
		t.Fatalf("committed %q, size %d", b, a.Size())
	}

	vt := filepath.Join(dir, "v.zip")
	v, err := Create(vt, 4)
	if err != nil {
		t.Fatal(err)
	}
	v.Write([]byte("0123456789"))
	if ok, err := v.CutBack(3); ok || err != nil {
		t.Fatalf("CutBack into a finished volume: %v, %v", ok, err)
	}
	if ok, err := v.CutBack(9); !ok || err != nil {
		t.Fatalf("CutBack(9): %v, %v", ok, err)
	}
	v.Write([]byte("ab"))
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for i := range 3 {
		b, _ := os.ReadFile(VolumeName(vt, i))
		got = append(got, b...)
	}
	if string(got) != "012345678ab" {
		t.Fatalf("volumes hold %q", got)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("temporaries left: %v", l)
	}
}
