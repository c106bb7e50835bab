// Command garc extracts, lists, tests and creates 7z and RAR archives.
// See internal/cli for the command line and the exit codes.
package main

import (
	"os"

	"github.com/garc-dev/garc/cmd/garc/internal/oneproc"
	"github.com/garc-dev/garc/internal/cli"
)

func main() {
	// The packages initialized on one P (package oneproc); the run
	// gives the runtime its default back when it needs more.
	cli.ProcessorsLowered = oneproc.Lowered
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
