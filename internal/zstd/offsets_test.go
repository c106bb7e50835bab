package zstd

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// frameBlocks returns the sequences sections of the compressed blocks of
// the one frame comp, with no dictionary and a window descriptor.
func frameBlocks(t *testing.T, comp []byte) [][]byte {
	t.Helper()
	d := comp[4]
	p := 4 + 1 + [4]int{0, 1, 2, 4}[d&3] + [4]int{0, 2, 4, 8}[d>>6] + 1
	if d&0x20 != 0 {
		t.Fatal("single segment")
	}
	var z Reader
	var out [][]byte
	for {
		v := int(comp[p]) | int(comp[p+1])<<8 | int(comp[p+2])<<16
		size := v >> 3
		p += 3
		switch v >> 1 & 3 {
		case 1:
			p++
		case 0:
			p += size
		case 2:
			_, rest, err := z.literals(comp[p:p+size], int64(p), maxBlockSize)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rest)
			p += size
		}
		if v&1 != 0 {
			return out
		}
	}
}

// TestOffsetCheckFollows: an OffsetCheck reads every block of frames made
// by klauspost's encoder at each level exactly through, finding no
// offset of 0; a block cut short, or with its modes' reserved bits set,
// is not followed.
func TestOffsetCheckFollows(t *testing.T) {
	var data []byte
	for i := range 40000 {
		data = binary.LittleEndian.AppendUint32(data, uint32(i*i)%1000)
		data = append(data, "some text, some text again "[i%20:]...)
	}
	for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithSingleSegment(false))
		if err != nil {
			t.Fatal(err)
		}
		blocks := frameBlocks(t, e.EncodeAll(data, nil))
		if len(blocks) < 2 {
			t.Fatalf("level %v: %d compressed blocks", l, len(blocks))
		}
		var c OffsetCheck
		c.Reset()
		for i, b := range blocks {
			if bad, ok := c.Block(b); !ok || bad != -1 {
				t.Fatalf("level %v block %d: %d, %v", l, i, bad, ok)
			}
		}
		c.Reset()
		last := blocks[0]
		if _, ok := c.Block(last[:len(last)-1]); ok && last[len(last)-2] != 0 {
			t.Errorf("level %v: a block cut short is followed", l)
		}
		c.Reset()
		bad := bytes.Clone(last)
		if bad[0] < 128 && bad[0] > 0 {
			bad[1] |= 1
			if _, ok := c.Block(bad); ok {
				t.Errorf("level %v: reserved mode bits followed", l)
			}
		}
	}
}

// TestPredefinedTables checks the tables of the predefined mode, which are
// built on first use (not at start-up) and then shared: the accuracy logs
// of RFC 8878 (6, 5, 6) and, for each code, as many states as its default
// distribution gives it (one for a probability of -1).
func TestPredefinedTables(t *testing.T) {
	tables := predefinedTables()
	if again := predefinedTables(); again != tables {
		t.Fatal("the predefined tables are built twice")
	}
	norms := [3][]int16{
		{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1},
		{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1},
		{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1},
	}
	for k, log := range []uint8{6, 5, 6} {
		tb := &tables[k]
		if tb.log != log {
			t.Errorf("table %d: log %d, want %d", k, tb.log, log)
		}
		code := map[uint32]int{} // the codes by their values
		for c := range norms[k] {
			v, _ := seqCodeValue(k, c)
			code[v] = c
		}
		count := make([]int, len(norms[k]))
		for s := range 1 << log {
			c, ok := code[tb.e[s].value]
			if !ok {
				t.Fatalf("table %d state %d: value %d of no code", k, s, tb.e[s].value)
			}
			count[c]++
		}
		for c, n := range norms[k] {
			if want := max(int(n), 1); count[c] != want {
				t.Errorf("table %d code %d: %d states, want %d", k, c, count[c], want)
			}
		}
	}
}
