//go:build unix

// Command cpupairs compares the CPU time of commands on a machine whose
// speed moves from one second to the next: it runs them in turn, N rounds
// (the order rotated each round), and reports each command's mean CPU time
// (user+sys of the process and its threads, from the kernel's rusage), its
// system time and page faults, and, for every command after the first, the
// geometric mean of its per-round ratios to the first with two standard
// errors, and their median. Runs next to each other see the same machine,
// so the ratios vary far less than the times.
//
// Usage:
//
//	go run ./scripts/cpupairs N -- cmd1 args... -- cmd2 args... [-- cmd3 ...]
//
// For example, garc against 7zz at level 1 (docs/PERFORMANCE.md):
//
//	go run ./scripts/cpupairs 30 -- 7zz a -bd -mx1 -mmt1 /tmp/p.7z in.bin -- garc a -q -mx1 -mmt1 /tmp/p.7z in.bin
//
// A command's output goes to /dev/null. When a command is an archiver's
// add command (an argument before the last two is "a", as in "garc a -q
// OUT.7z IN" or "7zz a -bd OUT.7z IN") and its last but one argument
// names a regular file with an archive's extension (.7z, .zip, .tar,
// .gz, .tgz, .bz2, .xz, .zst, .lzma, .rar), that file is removed before
// each run, so that archivers create rather than update; no other file
// is ever removed (a tool's own path, an input or the archive of a
// wrapper script such as "x.sh ARCHIVE DIR" stays).
package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// archiveExts are the extensions of the outputs removeOutput removes.
var archiveExts = []string{".7z", ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".lzma", ".rar"}

// removeOutput removes name if it is a regular file named like an archive:
// the output of an archiver's previous round.
func removeOutput(name string) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	for _, ext := range archiveExts {
		if strings.HasSuffix(name, ext) {
			os.Remove(name)
			return
		}
	}
}

type sample struct{ cpu, sys, faults float64 }

func run(args []string) (sample, error) {
	if len(args) >= 3 && slices.Contains(args[1:len(args)-2], "a") {
		removeOutput(args[len(args)-2])
	}
	c := exec.Command(args[0], args[1:]...)
	if err := c.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %w", args, err)
	}
	ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("%v: no resource usage", args)
	}
	u, s := float64(ru.Utime.Nano())/1e9, float64(ru.Stime.Nano())/1e9
	return sample{cpu: u + s, sys: s, faults: float64(ru.Minflt + ru.Majflt)}, nil
}

func main() {
	if err := pairs(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cpupairs:", err)
		os.Exit(2)
	}
}

func pairs(args []string) error {
	if len(args) < 4 || args[1] != "--" {
		return fmt.Errorf("usage: cpupairs N -- CMD1 [ARGS] -- CMD2 [ARGS] [-- CMD3 [ARGS]]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 2 {
		return fmt.Errorf("rounds %q: want a number of at least 2", args[0])
	}
	var cmds [][]string
	for _, a := range args[1:] {
		if a == "--" {
			cmds = append(cmds, nil)
			continue
		}
		cmds[len(cmds)-1] = append(cmds[len(cmds)-1], a)
	}
	for i, c := range cmds {
		if len(c) == 0 {
			return fmt.Errorf("command %d is empty", i+1)
		}
	}
	got := make([][]sample, len(cmds))
	for r := 0; r < n; r++ {
		for j := range cmds {
			k := (r + j) % len(cmds)
			s, err := run(cmds[k])
			if err != nil {
				return err
			}
			got[k] = append(got[k], s)
		}
	}
	for j, c := range cmds {
		var cpu, sys, faults float64
		for _, s := range got[j] {
			cpu += s.cpu
			sys += s.sys
			faults += s.faults
		}
		line := fmt.Sprintf("%d %s: cpu %.4f s (sys %.4f), %.0f faults", j+1, c[0], cpu/float64(n), sys/float64(n), faults/float64(n))
		if j > 0 {
			logs := make([]float64, n)
			for r := range logs {
				logs[r] = math.Log(got[j][r].cpu / got[0][r].cpu)
			}
			mean, se := meanSE(logs)
			sort.Float64s(logs)
			line += fmt.Sprintf("; ×1: %.4f ±%.4f (2 s.e.), median %.4f", math.Exp(mean), 2*se*math.Exp(mean), math.Exp(logs[n/2]))
		}
		fmt.Println(line)
	}
	return nil
}

// meanSE returns the mean of x and its standard error.
func meanSE(x []float64) (mean, se float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss/float64(len(x)-1)) / math.Sqrt(float64(len(x)))
}
