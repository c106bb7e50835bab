//go:build unix

package rar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestVolumeNotRegularFile: a later volume is found by name, so whatever
// sits under that name is not the user's choice. A FIFO there used to
// block Open forever (open(2) waits for a writer); anything but a regular
// file must count as a missing volume.
func TestVolumeNotRegularFile(t *testing.T) {
	first, err := os.ReadFile(corpusFile(t, "files/sharpcompress/Archives__Rar.multi.solid.part01.rar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"fifo", "dir"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			p1 := filepath.Join(dir, "v.part01.rar")
			if err := os.WriteFile(p1, first, 0o644); err != nil {
				t.Fatal(err)
			}
			p2 := filepath.Join(dir, "v.part02.rar")
			if kind == "fifo" {
				err = syscall.Mkfifo(p2, 0o644)
			} else {
				err = os.Mkdir(p2, 0o755)
			}
			if err != nil {
				testenv.Missing(t, fmt.Sprintf("a %s (%v)", kind, err))
			}
			done := make(chan error, 1)
			go func() {
				r, err := Open(p1, nil)
				if err != nil {
					done <- err
					return
				}
				defer r.Close()
				var first error
				err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
					if _, err := io.Copy(io.Discard, rd); err != nil && first == nil {
						first = err
					}
					return nil
				})
				if err == nil {
					err = first
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, archive.ErrFormat) {
					t.Errorf("want an error wrapping ErrFormat (missing volume), got %v", err)
				}
			case <-time.After(30 * time.Second):
				// Unblock the leaked open by opening the FIFO for writing.
				if f, err := os.OpenFile(p2, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatal("Open or Extract blocked on a non-regular next volume")
			}
		})
	}
}
