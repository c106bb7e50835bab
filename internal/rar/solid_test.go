package rar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/lzcore"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestSkippedSolidPredecessorFails: selecting only the last entry of a
// solid archive decodes the entries before it unseen; when one of those
// fails, the selected entry fails with that cause (it used to be dropped,
// leaving a later decode error or a checksum mismatch that named neither
// the entry nor the real damage).
func TestSkippedSolidPredecessorFails(t *testing.T) {
	root := testenv.CorpusRoot(t)
	for _, c := range []struct {
		rel     string
		damage  int64 // the first entry's packed data is damaged at size/damage
		culprit string
	}{
		{"files/sharpcompress/Archives__Rar5.solid.rar", 4, "тест.txt"},
		{"files/sharpcompress/Archives__Rar.solid.rar", 2, "тест.txt"},
		{"files/libarchive/test_read_format_rar5_multiple_files_solid.rar", 4, "test1.bin"},
	} {
		t.Run(filepath.Base(c.rel), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(root, c.rel))
			if err != nil {
				testenv.Missing(t, c.rel)
			}
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			first := r.(*reader).files[0].parts[0]
			r.Close()
			for k := int64(0); k < 8; k++ {
				data[first.offset+first.size/c.damage+k] ^= 0xa5
			}
			r, err = NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var last *archive.Entry
			for _, f := range r.(*reader).files {
				if f.usesDecoder() {
					last = &f.e
				}
			}
			var got error
			err = r.Extract(context.Background(), func(e *archive.Entry) bool { return e == last }, func(e *archive.Entry, rd io.Reader) error {
				_, got = io.Copy(io.Discard, rd)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(got, archive.ErrFormat) || !strings.Contains(got.Error(), "solid stream that failed in "+c.culprit) {
				t.Errorf("%s: want ErrFormat naming %s, got %v", last.Name, c.culprit, got)
			}
			// The cause says where in the culprit's packed data.
			var ce *lzcore.CorruptInputError
			if !errors.As(got, &ce) || ce.Offset < 0 || ce.Offset > first.size {
				t.Errorf("%s: want the packed offset of the damage, got %v", last.Name, got)
			}
		})
	}
}

// TestExtractWindowHint: Extract tells the decoders the largest window the
// entries it decodes will need (lzcore.Params.MinWindow), counting only
// entries within the dictionary limit, and never more than the limit (the
// window is the entry's size, not rounded up to a power of two).
func TestExtractWindowHint(t *testing.T) {
	path := filepath.Join(testenv.CorpusRoot(t), "files/sharpcompress/Archives__Rar.issue1050.rar")
	for _, c := range []struct {
		maxDict int64
		want    int64
	}{
		{0, 6001568},       // the largest entry
		{5 << 20, 4867620}, // the largest entry within the limit
		{4 << 20, 4034596}, // only this one and the small ones
	} {
		r, err := Open(path, &archive.Options{MaxDict: c.maxDict})
		if err != nil {
			t.Fatal(err)
		}
		r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
			io.Copy(io.Discard, rd)
			return nil
		})
		got := r.(*reader).minWindow[algoRAR5]
		if got != c.want {
			t.Errorf("MaxDict %d: window hint %d, want %d", c.maxDict, got, c.want)
		}
		if c.maxDict > 0 && got > c.maxDict {
			t.Errorf("MaxDict %d: window hint %d exceeds the limit", c.maxDict, got)
		}
		r.Close()
	}
}
