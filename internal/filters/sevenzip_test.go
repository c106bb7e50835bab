package filters

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// Test fixtures are made at test time with 7-Zip's 7zz (skipped when it is
// absent): archives with a filter followed by the Copy method and an
// uncompressed header, from which the filtered streams are cut out.

func need7zz(t testing.TB) string {
	t.Helper()
	return testenv.SevenZip(t)
}

// run7zz runs 7zz with args in dir.
func run7zz(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(need7zz(t), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz %v: %v\n%s", args, err, out)
	}
}

// make7z archives data as one file with the given -m options and an
// uncompressed header, and returns the archive bytes.
func make7z(t testing.TB, data []byte, methods ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"a", "-t7z", "-mhc=off", "-mf=off", "-bd", "-y"}
	args = append(args, methods...)
	args = append(args, "a.7z", "f")
	run7zz(t, dir, args...)
	arc, err := os.ReadFile(filepath.Join(dir, "a.7z"))
	if err != nil {
		t.Fatal(err)
	}
	return arc
}

// folderStreams parses the uncompressed header of a single-folder 7z
// archive whose coders are one main coder (listed last or first) fed
// through Copy coders, and returns the packed bytes that reach each input
// of the coder with method ID id, in input order.
func folderStreams(arc []byte, id []byte) ([][]byte, error) {
	s, _, err := folderCoder(arc, id)
	return s, err
}

// folderCoder is folderStreams that also returns the coder's properties.
func folderCoder(arc []byte, id []byte) ([][]byte, []byte, error) {
	bad := errors.New("unexpected 7z header layout")
	if len(arc) < 32 {
		return nil, nil, bad
	}
	off := binary.LittleEndian.Uint64(arc[12:])
	size := binary.LittleEndian.Uint64(arc[20:])
	if off > uint64(len(arc)) || 32+off+size > uint64(len(arc)) {
		return nil, nil, bad
	}
	h := arc[32+off : 32+off+size]
	pos := 0
	byteAt := func() int {
		if pos >= len(h) {
			return -1
		}
		pos++
		return int(h[pos-1])
	}
	number := func() uint64 {
		first := byteAt()
		if first < 0 {
			return 0
		}
		mask := 0x80
		var v uint64
		for i := 0; i < 8; i++ {
			if first&mask == 0 {
				return v | uint64(first&(mask-1))<<(8*i)
			}
			v |= uint64(byteAt()) << (8 * i)
			mask >>= 1
		}
		return v
	}
	expect := func(b int) bool { return byteAt() == b }
	if !expect(0x01) || !expect(0x04) || !expect(0x06) {
		return nil, nil, bad
	}
	packPos := number()
	numPack := int(number())
	if !expect(0x09) || numPack > 16 {
		return nil, nil, bad
	}
	sizes := make([]uint64, numPack)
	for i := range sizes {
		sizes[i] = number()
	}
	// No CRCs of packed streams (property 0x0A) are expected.
	if byteAt() != 0 {
		return nil, nil, bad
	}
	if !expect(0x07) || !expect(0x0B) || number() != 1 || !expect(0) {
		return nil, nil, bad
	}
	type coder struct {
		id            []byte
		firstIn       int
		numIn, numOut int
		firstOut      int
		props         []byte
	}
	numCoders := int(number())
	coders := make([]coder, numCoders)
	totalIn, totalOut := 0, 0
	for i := range coders {
		flag := byteAt()
		n := flag & 0xF
		c := coder{id: append([]byte(nil), h[pos:pos+n]...), numIn: 1, numOut: 1}
		pos += n
		if flag&0x10 != 0 {
			c.numIn = int(number())
			c.numOut = int(number())
		}
		if flag&0x20 != 0 {
			n := int(number())
			if pos+n > len(h) {
				return nil, nil, bad
			}
			c.props = h[pos : pos+n]
			pos += n
		}
		c.firstIn, c.firstOut = totalIn, totalOut
		totalIn += c.numIn
		totalOut += c.numOut
		coders[i] = c
	}
	bindIn := map[int]int{} // in-stream -> out-stream
	for i := 0; i < totalOut-1; i++ {
		in := int(number())
		bindIn[in] = int(number())
	}
	packIn := make([]int, totalIn-(totalOut-1)) // pack stream -> in-stream
	if len(packIn) == 1 {
		for i := 0; i < totalIn; i++ {
			if _, ok := bindIn[i]; !ok {
				packIn[0] = i
			}
		}
	} else {
		for i := range packIn {
			packIn[i] = int(number())
		}
	}
	if len(packIn) != numPack {
		return nil, nil, bad
	}
	packData := map[int][]byte{} // in-stream -> bytes
	start := 32 + packPos
	for i, s := range sizes {
		if start+s > uint64(len(arc)) {
			return nil, nil, bad
		}
		packData[packIn[i]] = arc[start : start+s]
		start += s
	}
	// Resolve each input of the main coder: packed directly, or the
	// output of a Copy coder whose input is packed.
	for _, c := range coders {
		if !bytes.Equal(c.id, id) {
			continue
		}
		res := make([][]byte, c.numIn)
		for k := 0; k < c.numIn; k++ {
			in := c.firstIn + k
			if d, ok := packData[in]; ok {
				res[k] = d
				continue
			}
			out, ok := bindIn[in]
			if !ok {
				return nil, nil, bad
			}
			for _, cc := range coders {
				if cc.firstOut == out && len(cc.id) == 1 && cc.id[0] == 0 {
					res[k] = packData[cc.firstIn]
				}
			}
			if res[k] == nil {
				return nil, nil, bad
			}
		}
		return res, c.props, nil
	}
	return nil, nil, bad
}
