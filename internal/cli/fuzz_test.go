package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/wildcard"
)

// refMatch is a plain recursive wildcard matcher to check wildcard.Match
// against.
func refMatch(p, n []rune) bool {
	if len(p) == 0 {
		return len(n) == 0
	}
	switch p[0] {
	case '*':
		for i := 0; i <= len(n); i++ {
			if refMatch(p[1:], n[i:]) {
				return true
			}
		}
		return false
	case '?':
		return len(n) > 0 && refMatch(p[1:], n[1:])
	}
	return len(n) > 0 && n[0] == p[0] && refMatch(p[1:], n[1:])
}

func FuzzWildMatch(f *testing.F) {
	f.Add("*.txt", "a.txt")
	f.Add("a*b?c*", "aXbYcZ")
	f.Add("**?", "")
	f.Add("ü*?", "über")
	f.Fuzz(func(t *testing.T, pat, name string) {
		if len(pat) > 24 || len(name) > 48 {
			return // keep the reference matcher fast
		}
		if got, want := wildcard.Match(pat, name), refMatch([]rune(pat), []rune(name)); got != want {
			t.Fatalf("wildcard.Match(%q, %q) = %v, reference says %v", pat, name, got, want)
		}
	})
}

// FuzzNormalizeArgs checks that the normaliser never panics, keeps
// everything after "--" verbatim and never drops a positional argument.
func FuzzNormalizeArgs(f *testing.F) {
	f.Add("x -ofoo a.7z -- -y")
	f.Add("-p -mx9 a -m0=lzma2 -x!*.png b")
	f.Add("--password secret x a.7z")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		out := normalizeArgs(args)
		in := 0
		for i, a := range args {
			if a == "--" {
				tail := strings.Join(args[i:], " ")
				if !strings.HasSuffix(strings.Join(out, " "), tail) {
					t.Fatalf("%q: tail %q not kept in %q", args, tail, out)
				}
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				in++
			}
		}
		got := 0
		for _, a := range out {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				got++
			}
		}
		if got < in-countValues(args) {
			t.Fatalf("%q → %q: positional arguments lost", args, out)
		}
	})
}

// countValues counts arguments consumed as flag values.
func countValues(args []string) int {
	n := 0
	for i, a := range args {
		if a == "--" {
			break
		}
		if (shortValueFlags[a] || strings.HasPrefix(a, "--") && valueFlags[strings.TrimPrefix(a, "--")]) && i+1 < len(args) {
			n++
		}
	}
	return n
}

// decodeJSONName reverses appendJSONString: JSON string escapes, with
// the lone surrogates \udc80–\udcff standing for single bytes.
func decodeJSONName(t *testing.T, q string) string {
	t.Helper()
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		t.Fatalf("%s is not a JSON string", q)
	}
	var b strings.Builder
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				t.Fatalf("bad escape in %s", q)
			}
			if v >= 0xdc80 && v <= 0xdcff {
				b.WriteByte(byte(v - 0xdc00))
			} else {
				b.WriteRune(rune(v))
			}
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// FuzzJSONName checks the JSON form of names: valid JSON, no raw control
// character (C0, DEL, C1), and lossless: decoding gives the stored bytes
// back, so two different names never list the same.
func FuzzJSONName(f *testing.F) {
	f.Add("plain.txt")
	f.Add("bad\xff\xfe\u0085\x1b[2J")
	f.Add("\"\\\u2028\ufffd\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, name string) {
		q := string(appendJSONString(nil, name))
		if !json.Valid([]byte(q)) {
			t.Fatalf("%q gives invalid JSON %s", name, q)
		}
		for _, r := range q {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("%q gives %s with control U+%04X", name, q, r)
			}
		}
		if back := decodeJSONName(t, q); back != name {
			t.Fatalf("%q gives %s, which reads back as %q", name, q, back)
		}
	})
}
