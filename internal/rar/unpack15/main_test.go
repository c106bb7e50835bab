package unpack15

import (
	"fmt"
	"os"
	"testing"
)

// TestMain checks, before any test makes a Decoder, that package
// initialisation built none of the fixed code tables: every garc process
// initialises this package, and only RAR 1.5 data needs them.
func TestMain(m *testing.M) {
	if codeL1 != (fixedCode{}) || shortTables[0][0] != (shortTable{}) {
		fmt.Fprintln(os.Stderr, "unpack15: the fixed code tables were built at package initialisation")
		os.Exit(1)
	}
	os.Exit(m.Run())
}
