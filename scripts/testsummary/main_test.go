package main

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	cases := []struct {
		name       string
		events     string
		wantFailed bool
		want       []string // substrings of the output, in order
		notWant    []string
	}{
		{
			name: "skips counted by reason",
			events: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:12: 7zz not found\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: 7zz not found\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:9: the shared corpus is missing\n"}
{"Action":"skip","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Test":"TestD","Output":"--- PASS: TestD (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestD"}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"pass","Package":"p"}
`,
			want:    []string{"ok  \tp\t0.1s\n", "3 tests skipped: 7zz not found (2); the shared corpus is missing (1)\n"},
			notWant: []string{"--- PASS", "=== RUN", "--- SKIP"},
		},
		{
			name: "failing test shows its output",
			events: `{"Action":"output","Package":"p","Test":"TestF","Output":"=== RUN   TestF\n"}
{"Action":"output","Package":"p","Test":"TestF","Output":"    f_test.go:5: got 1, want 2\n"}
{"Action":"output","Package":"p","Test":"TestF","Output":"--- FAIL: TestF (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestF"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
`,
			wantFailed: true,
			want:       []string{"got 1, want 2", "--- FAIL: TestF", "FAIL\tp", "0 tests skipped."},
		},
		{
			name:       "build error passes through",
			events:     "# p\n./x.go:1:1: syntax error\n" + `{"Action":"fail","Package":"p"}` + "\n",
			wantFailed: true,
			want:       []string{"./x.go:1:1: syntax error"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			failed, err := summarize(strings.NewReader(c.events), &out)
			if err != nil {
				t.Fatal(err)
			}
			if failed != c.wantFailed {
				t.Errorf("failed = %v, want %v", failed, c.wantFailed)
			}
			s := out.String()
			rest := s
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, s)
				}
				rest = rest[i+len(w):]
			}
			for _, nw := range c.notWant {
				if strings.Contains(s, nw) {
					t.Errorf("output has %q:\n%s", nw, s)
				}
			}
		})
	}
}
