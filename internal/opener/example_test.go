package opener_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/opener"
)

// Open detects the format by content (7z or RAR, also behind an SFX stub
// or as a raw split) and returns a Reader; Extract visits the selected
// entries with their verified contents.
func ExampleOpen() {
	r, err := opener.Open("../../testdata/sample.7z", &archive.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	fmt.Println(r.Info().Format)
	err = r.Extract(context.Background(),
		func(e *archive.Entry) bool { return e.Type == archive.TypeFile },
		func(e *archive.Entry, content io.Reader) error {
			n, err := io.Copy(io.Discard, content) // io.EOF means the checksum passed
			fmt.Println(e.Name, n)
			return err
		})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// 7z
	// sample/docs/lines.txt 11692
	// sample/hello.txt 96
}

// Identify names formats garc does not read, for a useful message.
func ExampleIdentify() {
	fmt.Println(opener.Identify([]byte("PK\x03\x04\x14\x00")))
	fmt.Println(opener.Identify([]byte("\x1f\x8b\x08\x00")))
	fmt.Printf("%q\n", opener.Identify([]byte("plain text")))
	// Output:
	// ZIP
	// gzip
	// ""
}
