// Command garc extracts, lists, tests and creates 7z and RAR archives.
// See internal/cli for the command line and the exit codes.
package main

import (
	"os"

	// Modules required by go.mod that no package imports yet; they keep
	// go.mod tidy until their users land.
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/nwaples/rardecode/v2"
	_ "github.com/ulikunitz/xz"
	_ "golang.org/x/crypto/pbkdf2"

	"github.com/garc-dev/garc/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
