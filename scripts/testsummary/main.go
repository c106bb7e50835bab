// Command testsummary reads the event stream of `go test -json` on standard
// input and prints what `go test` prints without -v (each package's ok or
// FAIL line, and the whole output of failing tests), followed by one line
// that counts the skipped tests and says why they were skipped, grouped by
// reason. `make test` pipes the test run through it, so that a run on a
// machine without the optional tools or the shared corpus says what it did
// not test instead of passing in silence.
//
// It exits 1 when a test or package failed or the stream could not be read,
// so that a pipeline with pipefail fails for either reason.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (the fields used here).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// testKey names one test of one package.
type testKey struct{ pkg, test string }

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// logLine matches the prefix that t.Log and t.Skip put before a message
// ("    file_test.go:12: ").
var logLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// summarize copies the non-verbose view of the events in r to w and ends
// with the skip summary. It reports whether anything failed.
func summarize(r io.Reader, w io.Writer) (failed bool, err error) {
	outputs := map[testKey][]string{}
	reasons := map[string]int{}
	skipped := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if json.Unmarshal(line, &ev) != nil {
			// Build errors and other non-JSON lines pass through as they are.
			fmt.Fprintln(w, string(line))
			continue
		}
		k := testKey{ev.Package, ev.Test}
		switch ev.Action {
		case "build-output":
			fmt.Fprint(w, ev.Output)
		case "output":
			if ev.Test == "" {
				// Package-level output: the ok/FAIL lines and what a test
				// binary prints outside any test.
				if !strings.HasPrefix(ev.Output, "=== ") && !strings.HasPrefix(ev.Output, "PASS\n") {
					fmt.Fprint(w, ev.Output)
				}
				continue
			}
			outputs[k] = append(outputs[k], ev.Output)
		case "fail":
			if ev.Test != "" {
				failed = true
				for _, o := range outputs[k] {
					fmt.Fprint(w, o)
				}
			} else {
				failed = true
			}
			delete(outputs, k)
		case "skip":
			if ev.Test != "" {
				skipped++
				reasons[skipReason(outputs[k])]++
			}
			delete(outputs, k)
		case "pass":
			delete(outputs, k)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	fmt.Fprintln(w, skipLine(skipped, reasons))
	return failed, nil
}

// skipReason is the last message a skipped test logged (its t.Skip text),
// without the file:line prefix.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		s := strings.TrimSpace(out[i])
		if s == "" || strings.HasPrefix(s, "--- SKIP") || strings.HasPrefix(s, "=== ") {
			continue
		}
		if loc := logLine.FindStringIndex(out[i]); loc != nil {
			return strings.TrimSpace(out[i][loc[1]:])
		}
		return s
	}
	return "no reason given"
}

// skipLine is the closing line: "0 tests skipped." or
// "3 tests skipped: 7zz not found (2), -short (1)".
func skipLine(n int, reasons map[string]int) string {
	if n == 0 {
		return "0 tests skipped."
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if reasons[keys[i]] != reasons[keys[j]] {
			return reasons[keys[i]] > reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d)", k, reasons[k])
	}
	noun := "tests"
	if n == 1 {
		noun = "test"
	}
	return fmt.Sprintf("%d %s skipped: %s", n, noun, strings.Join(parts, "; "))
}
