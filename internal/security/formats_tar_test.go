package security

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarBlock is a ustar header block for name with typeflag and size,
// followed by data padded to whole blocks.
func tarBlock(name string, typeflag byte, data []byte) []byte {
	b := make([]byte, 512)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", len(data)))
	copy(b[136:], "14000000000\x00")
	b[156] = typeflag
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	padded := make([]byte, (len(data)+511)/512*512)
	copy(padded, data)
	return append(b, padded...)
}

// paxRecords formats pax "LEN KEY=VALUE\n" records.
func paxRecords(kv ...string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(kv); i += 2 {
		n := len(kv[i]) + len(kv[i+1]) + 3
		for len(fmt.Sprint(n))+len(kv[i])+len(kv[i+1])+3 != n {
			n++
		}
		fmt.Fprintf(&b, "%d %s=%s\n", n, kv[i], kv[i+1])
	}
	return b.Bytes()
}

// TestHostileTarMetadata: tar metadata that would make a reader allocate
// or loop without bound is refused quickly with the documented exit code:
// sparse maps and extended headers are bounded before they are kept.
func TestHostileTarMetadata(t *testing.T) {
	var bigMap strings.Builder
	for i := 0; i < 60000; i++ {
		if i > 0 {
			bigMap.WriteByte(',')
		}
		fmt.Fprintf(&bigMap, "%d,1", 2*i)
	}
	sparse10 := func(mapText string) []byte {
		data := make([]byte, 512)
		copy(data, mapText)
		return append(tarBlock("P", 'x', paxRecords("GNU.sparse.major", "1", "GNU.sparse.minor", "0", "GNU.sparse.realsize", "100")),
			tarBlock("sp", '0', data)...)
	}
	cases := []struct {
		name string
		tar  []byte
		args []string
		code int
	}{
		{"pax 1.0 sparse map count far beyond its data", sparse10("999999999999\n0\n1\n"), nil, 2},
		{"pax 1.0 sparse map that never ends", sparse10(strings.Repeat("1\n", 256)), nil, 2},
		{"pax 0.1 sparse map above the memory limit", append(tarBlock("P", 'x', paxRecords("GNU.sparse.map", bigMap.String(), "GNU.sparse.size", "120000")),
			tarBlock("sp", '0', bytes.Repeat([]byte{'a'}, 60000))...), []string{"--max-dict", "512k"}, 8},
		{"extended header above 1 MiB", tarBlock("P", 'x', paxRecords("comment", strings.Repeat("c", 2<<20))), nil, 8},
		{"sparse map segments out of order", append(tarBlock("P", 'x', paxRecords("GNU.sparse.map", "10,1,0,1", "GNU.sparse.size", "20")),
			tarBlock("sp", '0', []byte("ab"))...), nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSandbox(t)
			p := filepath.Join(s.Work, "h.tar")
			if err := os.WriteFile(p, c.tar, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range [][]string{{"t", "h.tar"}, {"x", "-odest", "h.tar"}} {
				r := runGarc(t, s.Work, append(cmd, c.args...)...)
				if r.code != c.code {
					t.Errorf("garc %s: exit %d, want %d\n%s", cmd[0], r.code, c.code, r.stderr)
				}
			}
		})
	}
}
