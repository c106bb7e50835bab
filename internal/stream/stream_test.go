package stream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// extractOne opens data as a single-stream file and returns its entry and
// content.
func extractOne(t *testing.T, name string, data []byte) (*archive.Entry, []byte, error) {
	t.Helper()
	return extractOneErr(name, data)
}

var errNotRecognised = errors.New("not recognised")

func extractOneErr(name string, data []byte) (*archive.Entry, []byte, error) {
	k, ok := Identify(data[:min(len(data), HeadSize)])
	if !ok {
		return nil, nil, errNotRecognised
	}
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)), k, &archive.Options{Name: name})
	if err != nil {
		return nil, nil, err
	}
	var got []byte
	var e *archive.Entry
	err = f.Extract(context.Background(), nil, func(en *archive.Entry, r io.Reader) error {
		e = en
		var err error
		got, err = io.ReadAll(r)
		return err
	})
	return e, got, err
}

func tool(t testing.TB, data []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, name), args...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

func TestToolRoundTrips(t *testing.T) {
	data := bytes.Repeat([]byte("garc reads single streams; "), 20000)
	cases := []struct {
		file string
		comp []byte
		kind Kind
		want string
	}{
		{"a.txt.gz", tool(t, data, "gzip", "-c", "-n"), Gzip, "a.txt"},
		{"a.tgz", tool(t, data, "gzip", "-c", "-n"), Gzip, "a.tar"},
		{"b.bz2", tool(t, data, "bzip2", "-c"), Bzip2, "b"},
		{"c.xz", tool(t, data, "xz", "-c"), XZ, "c"},
		{"d.lzma", tool(t, data, "xz", "-c", "--format=lzma"), LZMA, "d"},
		{"e.zst", tool(t, data, "zstd", "-c", "-q", "--check"), Zstd, "e"},
		{"noext", tool(t, data, "zstd", "-c", "-q"), Zstd, "noext~"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			if k, ok := Identify(c.comp[:HeadSize]); !ok || k != c.kind {
				t.Fatalf("identified as %v %v, want %v", k, ok, c.kind)
			}
			e, got, err := extractOne(t, c.file, c.comp)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) || e.Name != c.want {
				t.Fatalf("entry %q, %d bytes; want %q, %d", e.Name, len(got), c.want, len(data))
			}
			// Multi-member: two copies concatenated give the data twice.
			double := append(bytes.Clone(c.comp), c.comp...)
			if c.kind == LZMA {
				return // .lzma has one stream
			}
			_, got, err = extractOne(t, c.file, double)
			if err != nil || !bytes.Equal(got, append(bytes.Clone(data), data...)) {
				t.Fatalf("concatenated: %v, %d bytes", err, len(got))
			}
			// Truncation is an error wrapping a sentinel, never silent.
			_, _, err = extractOne(t, c.file, c.comp[:len(c.comp)*2/3])
			if err == nil || !archive.HasSentinel(err) {
				t.Fatalf("truncated: error %v", err)
			}
		})
	}
}

func TestGzipStoredName(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "original.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	gz := testenv.Tool(t, "gzip")
	if out, err := exec.Command(gz, "-k", p).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	comp, _ := os.ReadFile(p + ".gz")
	e, got, err := extractOne(t, "renamed.gz", comp)
	if err != nil || e.Name != "original.txt" || string(got) != "hello" || e.ModTime.IsZero() {
		t.Fatalf("entry %+v, %q, %v", e, got, err)
	}
}

func TestDictionaryLimit(t *testing.T) {
	data := []byte("small")
	for _, c := range []struct {
		comp []byte
		kind Kind
	}{
		{tool(t, data, "xz", "-c", "-9"), XZ},
		{tool(t, data, "xz", "-c", "-9", "--format=lzma"), LZMA},
		{tool(t, data, "zstd", "-c", "-q", "--long=27"), Zstd},
	} {
		f, err := OpenFile(bytes.NewReader(c.comp), int64(len(c.comp)), c.kind, &archive.Options{Name: "x", MaxDict: 1 << 20})
		if err == nil {
			err = f.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
				_, err := io.ReadAll(r)
				return err
			})
		}
		if c.kind == Zstd && err == nil {
			continue // a 5-byte frame declares a window no larger than its content
		}
		if !errors.Is(err, archive.ErrLimit) {
			t.Fatalf("%v: error %v, want ErrLimit", c.kind, err)
		}
	}
}

// knownFailures are corpus-more units that do not behave yet, with the
// reason. The list is to shrink to nothing; a listed unit that starts to
// pass fails the test, so the list cannot go stale.
var knownFailures = map[string]string{}

// TestCorpusMore runs every single-stream unit of ../shared/corpus-more.
func TestCorpusMore(t *testing.T) {
	root := testenv.MoreCorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	formats := map[string]bool{"gzip": true, "bzip2": true, "xz": true, "lzma": true, "zstd": true}
	n := 0
	for _, u := range units {
		if !formats[u.Format] {
			continue
		}
		n++
		t.Run(u.Format+"/"+filepath.Base(u.Unit), func(t *testing.T) {
			err := checkUnit(root, &u)
			reason, known := knownFailures[u.Unit]
			switch {
			case known && err == nil:
				t.Errorf("listed as a known failure (%s) but passes: remove it from knownFailures", reason)
			case known:
				t.Logf("known failure (%s): %v", reason, err)
			case err != nil:
				t.Error(err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no single-stream units found")
	}
}

// checkUnit extracts one unit and compares it with what the index expects.
func checkUnit(root string, u *corpus.Unit) error {
	data, err := os.ReadFile(u.Path(root))
	if err != nil {
		return err
	}
	e, got, err := extractOneErr(filepath.Base(u.Unit), data)
	switch u.Expect {
	case "ok":
		if err != nil {
			return err
		}
		if u.Expected == "" || u.GTNote != "" {
			return nil
		}
		list, err := corpus.Listing(root, u.Expected)
		if err != nil || len(list) != 1 {
			return fmt.Errorf("listing: %v (%d rows)", err, len(list))
		}
		sum := sha256.Sum256(got)
		if hex.EncodeToString(sum[:]) != list[0].SHA256 || list[0].Path != e.Name {
			return fmt.Errorf("got %q (%d bytes), want %q (%d bytes)", e.Name, len(got), list[0].Path, list[0].Size)
		}
	case "error-corrupt":
		if err == nil {
			return errors.New("corrupt file decoded without error")
		}
		if !archive.HasSentinel(err) && !errors.Is(err, errNotRecognised) {
			return fmt.Errorf("error %v wraps no sentinel", err)
		}
	}
	return nil
}

// countingReader counts the Reads of r.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestZstdInputBuffered: the decoder reads the file through zstdInputSize
// bytes at a time, not two Reads (system calls) per block, its header's
// 3 bytes and its content; the decoded bytes are the same.
func TestZstdInputBuffered(t *testing.T) {
	data := testenv.MixedData(t, 4<<20)
	comp := tool(t, data, "zstd", "-c", "-q", "-3")
	src := &countingReader{r: bytes.NewReader(comp)}
	d, _, err := NewDecoder(Zstd, src, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := io.ReadAll(d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%d bytes, %v; want %d", len(got), err, len(data))
	}
	blocks := len(data) / (128 << 10)
	if most := len(comp)/zstdInputSize + 3; src.reads > most {
		t.Errorf("%d reads of %d bytes (at least %d blocks), want at most %d", src.reads, len(comp), blocks, most)
	}
}

// TestZstdDecoderReused: a zstd decoder opened after another was closed
// takes over its decoder and window buffer (a .tar.zst is opened twice:
// to see whether it holds a tar, then to read it) instead of allocating
// them again: a cycle of opening, reading the first KiB and closing
// allocates well under the 2 MiB window of zstd -3.
func TestZstdDecoderReused(t *testing.T) {
	comp := tool(t, testenv.MixedData(t, 3<<20), "zstd", "-c", "-q", "-3")
	cycle := func() {
		d, _, err := NewDecoder(Zstd, bytes.NewReader(comp), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(d, make([]byte, 1024)); err != nil {
			t.Fatal(err)
		}
		d.Close()
		if _, err := d.Read(make([]byte, 1)); err == nil {
			t.Fatal("read after Close")
		}
		d.Close() // a second Close does nothing
	}
	cycle()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 4
	for range n {
		cycle()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 1<<20 {
		t.Errorf("%d bytes allocated per opening", per)
	}
}
