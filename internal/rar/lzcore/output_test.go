package lzcore

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// chunkSource hands out data in chunks of at most chunk bytes, then err.
type chunkSource struct {
	data     []byte
	chunk    int
	err      error
	consumed int
}

func (s *chunkSource) Next() ([]byte, error) {
	if len(s.data) == 0 {
		return nil, s.err
	}
	return s.data[:min(s.chunk, len(s.data))], nil
}

func (s *chunkSource) Consume(n int) {
	s.data = s.data[n:]
	s.consumed += n
}

type shortWriter struct{ n int }

func (w *shortWriter) Write(p []byte) (int, error) { return min(w.n, len(p)), nil }

func TestOutput(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100)
	bad := errors.New("bad data")

	// 1-byte and large reads see the same bytes, then io.EOF
	for _, size := range []int{1, 7, 4096} {
		s := &chunkSource{data: data, chunk: 64, err: io.EOF}
		var got []byte
		p := make([]byte, size)
		for {
			n, err := Read(s, p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil || n == 0 {
				t.Fatalf("read %d: n=%d err=%v", size, n, err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Errorf("read %d: wrong bytes", size)
		}
	}
	if n, err := Read(&chunkSource{data: data, chunk: 3}, nil); n != 0 || err != nil {
		t.Errorf("empty read: %d, %v", n, err)
	}

	var buf bytes.Buffer
	n, err := WriteTo(&chunkSource{data: data, chunk: 64, err: io.EOF}, &buf)
	if err != nil || n != int64(len(data)) || !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("WriteTo: %d, %v", n, err)
	}
	n, err = WriteTo(&chunkSource{data: data, chunk: 64, err: bad}, io.Discard)
	if !errors.Is(err, bad) || n != int64(len(data)) {
		t.Errorf("WriteTo with a decoding error: %d, %v", n, err)
	}
	s := &chunkSource{data: data, chunk: 64, err: io.EOF}
	n, err = WriteTo(s, &shortWriter{10})
	if err != io.ErrShortWrite || n != 10 || s.consumed != 10 {
		t.Errorf("short write: %d, %v, consumed %d", n, err, s.consumed)
	}

	s = &chunkSource{data: data, chunk: 64, err: io.EOF}
	if err := Drain(s); err != nil || s.consumed != len(data) {
		t.Errorf("Drain: %v, consumed %d", err, s.consumed)
	}
	if err := Drain(&chunkSource{data: data, chunk: 64, err: bad}); !errors.Is(err, bad) {
		t.Errorf("Drain with a decoding error: %v", err)
	}
}
