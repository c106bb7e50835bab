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

func lower() bool {
	if runtime.GOMAXPROCS(0) == 1 {
		return false
	}
	runtime.GOMAXPROCS(1)
	return true
}
