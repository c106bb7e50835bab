package security

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/tempname"
)

// WriteQueued, which creates files in a second goroutine while the caller
// decodes, keeps every rule of Write against hostile entries: names that
// climb out, links out and through links, a link swapped in for a
// directory already used, hard links to outside — among many small files
// queued around them. Nothing outside the destination changes, no link
// leads out, no temporary file stays, and every hostile entry is reported
// refused (or failed) in order.
func TestWriteQueuedHostileEntries(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	s := newSandbox(t)
	outsideVictim := filepath.Join(s.Outside, "victim.txt")
	type item struct {
		e       archive.Entry
		content string
		hostile bool
	}
	var items []item
	file := func(name, content string, hostile bool) {
		items = append(items, item{archive.Entry{Name: name, Type: archive.TypeFile}, content, hostile})
	}
	link := func(name, target string, hostile bool) {
		items = append(items, item{archive.Entry{Name: name, Type: archive.TypeSymlink, LinkTarget: target}, "", hostile})
	}
	for i := range 100 {
		file(fmt.Sprintf("d/f%d", i), "fine", false)
	}
	file("../../../outside/victim.txt", "pwned", true)
	file("d/../../victim.txt", "pwned", true)
	link("abs", outsideVictim, true)
	link("up", "../../../outside", true)
	link("dot", ".", false)
	link("climb", "dot/dot/../../outside", true)
	link("trail", "nothing/..", true)
	link("d/back", "../d", false)
	file("d/back/through.txt", "pwned", true)
	link("dot/new", "x", true)
	items = append(items, item{archive.Entry{Name: "hard", Type: archive.TypeHardlink, LinkTarget: "../../../outside/victim.txt"}, "", true})
	for i := range 100 {
		file(fmt.Sprintf("e/f%d", i), "fine", false)
	}
	link("e2", "../..", true)
	file("e2/victim.txt", "inside", false) // e2 was refused: a directory now

	before := s.outsideState(t)
	x, err := extract.New(extract.Options{Dest: s.Dest, Overwrite: extract.OverwriteAll})
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	next := 0
	done := func(e *archive.Entry, err error) error {
		it := items[next]
		next++
		if e.Name != it.e.Name {
			t.Errorf("outcome %d is for %s, want %s", next-1, e.Name, it.e.Name)
		}
		switch {
		case it.hostile && err == nil:
			t.Errorf("%s: accepted", e.Name)
		case !it.hostile && err != nil:
			t.Errorf("%s: %v", e.Name, err)
		case it.hostile && !errors.Is(err, extract.ErrRefused) && !errors.Is(err, extract.ErrCreate):
			t.Errorf("%s: %v, want refused", e.Name, err)
		}
		outcomes = append(outcomes, fmt.Sprintf("%s: %v", e.Name, err))
		return nil
	}
	for i := range items {
		e := items[i].e
		var r io.Reader
		if items[i].content != "" {
			r = strings.NewReader(items[i].content)
		}
		if err := x.WriteQueued(&e, r, done); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if next != len(items) {
		t.Fatalf("%d outcomes for %d entries", next, len(items))
	}
	s.checkUnchanged(t, before, result{stderr: strings.Join(outcomes, "\n")})
	s.checkLinksInside(t)
	s.checkLinksResolveInside(t)
	filepath.WalkDir(s.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && tempname.Is(d.Name()) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}
