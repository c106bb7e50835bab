package testenv

import (
	"archive/tar"
	"bytes"
	"strings"
)

// RepeatTar returns a tar, written by Go's archive/tar, of one regular
// file per name (mode 0644) holding the name repeated n times.
func RepeatTar(n int, names ...string) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, name := range names {
		data := strings.Repeat(name, n)
		tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))})
		tw.Write([]byte(data))
	}
	tw.Close()
	return b.Bytes()
}
