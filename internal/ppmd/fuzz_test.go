package ppmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// Fuzz targets. The model arena is kept small and reused between inputs
// (stale arena contents must not matter); output is bounded so every input
// ends quickly. Minimising a large interesting input can stall the
// exec counter for a while; -fuzzminimizetime=200x keeps that short.

const fuzzMaxOut = 1 << 16

var fuzzState struct {
	sync.Mutex
	r7z Reader7z
	w7z Writer7z
	m   Model
	rar RARDecoder
}

// seedUnits returns the corpus units when the corpus is present: extra
// seeds, which the fuzz targets do not need.
func seedUnits(f *testing.F) (string, []corpus.Unit) {
	root, ok := corpus.Root()
	if !ok {
		return root, nil
	}
	units, err := corpus.Units(root)
	if err != nil {
		f.Fatal(err)
	}
	return root, units
}

// fuzzSeeds7z adds the small PPMd streams of the corpus as seeds.
func fuzzSeeds7z(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 'a', 'b', 'c'}, uint8(6), uint8(0))
	root, units := seedUnits(f)
	for _, u := range units {
		if u.Format != "7z" || !hasPPMd(&u) || u.Kind != "single" {
			continue
		}
		fs, err := ppmdFolders(u.Path(root))
		if err != nil {
			continue
		}
		for _, pf := range fs {
			if len(pf.packed) <= 8<<10 {
				f.Add(bytes.Clone(pf.packed), uint8(pf.order), uint8(0))
			}
		}
	}
}

// checkDecodeErr fails t unless err is nil or a CorruptInputError that
// wraps archive.ErrFormat and is not a fault of the model (which hostile
// input must never cause).
func checkDecodeErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ce *CorruptInputError
	var fault *modelFault
	switch {
	case errors.As(err, &fault):
		t.Fatalf("model fault: %v", err)
	case !errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat):
		t.Fatalf("error %v (%T) is not a CorruptInputError wrapping ErrFormat", err, err)
	case ce.Offset < 0:
		t.Fatalf("negative offset: %v", err)
	}
}

func FuzzReader7z(f *testing.F) {
	fuzzSeeds7z(f)
	f.Fuzz(func(t *testing.T, data []byte, order, memLog uint8) {
		o := MinOrder + int(order)%(MaxOrder-MinOrder+1)
		mem := uint32(MinMemSize) << (memLog % 8) // 2 KiB .. 256 KiB
		fuzzState.Lock()
		defer fuzzState.Unlock()
		d := &fuzzState.r7z
		if err := d.Reset(bytes.NewReader(data), o, mem, fuzzMaxOut); err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, d)
		if n > fuzzMaxOut {
			t.Fatalf("%d bytes out, limit %d", n, fuzzMaxOut)
		}
		checkDecodeErr(t, err)
		// Unknown size: until the end marker.
		if err := d.Reset(bytes.NewReader(data), o, mem, -1); err != nil {
			t.Fatal(err)
		}
		n, err = io.Copy(io.Discard, io.LimitReader(d, fuzzMaxOut))
		if n > fuzzMaxOut {
			t.Fatalf("%d bytes out", n)
		}
		checkDecodeErr(t, err)
	})
}

func FuzzRARDecoder(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3}, uint8(5), false)
	root, units := seedUnits(f)
	for _, u := range units {
		if u.Format != "rar4" || u.Kind != "single" || !hasPPMd(&u) {
			continue
		}
		data, err := os.ReadFile(u.Path(root))
		if err != nil {
			continue
		}
		files, _ := rar4Files(data)
		for _, rf := range files {
			// Seed with the range-coded part after a PPM block header.
			if len(rf.data) > 3 && len(rf.data) <= 16<<10 && rf.data[0]&0xA0 == 0xA0 {
				skip := 2
				if rf.data[0]&0x40 != 0 {
					skip = 3
				}
				f.Add(bytes.Clone(rf.data[skip:]), rf.data[0]&0x1F, false)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, twoBlocks bool) {
		order := int(flags&0x1F) + 1
		if order > 16 {
			order = 16 + (order-16)*3
		}
		if order < MinOrder {
			order = MinOrder
		}
		fuzzState.Lock()
		defer fuzzState.Unlock()
		m, d := &fuzzState.m, &fuzzState.rar
		if err := m.Init(order, 1<<20); err != nil {
			t.Fatal(err)
		}
		br := bytes.NewReader(data)
		blocks := 1
		if twoBlocks {
			blocks = 2 // a second block continuing the same model
		}
		for b := 0; b < blocks; b++ {
			if err := d.Init(m, br); err != nil {
				checkDecodeErr(t, err)
				return
			}
			for i := 0; i < fuzzMaxOut/2; i++ {
				sym, err := d.DecodeSymbol()
				if err != nil {
					checkDecodeErr(t, err)
					return
				}
				if sym < 0 || sym > 255 {
					t.Fatalf("symbol %d", sym)
				}
			}
		}
	})
}

// FuzzRoundTrip encodes arbitrary data with Writer7z and checks that
// Reader7z restores it, for any order and a small arena. The encoder is
// reused through ResetProps (stale arena contents must not matter) and
// fed in pieces whose size comes from the data.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("abracadabra"), uint8(4), uint8(0), false)
	f.Add(bytes.Repeat([]byte{0, 1, 2, 3, 255}, 300), uint8(62), uint8(3), true)
	f.Fuzz(func(t *testing.T, data []byte, order, memLog uint8, endMark bool) {
		if len(data) > 1<<16 {
			return
		}
		o := MinOrder + int(order)%(MaxOrder-MinOrder+1)
		mem := uint32(MinMemSize) << (memLog % 8)
		fuzzState.Lock()
		defer fuzzState.Unlock()
		var out bytes.Buffer
		z := &fuzzState.w7z
		if err := z.ResetProps(&out, o, mem); err != nil {
			t.Fatal(err)
		}
		chunk := 1 + len(data)%1000
		for p := data; len(p) > 0; p = p[min(chunk, len(p)):] {
			if _, err := z.Write(p[:min(chunk, len(p))]); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if endMark {
			err = z.CloseWithEndMarker()
		} else {
			err = z.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		packed := out.Bytes()
		if len(data) < 4096 {
			if want := encode7z(t, data, o, mem, endMark); !bytes.Equal(packed, want) {
				t.Fatal("reused, chunked encoder differs from a fresh one")
			}
		}
		size := int64(len(data))
		if endMark && len(data)%2 == 1 {
			size = -1
		}
		d := &fuzzState.r7z
		if err := d.Reset(bytes.NewReader(packed), o, mem, size); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("order %d mem %d size %d: err=%v equal=%v", o, mem, size, err, bytes.Equal(got, data))
		}
	})
}
