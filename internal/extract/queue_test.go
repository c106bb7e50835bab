package extract

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tempname"
)

// queueCase is an entry and its content (nil: no reader; readErr: the
// content reader fails after the content, as a checksum error does).
type queueCase struct {
	entry   archive.Entry
	content *string
	readErr error
}

func content(s string) *string { return &s }

var errBadChecksum = fmt.Errorf("bad data: %w", archive.ErrChecksum)

// queueCases mixes everything Write handles: files in created and
// existing directories, a name twice, directories, links (accepted and
// refused), hard links to queued files, refused names, a file larger than
// what is queued, failing content, anti-items.
func queueCases() []queueCase {
	var cs []queueCase
	file := func(name, c string) {
		cs = append(cs, queueCase{entry: archive.Entry{Name: name, Type: archive.TypeFile, Size: int64(len(c)), ModTime: archiveTime()}, content: content(c)})
	}
	for i := range 150 {
		file(fmt.Sprintf("d%d/f%03d.txt", i/40, i), fmt.Sprintf("file %d\n", i))
	}
	file("existing.txt", "new")
	file("d0/f000.txt", "again")
	cs = append(cs,
		queueCase{entry: archive.Entry{Name: "dir/", Type: archive.TypeDir, ModTime: archiveTime()}},
		queueCase{entry: archive.Entry{Name: "dir/link", Type: archive.TypeSymlink, LinkTarget: "../d0/f001.txt"}},
		queueCase{entry: archive.Entry{Name: "dir/datalink", Type: archive.TypeSymlink}, content: content("../d1")},
		queueCase{entry: archive.Entry{Name: "dir/bad", Type: archive.TypeSymlink, LinkTarget: "../../outside"}},
		queueCase{entry: archive.Entry{Name: "dir/dotdot", Type: archive.TypeSymlink, LinkTarget: "nothing/.."}},
		queueCase{entry: archive.Entry{Name: "hard", Type: archive.TypeHardlink, LinkTarget: "d0/f002.txt"}},
		queueCase{entry: archive.Entry{Name: "copy", Type: archive.TypeCopy, LinkTarget: "d3/f149.txt"}},
		queueCase{entry: archive.Entry{Name: "nohard", Type: archive.TypeHardlink, LinkTarget: "missing"}},
		queueCase{entry: archive.Entry{Name: "../escape", Type: archive.TypeFile}, content: content("x")},
		queueCase{entry: archive.Entry{Name: "/abs.txt", Type: archive.TypeFile}, content: content("abs")},
		queueCase{entry: archive.Entry{Name: "new/dir/broken.txt", Type: archive.TypeFile}, content: content("partial"), readErr: errBadChecksum},
		queueCase{entry: archive.Entry{Name: "anti", Type: archive.TypeFile, Anti: true}},
		queueCase{entry: archive.Entry{Name: "big.bin", Type: archive.TypeFile, Size: -1}, content: content(strings.Repeat("b", maxQueuedContent+1000))},
		queueCase{entry: archive.Entry{Name: "big2.bin", Type: archive.TypeFile, Size: maxQueuedContent + 1}, content: content(strings.Repeat("c", maxQueuedContent+1))},
		queueCase{entry: archive.Entry{Name: "dir/", Type: archive.TypeDir}},
		queueCase{entry: archive.Entry{Name: "dir", Type: archive.TypeFile}, content: content("file over dir")},
	)
	for i := range 40 {
		file(fmt.Sprintf("tail/f%d", i), strings.Repeat("t", i*1700))
	}
	return cs
}

func (c queueCase) reader() io.Reader {
	if c.content == nil {
		return nil
	}
	r := io.Reader(strings.NewReader(*c.content))
	if c.readErr != nil {
		r = io.MultiReader(r, errorReader{c.readErr})
	}
	return r
}

// runCases extracts cases with Write or WriteQueued and returns the
// tree made and the log of Warn calls and outcomes, in the order seen.
func runCases(t *testing.T, cases []queueCase, opts Options, queued bool) (map[string]string, []string) {
	t.Helper()
	base := t.TempDir()
	dest := filepath.Join(base, "dest")
	os.Mkdir(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "existing.txt"), []byte("old"), 0o644)
	var log []string
	opts.Dest = dest
	opts.Warn = func(entry string, err error) { log = append(log, "warn "+entry+": "+err.Error()) }
	x, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(e *archive.Entry, err error) {
		log = append(log, fmt.Sprintf("%s: %v", e.Name, err))
	}
	for i := range cases {
		e := cases[i].entry // the caller may reuse its entry
		if queued {
			err := x.WriteQueued(&e, cases[i].reader(), func(e *archive.Entry, err error) error {
				outcome(e, err)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		} else {
			outcome(&e, x.Write(&e, cases[i].reader()))
		}
		e.Name = "reused"
	}
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	return treeContents(t, dest), log
}

// treeContents describes every path below root: content, link target or
// directory, with the modification time of files.
func treeContents(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		r, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[r] = "-> " + l
		case d.IsDir():
			m[r] = "dir"
		default:
			b, _ := os.ReadFile(p)
			fi, _ := d.Info()
			m[r] = fmt.Sprintf("%d bytes %x, archive time %v", len(b), sha256.Sum256(b), fi.ModTime().Equal(archiveTime()))
		}
		return nil
	})
	return m
}

// TestWriteQueuedAsWrite: WriteQueued makes the same files and reports
// the same outcomes and warnings, in the same order, as Write, whatever
// the entries (run with -race: the writer goroutine and the caller share
// the Extractor).
func TestWriteQueuedAsWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, c := range []struct {
		name string
		opts Options
	}{{"default", Options{}}, {"keep broken", Options{KeepBroken: true}}, {"overwrite", Options{Overwrite: OverwriteAll}},
		{"rename", Options{Overwrite: OverwriteRename}}, {"flat", Options{Flat: true}}} {
		opts := c.opts
		t.Run(c.name, func(t *testing.T) {
			cases := queueCases()
			wantTree, wantLog := runCases(t, cases, opts, false)
			gotTree, gotLog := runCases(t, cases, opts, true)
			if !reflect.DeepEqual(gotLog, wantLog) {
				for i := range max(len(gotLog), len(wantLog)) {
					var g, w string
					if i < len(gotLog) {
						g = gotLog[i]
					}
					if i < len(wantLog) {
						w = wantLog[i]
					}
					if g != w {
						t.Fatalf("log differs at %d:\n queued: %s\n  Write: %s", i, g, w)
					}
				}
			}
			if !reflect.DeepEqual(gotTree, wantTree) {
				for k, w := range wantTree {
					if gotTree[k] != w {
						t.Errorf("%s: queued %s, Write %s", k, gotTree[k], w)
					}
				}
				for k, g := range gotTree {
					if _, ok := wantTree[k]; !ok {
						t.Errorf("%s: queued %s only", k, g)
					}
				}
			}
		})
	}
}

// TestWriteQueuedBounded: the queue holds at most queueBatches batches:
// outcomes come back while entries are still being queued, and the
// caller never has more than queueBatches*batchEntries entries pending.
func TestWriteQueuedBounded(t *testing.T) {
	x, err := New(Options{Dest: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const n = 5*batchEntries + 10
	delivered := 0
	for i := range n {
		e := &archive.Entry{Name: fmt.Sprintf("d/f%d", i), Type: archive.TypeFile}
		err := x.WriteQueued(e, strings.NewReader("x"), func(e *archive.Entry, err error) error {
			if err != nil || e.Name != fmt.Sprintf("d/f%d", delivered) {
				t.Fatalf("outcome %d: %s %v", delivered, e.Name, err)
			}
			delivered++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if pending := i + 1 - delivered; pending > queueBatches*batchEntries {
			t.Fatalf("%d entries pending after %d", pending, i+1)
		}
	}
	if err := x.Flush(); err != nil || delivered != n {
		t.Fatalf("Flush: %v, %d of %d delivered", err, delivered, n)
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteQueuedStop: an error returned by done is returned by the
// WriteQueued call that delivers it, which leaves its own entry alone
// (entries queued before it are still written), as the caller stops the
// run there.
func TestWriteQueuedStop(t *testing.T) {
	stop := errors.New("stop")
	done := func(e *archive.Entry, err error) error {
		if errors.Is(err, ErrRefused) || errors.Is(err, archive.ErrChecksum) {
			return stop
		}
		return nil
	}
	t.Run("queued entry", func(t *testing.T) {
		dest := t.TempDir()
		x, err := New(Options{Dest: dest})
		if err != nil {
			t.Fatal(err)
		}
		// The refused entry's outcome comes back at the latest when the
		// caller waits for a free batch.
		k := 0
		for ; k < 2*queueBatches*batchEntries; k++ {
			name := fmt.Sprintf("f%d", k)
			if k == 0 {
				name = "../escape"
			}
			if err = x.WriteQueued(&archive.Entry{Name: name, Type: archive.TypeFile}, strings.NewReader("x"), done); err != nil {
				break
			}
		}
		if err != stop || k == 0 {
			t.Fatalf("entry %d: %v, want the error of done", k, err)
		}
		if err := x.Flush(); err != nil {
			t.Fatal(err)
		}
		x.Finish()
		for i := 1; i <= k; i++ {
			if _, err := os.Lstat(filepath.Join(dest, fmt.Sprintf("f%d", i))); (err == nil) != (i < k) {
				t.Fatalf("f%d of %d: %v", i, k, err)
			}
		}
	})
	t.Run("content error", func(t *testing.T) {
		x, err := New(Options{Dest: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var got error
		for i := 0; i < 10 && got == nil; i++ {
			var r io.Reader = strings.NewReader("x")
			if i == 5 {
				r = errorReader{errBadChecksum}
			}
			got = x.WriteQueued(&archive.Entry{Name: fmt.Sprint(i), Type: archive.TypeFile}, r, done)
		}
		if got != stop {
			t.Fatalf("got %v, want the error of done", got)
		}
		x.Abort()
	})
}

// TestWriteQueuedAbortRollback: Abort and Rollback end the writer with
// entries still queued: no temporary file stays, outcomes of entries not
// written are not delivered, and Rollback removes everything the run
// made, queued entries included.
func TestWriteQueuedAbortRollback(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		t.Run(fmt.Sprint("rollback=", rollback), func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "dest")
			x, err := New(Options{Dest: dest})
			if err != nil {
				t.Fatal(err)
			}
			delivered := 0
			for i := range 400 {
				e := &archive.Entry{Name: fmt.Sprintf("d%d/f%d", i%7, i), Type: archive.TypeFile}
				if err := x.WriteQueued(e, strings.NewReader("x"), func(*archive.Entry, error) error { delivered++; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if rollback {
				if err := x.Rollback(); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Lstat(dest); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("Rollback left %v", treeContents(t, dest))
				}
			} else {
				x.Abort()
				for p := range treeContents(t, dest) {
					if tempname.Is(filepath.Base(p)) {
						t.Fatalf("temporary file %s left", p)
					}
				}
			}
			if delivered > 400 {
				t.Fatalf("%d outcomes", delivered)
			}
			err = x.WriteQueued(&archive.Entry{Name: "late", Type: archive.TypeFile}, strings.NewReader("x"), func(*archive.Entry, error) error { return nil })
			if !errors.Is(err, ErrCreate) {
				t.Fatalf("WriteQueued after the end: %v", err)
			}
		})
	}
}

// TestWriteQueuedFromMemory: the content of queued entries is written
// from the batch it was read into, not copied through the extractor's
// 256 KiB buffer, which an extraction of small files (new ones, and ones
// replacing existing files through a temporary file) never allocates;
// a larger entry, written at once from its reader, still uses it.
func TestWriteQueuedFromMemory(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		dest := t.TempDir()
		opts := Options{Dest: dest}
		if overwrite {
			opts.Overwrite = OverwriteAll
			for i := range 3 {
				if err := os.WriteFile(filepath.Join(dest, fmt.Sprintf("f%d", i)), []byte("old content"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		x, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for i := range 3*batchEntries + 5 {
			name, c := fmt.Sprintf("f%d", i), strings.Repeat(fmt.Sprintf("content %d\n", i), i%7)
			want[name] = c
			e := &archive.Entry{Name: name, Type: archive.TypeFile, Size: int64(len(c)), ModTime: archiveTime()}
			if err := x.WriteQueued(e, strings.NewReader(c), func(e *archive.Entry, err error) error {
				if err != nil {
					t.Errorf("%s: %v", e.Name, err)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := x.Flush(); err != nil {
			t.Fatal(err)
		}
		if x.buf != nil {
			t.Errorf("overwrite %v: small queued files allocated the copy buffer (%d bytes)", overwrite, len(x.buf))
		}
		big := strings.Repeat("b", maxQueuedContent+1)
		want["big"] = big
		if err := x.WriteQueued(&archive.Entry{Name: "big", Type: archive.TypeFile, Size: int64(len(big))}, strings.NewReader(big), func(e *archive.Entry, err error) error { return err }); err != nil {
			t.Fatal(err)
		}
		if err := x.Finish(); err != nil {
			t.Fatal(err)
		}
		if x.buf == nil {
			t.Errorf("overwrite %v: a large entry was written without the copy buffer", overwrite)
		}
		for name, c := range want {
			got, err := os.ReadFile(filepath.Join(dest, name))
			if err != nil || string(got) != c {
				t.Errorf("overwrite %v: %s: %q, %v; want %q", overwrite, name, got, err, c)
			}
			fi, err := os.Stat(filepath.Join(dest, name))
			if err == nil && name != "big" && !fi.ModTime().Equal(archiveTime()) {
				t.Errorf("overwrite %v: %s: time %v, want %v", overwrite, name, fi.ModTime(), archiveTime())
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dest, ".garc-*")); len(left) > 0 {
			t.Errorf("overwrite %v: temporary files left: %v", overwrite, left)
		}
	}
}

// TestWriteQueuedBatchRoom: a batch's content is allocated once, with
// room for all a batch can hold, and never regrown as entries are read
// into it (a regrowth copies what the batch holds).
func TestWriteQueuedBatchRoom(t *testing.T) {
	x, err := New(Options{Dest: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := strings.Repeat("z", maxQueuedContent)
	seen := map[*byte]bool{}
	for i := range 3 * queueBatches * batchBytes / maxQueuedContent {
		e := &archive.Entry{Name: fmt.Sprintf("f%d", i), Type: archive.TypeFile, Size: int64(len(c))}
		if err := x.WriteQueued(e, strings.NewReader(c), func(e *archive.Entry, err error) error { return err }); err != nil {
			t.Fatal(err)
		}
		b := x.q.Load().cur
		if b == nil {
			continue // just handed over
		}
		if room := batchBytes + maxQueuedContent + 1; cap(b.data) != room {
			t.Fatalf("entry %d: batch content of %d bytes has room for %d, want %d", i, len(b.data), cap(b.data), room)
		}
		seen[unsafe.SliceData(b.data)] = true
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if len(seen) > queueBatches {
		t.Errorf("%d content arrays for %d batches", len(seen), queueBatches)
	}
}
