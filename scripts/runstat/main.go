//go:build unix

// Command runstat runs one shell command line once and reports what it cost,
// in microseconds, for scripts/bench-matrix: the wall time (from the
// monotonic clock, around the start and the wait), the CPU time (user+sys of
// the shell and every process it waited for, from the kernel's rusage of the
// waited process, as cpupairs takes it) and the peak resident set (KiB, the
// largest of those processes'). GNU time counts 10 ms steps; a 0.05 s run
// needs finer ones.
//
// Usage:
//
//	runstat [-o FILE] CMD
//
// runs `sh -c CMD` with runstat's standard input, output and error, then
// writes one line, "WALL CPU MAXRSS" (seconds with six decimals, seconds
// with six decimals, KiB), to FILE (default: standard error), and exits
// with CMD's exit status (128+N when a signal N ended it). The line is
// written even when CMD fails. The shell's own start (about a millisecond)
// is counted like the command's; commands that allow it should start with
// `exec` so that the shell is replaced rather than forked.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// errUsage reports a command line runstat cannot use.
var errUsage = errors.New("usage: runstat [-o FILE] CMD")

// stats is what one run cost.
type stats struct {
	wall, cpu time.Duration
	maxRSS    int64 // KiB
}

func main() {
	code, err := runMain(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "runstat:", err)
	}
	os.Exit(code)
}

// runMain parses args, runs the command and writes its line; it returns the
// exit status for runstat.
func runMain(args []string) (int, error) {
	out := ""
	if len(args) >= 1 && args[0] == "-o" {
		if len(args) < 2 {
			return 2, errUsage
		}
		out, args = args[1], args[2:]
	}
	if len(args) == 1 && args[0] == "--" {
		return 2, errUsage
	}
	if len(args) >= 1 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) != 1 {
		return 2, errUsage
	}
	st, code, runErr := run(args[0])
	line := fmt.Sprintf("%.6f %.6f %d\n", st.wall.Seconds(), st.cpu.Seconds(), st.maxRSS)
	var err error
	if out == "" {
		_, err = os.Stderr.WriteString(line)
	} else {
		err = os.WriteFile(out, []byte(line), 0o644)
	}
	if err != nil {
		return 2, fmt.Errorf("result: %w", err)
	}
	return code, runErr
}

// run runs `sh -c cmd` once; it returns the cost, the exit status and an
// error only when the shell could not be started or waited for.
func run(cmd string) (stats, int, error) {
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := c.Start()
	if err != nil {
		return stats{}, 127, fmt.Errorf("start: %w", err)
	}
	err = c.Wait()
	wall := time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return stats{wall: wall}, 127, fmt.Errorf("wait: %w", err)
	}
	st := stats{wall: wall}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		st.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		st.maxRSS = ru.Maxrss
	}
	code := c.ProcessState.ExitCode()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	return st, code, nil
}
