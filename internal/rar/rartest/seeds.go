package rartest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SeedFile returns the testing package's corpus file for one set of fuzz
// arguments ([]byte, uint8, uint16 and uint32 are supported).
func SeedFile(args ...any) []byte {
	b := []byte("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			b = fmt.Appendf(b, "[]byte(%q)\n", v)
		case uint8:
			b = fmt.Appendf(b, "uint8(%d)\n", v)
		case uint16:
			b = fmt.Appendf(b, "uint16(%d)\n", v)
		case uint32:
			b = fmt.Appendf(b, "uint32(%d)\n", v)
		default:
			panic(fmt.Sprintf("rartest.SeedFile: unsupported argument type %T", a))
		}
	}
	return b
}

// CheckSeeds keeps the committed seed corpus of one fuzz target,
// testdata/fuzz/TARGET/gen-NAME, equal to the generated seeds: with update
// it writes them, otherwise it reports each file missing or stale.
func CheckSeeds(t *testing.T, target string, seeds map[string][]any, update bool) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	for name, args := range seeds {
		p := filepath.Join(dir, "gen-"+name)
		want := SeedFile(args...)
		if update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is missing or stale: run go test -run TestFuzzSeeds -update-seeds", p)
		}
	}
}
