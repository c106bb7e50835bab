package sevenzip_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sevenzip"
)

// Open an archive, list it, and read the entries wanted in one pass.
func ExampleNewReader() {
	data, err := os.ReadFile("testdata/example.7z")
	if err != nil {
		log.Fatal(err)
	}
	// Any io.ReaderAt works, an *os.File as well.
	opts := &archive.Options{
		Name:    "example.7z", // used in errors
		MaxDict: 64 << 20,     // refuse dictionaries and models above 64 MiB
		Password: func() (string, error) { // asked only if the archive is encrypted
			return "", archive.ErrPasswordRequired
		},
	}
	rd, err := sevenzip.NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		log.Fatal(err)
	}
	defer rd.Close()

	for _, e := range rd.Entries() {
		fmt.Printf("%-4s %2d %-8s %s\n", e.Type, e.Size, e.Method, e.Name)
	}

	// Extract visits the wanted entries in archive order; each reader
	// checks the entry's CRC at its end.
	text := func(e *archive.Entry) bool { return e.Type == archive.TypeFile }
	err = rd.Extract(context.Background(), text, func(e *archive.Entry, r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err // or record it and return nil to go on
		}
		fmt.Printf("%s: %q\n", e.Name, b)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// dir   0          docs
	// file 24 LZMA2:12 docs/notes.txt
	// file 11 LZMA2:12 hello.txt
	// docs/notes.txt: "garc reads 7z archives.\n"
	// hello.txt: "Hello, 7z!\n"
}
