// The runtime does not re-check the CPU limit and affinity every second
// to move GOMAXPROCS (Go 1.25's automatic update): garc's runs are short,
// it sets GOMAXPROCS itself (package oneproc, cli.Main), and the update's
// goroutine, started before any package initializes, woke a second
// thread at every start (issue 27).
//go:debug updatemaxprocs=0

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
