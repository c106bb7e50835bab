// Package oneproc sets GOMAXPROCS to 1 while garc's packages initialize.
//
// cli.Main would lower it too, but by then the packages' initializers
// have allocated from the caches of both processors (Ps), and taking a P
// away flushes its cache into the runtime's span lists, whose first use
// touches fresh pages: about 25 page faults and 6 % of a tiny archive's
// test (issue 13). This package imports nothing but the runtime, so it
// initializes before every package that allocates; cmd/garc imports it
// and hands Lowered to cli.Main (cli.ProcessorsLowered), which gives the
// runtime its default back when a run needs more than one P.
package oneproc

import "runtime"

// Lowered reports whether GOMAXPROCS was above 1 and was set to 1.
var Lowered = lower()

// stackSize is the size growStack gives the main goroutine's stack.
const stackSize = 16 << 10

var _ = growStack(stackSize/2 + 1)

// growStack grows the main goroutine's stack from the runtime's 2 KiB to
// 16 KiB in one copy, while only the runtime's initialization is below
// it: `garc t`, `x` and `l` reach 16 KiB, and grew there in three copies
// from deep in the command line, each walking every frame's stack map in
// pages of the binary not touched otherwise (4-6 % of `garc --version`'s
// CPU, issue 27). Its frame holds i bytes.
//
//go:noinline
func growStack(i int) byte {
	var b [stackSize * 3 / 4]byte
	b[i] = byte(i)
	return b[i/2]
}

func lower() bool {
	if runtime.GOMAXPROCS(0) == 1 {
		return false
	}
	runtime.GOMAXPROCS(1)
	return true
}
