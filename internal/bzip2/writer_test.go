package bzip2

import (
	"bytes"
	"testing"
)

func compressOurs(t testing.TB, data []byte, level, threads, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	z, err := NewWriterThreads(&buf, level, threads)
	if err != nil {
		t.Fatal(err)
	}
	if chunk <= 0 {
		chunk = max(len(data), 1)
	}
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		if n, err := z.Write(p[:k]); err != nil || n != k {
			t.Fatalf("Write: %d, %v", n, err)
		}
		p = p[k:]
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestQuick(t *testing.T) {
	for _, in := range testInputs() {
		comp := compressOurs(t, in.data, 9, 1, 0)
		got, err := decodeStd(comp)
		if err != nil || !bytes.Equal(got, in.data) {
			t.Fatalf("%s: std: %v equal=%v", in.name, err, bytes.Equal(got, in.data))
		}
		got, err = decodeOurs(t, comp, 0)
		if err != nil || !bytes.Equal(got, in.data) {
			t.Fatalf("%s: ours: %v", in.name, err)
		}
		t.Logf("%s: %d -> %d", in.name, len(in.data), len(comp))
	}
}
