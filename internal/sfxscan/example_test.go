package sfxscan_test

import (
	"bytes"
	"fmt"

	"github.com/garc-dev/garc/internal/sfxscan"
)

// Find locates a RAR archive behind a self-extractor stub.
func ExampleFind() {
	stub := bytes.Repeat([]byte("MZ executable code "), 100)
	file := append(stub, sfxscan.SigRAR5...)
	m, ok, err := sfxscan.Find(bytes.NewReader(file), int64(len(file)), 0, sfxscan.All)
	if err != nil || !ok {
		fmt.Println("no archive", err)
		return
	}
	fmt.Println(m.Format, "at", m.Offset)
	// Output: rar5 at 1900
}
