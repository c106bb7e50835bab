package rar_test

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar"
)

// Example opens an archive (any later volumes are found by name), lists
// its entries and extracts them. Extract visits the entries in archive
// order, decoding solid runs once; the reader passed to the callback
// reports a checksum mismatch (archive.ErrChecksum) when it reaches the
// end of an entry whose content is wrong.
func Example() {
	const path = "testdata/example.rar"
	f, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		fmt.Println(err)
		return
	}
	// OpenFile takes f over: r.Close closes it, as does a failed open.
	r, err := rar.OpenFile(f, st.Size(), path, &archive.Options{
		MaxDict: 256 << 20, // refuse dictionaries above 256 MiB (exit 8 in garc)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	fmt.Println(r.Info().Format)
	for _, e := range r.Entries() {
		fmt.Printf("%-16s %3d bytes\n", e.Name, e.Size)
	}

	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		data, err := io.ReadAll(rd)
		if err != nil {
			return err // corrupt data, checksum mismatch, wrong password…
		}
		fmt.Printf("%s: %q\n", e.Name, data)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// rar5
	// docs/readme.txt   25 bytes
	// hello.txt         13 bytes
	// docs/readme.txt: "garc reads RAR archives.\n"
	// hello.txt: "hello, world\n"
}
