package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// streamingReader is a reader like a compressed tar's: its entry list is
// built while Extract decodes, so reading it first would decode the
// stream twice. early counts the Entries calls made before Extract.
type streamingReader struct {
	entries   []*archive.Entry
	extracted bool
	early     int
	scanErr   error
}

func (r *streamingReader) Info() *archive.Info { return &archive.Info{Format: "tar.gz"} }
func (r *streamingReader) Close() error        { return nil }
func (r *streamingReader) Streaming() bool     { return !r.extracted && r.scanErr == nil }
func (r *streamingReader) Err() error          { return r.scanErr }

func (r *streamingReader) Entries() []*archive.Entry {
	if !r.extracted {
		r.early++
	}
	return r.entries
}

func (r *streamingReader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	defer func() { r.extracted = true }()
	for _, e := range r.entries {
		if want(e) {
			if err := fn(e, strings.NewReader(strings.Repeat("x", int(e.Size)))); err != nil {
				return err
			}
		}
	}
	return nil
}

// withStreamingReader makes every archive open as a fresh streamingReader
// for the duration of the test; the readers opened are returned through
// opened.
func withStreamingReader(t *testing.T, scanErr error) (opened *[]*streamingReader) {
	t.Helper()
	var rs []*streamingReader
	saved := openArchive
	openArchive = func(name string, opts *archive.Options) (archive.Reader, error) {
		r := &streamingReader{scanErr: scanErr, entries: []*archive.Entry{
			{Name: "dir", Type: archive.TypeDir, Size: 0, Block: -1},
			{Name: "dir/a.txt", Type: archive.TypeFile, Size: 5, Block: -1},
		}}
		rs = append(rs, r)
		return r, nil
	}
	t.Cleanup(func() { openArchive = saved })
	return &rs
}

// TestStreamingReaderDecodedOnce checks that x, t and -so do not read a
// streaming reader's entry list before Extract (a compressed tar is then
// decoded once), that a selection matching nothing is still exit 10, and
// that l reports a list cut short by a broken stream (exit 2).
func TestStreamingReaderDecodedOnce(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		code  int
		early int
	}{
		{[]string{"t", "a.tar.gz"}, ExitOK, 0},
		{[]string{"x", "-so", "a.tar.gz"}, ExitOK, 0},
		{[]string{"x", "-o" + filepath.Join(dir, "out"), "a.tar.gz"}, ExitOK, 0},
		{[]string{"t", "a.tar.gz", "dir/a.txt"}, ExitOK, 0},
		{[]string{"t", "a.tar.gz", "nothing"}, ExitNoMatch, 0},
		// Extracting with patterns reads the list first: hard links
		// bring the entries they are made from.
		{[]string{"x", "-o" + filepath.Join(dir, "out2"), "a.tar.gz", "dir/a.txt"}, ExitOK, 2},
	} {
		opened := withStreamingReader(t, nil)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(tc.args, "-q"), strings.NewReader(""), &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d: %s", tc.args, code, tc.code, stderr.String())
		}
		if len(*opened) != 1 || (*opened)[0].early != tc.early {
			t.Errorf("%q: entry list read %d times before Extract, want %d", tc.args, (*opened)[0].early, tc.early)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out/dir/a.txt")); err != nil || string(b) != "xxxxx" {
		t.Errorf("x of a streaming reader: %q, %v", b, err)
	}

	broken := errors.New("a.tar.gz: at offset 99: gzip: unexpected end of data: corrupt or invalid archive")
	for _, args := range [][]string{{"l", "a.tar.gz"}, {"l", "--format=json", "a.tar.gz"}, {"lb", "a.tar.gz"}} {
		withStreamingReader(t, broken)
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != ExitFatal || !strings.Contains(stderr.String(), "unexpected end of data") {
			t.Errorf("%q of a broken stream: exit %d, %q", args, code, stderr.String())
		}
		if args[1] == "--format=json" {
			var line struct {
				Entries []any
				Error   string
			}
			if err := json.Unmarshal(stdout.Bytes(), &line); err != nil || len(line.Entries) != 2 || !strings.Contains(line.Error, "unexpected end of data") {
				t.Errorf("JSON line of a broken stream: %v, %s", err, stdout.String())
			}
		}
	}
}
