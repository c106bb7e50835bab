package tar

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
)

// chunkContent reads rd to its end with ReadChunk, as the extractor does.
func chunkContent(rd io.Reader) ([]byte, error) {
	cr, ok := rd.(interface{ ReadChunk() ([]byte, error) })
	if !ok {
		return nil, errors.New("no ReadChunk")
	}
	var out []byte
	for {
		b, err := cr.ReadChunk()
		out = append(out, b...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestReadChunk: an entry's content read with ReadChunk (from the
// read-ahead's buffer for a compressed tar read with two threads, from
// a buffer of the reader's own otherwise, a sparse file's expanded) is
// what Read gives, entry by entry; a compressed tar cut short fails the
// same way, with the archive's name and a sentinel.
func TestReadChunk(t *testing.T) {
	var plain bytes.Buffer
	for i, size := range []int{0, 1, 511, 512, 300000, 1 << 20, 3<<20 + 77} {
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(j*31 + j>>9 + i)
		}
		plain.Write(rawHeader{name: strings.Repeat("f", i+1), typeflag: '0', data: string(data)}.bytes())
	}
	plain.Write(oldGNUSparse("sparse", 1<<20+9, [][2]int64{{5, 2}, {1 << 20, 9}}, "ab123456789"))
	plain.Write(make([]byte, 2*blockSize))
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(plain.Bytes())
	w.Close()
	cut := gz.Bytes()[:gz.Len()*3/4]

	read := func(data []byte, kind stream.Kind, threads int, chunks bool) (map[string]string, error) {
		r, err := Open(bytes.NewReader(data), int64(len(data)), kind, &archive.Options{Name: "c.tar", Threads: threads})
		if err != nil {
			return nil, err
		}
		defer r.Close()
		got := map[string]string{}
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
			var b []byte
			var err error
			if chunks {
				b, err = chunkContent(rd)
			} else {
				b, err = io.ReadAll(rd)
			}
			got[e.Name] = string(b)
			return err
		})
		return got, err
	}
	for _, c := range []struct {
		name    string
		data    []byte
		kind    stream.Kind
		threads int
	}{
		{"plain", plain.Bytes(), 0, 1},
		{"gz", gz.Bytes(), stream.Gzip, 1},
		{"gz threads 2", gz.Bytes(), stream.Gzip, 2},
		{"gz cut", cut, stream.Gzip, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, werr := read(c.data, c.kind, c.threads, false)
			got, err := read(c.data, c.kind, c.threads, true)
			if len(got) != len(want) || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("ReadChunk: %d entries, %v; Read: %d, %v", len(got), err, len(want), werr)
			}
			for name, w := range want {
				if got[name] != w {
					t.Errorf("%s: %d bytes from ReadChunk, %d from Read (or others)", name, len(got[name]), len(w))
				}
			}
			if c.name == "gz cut" && (!errors.Is(err, archive.ErrFormat) || !strings.Contains(err.Error(), "c.tar")) {
				t.Errorf("cut: %v", err)
			}
			if c.name != "gz cut" && (err != nil || len(got) != 8 || len(got["sparse"]) != 1<<20+9) {
				t.Errorf("%d entries, sparse %d bytes, %v", len(got), len(got["sparse"]), err)
			}
		})
	}
}
