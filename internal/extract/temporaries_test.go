package extract

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tempname"
)

// reopenTemporaries undoes RemoveTemporaries for the tests that follow.
func reopenTemporaries(t *testing.T) {
	t.Cleanup(func() {
		pending.mu.Lock()
		pending.closed = false
		pending.mu.Unlock()
	})
}

// tempFiles lists the temporary files under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempname.Prefix) && strings.HasSuffix(d.Name(), tempname.Suffix) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// stallingReader returns some bytes, tells started, then blocks until
// release is closed and ends with io.EOF.
type stallingReader struct {
	sent             bool
	started, release chan struct{}
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, "partial content"), nil
	}
	close(r.started)
	<-r.release
	return 0, io.EOF
}

// TestRemoveTemporariesDuringWrite: the temporary file of an entry whose
// content is being written when RemoveTemporaries runs (in another
// goroutine, as the CLI's forced exit does) is removed, the entry is not
// completed afterwards, and later entries create no temporary file.
func TestRemoveTemporariesDuringWrite(t *testing.T) {
	reopenTemporaries(t)
	f := newFixture(t, Options{})
	if err := f.write(fileEntry("done.txt"), "complete"); err != nil {
		t.Fatal(err)
	}
	r := &stallingReader{started: make(chan struct{}), release: make(chan struct{})}
	result := make(chan error)
	go func() { result <- f.x.Write(fileEntry("d/big.bin"), r) }()
	<-r.started
	// A new file is written at its final name, registered as a
	// temporary file until it is complete.
	if got := tempFiles(t, f.dest); len(got) != 0 || !f.exists("d/big.bin") {
		t.Fatalf("temporary files while writing: %v, final name there: %v", got, f.exists("d/big.bin"))
	}
	RemoveTemporaries()
	if got := tempFiles(t, f.dest); len(got) != 0 || f.exists("d/big.bin") {
		t.Fatalf("left after RemoveTemporaries: %v, final name there: %v", got, f.exists("d/big.bin"))
	}
	close(r.release)
	if err := <-result; !errors.Is(err, ErrCreate) {
		t.Fatalf("entry interrupted by RemoveTemporaries: %v", err)
	}
	if err := f.write(fileEntry("later.txt"), "x"); !errors.Is(err, ErrCreate) {
		t.Fatalf("entry after RemoveTemporaries: %v", err)
	}
	if err := f.x.Write(&archive.Entry{Name: "link", Type: archive.TypeSymlink, LinkTarget: "done.txt"}, nil); !errors.Is(err, ErrCreate) {
		t.Fatalf("link after RemoveTemporaries: %v", err)
	}
	if got := tempFiles(t, f.dest); len(got) != 0 {
		t.Fatalf("left at the end: %v", got)
	}
	for _, name := range []string{"d/big.bin", "later.txt", "link"} {
		if f.exists(name) {
			t.Errorf("%s was created", name)
		}
	}
	if f.read("done.txt") != "complete" {
		t.Error("a completed file was removed")
	}
}

// TestRemoveTemporariesConcurrent calls RemoveTemporaries while two
// Extractors write files, links and hard links as fast as they can (run
// with -race): when it returns, no temporary file exists, whatever the
// extractors were doing.
func TestRemoveTemporariesConcurrent(t *testing.T) {
	for round := range 20 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			reopenTemporaries(t)
			var wg sync.WaitGroup
			stop := make(chan struct{})
			var dests []string
			for w := range 2 {
				f := newFixture(t, Options{Overwrite: OverwriteAll})
				dests = append(dests, f.dest)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						name := fmt.Sprintf("d%d/f%d", i%3, i%50)
						var err error
						switch i % 5 {
						case 3:
							err = f.x.Write(&archive.Entry{Name: name + ".l", Type: archive.TypeSymlink, LinkTarget: "f0"}, nil)
						case 4:
							err = f.x.Write(&archive.Entry{Name: name + ".h", Type: archive.TypeHardlink, LinkTarget: name}, nil)
						default:
							err = f.x.Write(fileEntry(name), strings.NewReader(strings.Repeat("x", w*1000+i%100)))
						}
						if err != nil && !errors.Is(err, ErrCreate) && !errors.Is(err, ErrRefused) {
							t.Errorf("write %s: %v", name, err)
							return
						}
					}
				}()
			}
			for i := 0; len(tempFiles(t, dests[0])) == 0 && i < 1000; i++ {
				// Let the extractors get going.
			}
			RemoveTemporaries()
			for _, d := range dests {
				if got := tempFiles(t, d); len(got) != 0 {
					t.Errorf("left after RemoveTemporaries: %v", got)
				}
			}
			close(stop)
			wg.Wait()
			for _, d := range dests {
				if got := tempFiles(t, d); len(got) != 0 {
					t.Errorf("left at the end: %v", got)
				}
			}
			os.RemoveAll(dests[0])
		})
	}
}
