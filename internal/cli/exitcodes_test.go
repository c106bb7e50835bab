package cli

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestExitCodeTables keeps the exit-code table of `garc --help`
// (exitCodeTable), README.md's table and the severity order in step with
// the constants.
func TestExitCodeTables(t *testing.T) {
	codes := []int{ExitOK, ExitWarning, ExitFatal, ExitChecksum, ExitUsage, ExitLimit, ExitCreate, ExitNoMatch, ExitPassword, ExitInterrupted}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]*regexp.Regexp{
		"exitCodeTable": regexp.MustCompile(`(?m)^  (\d+) +\S`),
		"README.md":     regexp.MustCompile(`(?m)^\| (\d+) \| `),
	}
	texts := map[string]string{"exitCodeTable": exitCodeTable, "README.md": string(readme)}
	want := fmt.Sprint(codes)
	for name, re := range tables {
		var got []int
		for _, m := range re.FindAllStringSubmatch(texts[name], -1) {
			var n int
			fmt.Sscan(m[1], &n)
			got = append(got, n)
		}
		if fmt.Sprint(got) != want {
			t.Errorf("%s lists codes %v, the constants are %v", name, got, want)
		}
	}
	// The order "255, 7, 11, …" given in both is severity's.
	byS := append([]int(nil), codes[1:]...)
	sort.Slice(byS, func(i, j int) bool { return severity(byS[i]) > severity(byS[j]) })
	order := strings.Trim(strings.ReplaceAll(fmt.Sprint(byS), " ", ", "), "[]")
	for name, text := range texts {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), order) {
			t.Errorf("%s does not give the severity order %s", name, order)
		}
	}
}
