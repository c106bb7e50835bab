package extract_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
)

// An Extractor writes the entries a format reader hands it, refusing
// unsafe ones; Finish applies directory times at the end, Rollback undoes
// a run that failed as a whole (a wrong password).
func Example() {
	dest, err := os.MkdirTemp("", "extract-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dest)

	x, err := extract.New(extract.Options{
		Dest: dest,
		Warn: func(entry string, err error) { fmt.Println("warning:", err) },
	})
	if err != nil {
		log.Fatal(err)
	}
	entries := []struct {
		e       archive.Entry
		content string
	}{
		{archive.Entry{Name: "docs", Type: archive.TypeDir}, ""},
		{archive.Entry{Name: "docs/readme.txt", Type: archive.TypeFile}, "hello\n"},
		{archive.Entry{Name: "../escape.txt", Type: archive.TypeFile}, "refused"},
		{archive.Entry{Name: "docs/link", Type: archive.TypeSymlink, LinkTarget: "/etc/passwd"}, ""},
	}
	for _, en := range entries {
		// In garc the content reader comes from archive.Reader.Extract; it
		// ends with io.EOF only after the entry's checksum passed.
		x.Write(&en.e, strings.NewReader(en.content))
	}
	if err := x.Finish(); err != nil {
		log.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dest, "docs", "readme.txt"))
	fmt.Printf("%q\n", b)
	// Output:
	// warning: ../escape.txt: refused: path leaves the destination
	// warning: docs/link: refused: absolute link target: /etc/passwd
	// "hello\n"
}
