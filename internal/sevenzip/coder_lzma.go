package sevenzip

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
)

// addLZMAMethods adds the file's methods to the registry (see methods).
func addLZMAMethods(register func(uint64, *method)) {
	register(methodLZMA, &method{name: "LZMA", numIn: 1, newDecoder: newLZMADecoder, describe: describeLZMA, memory: lzmaMemory})
	register(methodLZMA2, &method{name: "LZMA2", numIn: 1, newDecoder: newLZMA2Decoder, describe: describeLZMA2, memory: lzma2Memory})
}

// minDict is the smallest dictionary the decoders allocate.
const minDict = 4096

func describeLZMA(props []byte) string {
	if len(props) != 5 {
		return "LZMA"
	}
	s := "LZMA:" + sizeString(uint64(binary.LittleEndian.Uint32(props[1:])))
	// Non-default literal/position bits, as 7-Zip lists them.
	if p := int(props[0]); p < 9*5*5 {
		lc, lp, pb := p%9, p/9%5, p/45
		if lc != 3 {
			s += ":lc" + itoa(lc)
		}
		if lp != 0 {
			s += ":lp" + itoa(lp)
		}
		if pb != 2 {
			s += ":pb" + itoa(pb)
		}
	}
	return s
}

// lzma2DictSize returns the dictionary size coded in an LZMA2 property byte.
func lzma2DictSize(p byte) (uint64, error) {
	if p > 40 {
		return 0, fmt.Errorf("LZMA2 dictionary property %d: %w", p, archive.ErrFormat)
	}
	if p == 40 {
		return 0xFFFFFFFF, nil
	}
	return uint64(2|p&1) << (p/2 + 11), nil
}

func describeLZMA2(props []byte) string {
	if len(props) != 1 {
		return "LZMA2"
	}
	d, err := lzma2DictSize(props[0])
	if err != nil {
		return "LZMA2"
	}
	return "LZMA2:" + sizeString(d)
}

// effectiveDict is the dictionary a decoder really needs: never more than
// the output, never less than minDict, rounded up to 16 bytes as the
// decoder's window is.
func effectiveDict(dict uint64, size int64) int64 {
	if size >= 0 && uint64(size) < dict {
		dict = uint64(size)
	}
	if dict < minDict {
		dict = minDict
	}
	return int64(dict+15) &^ 15
}

// lzmaMemory is the window an LZMA decoder allocates.
func lzmaMemory(props []byte, size int64) memoryNeed {
	if len(props) != 5 {
		return memoryNeed{}
	}
	return memoryNeed{kind: poolLZMA, n: effectiveDict(uint64(binary.LittleEndian.Uint32(props[1:])), size)}
}

// lzma2Memory is the window an LZMA2 decoder allocates.
func lzma2Memory(props []byte, size int64) memoryNeed {
	if len(props) != 1 {
		return memoryNeed{}
	}
	d, err := lzma2DictSize(props[0])
	if err != nil {
		return memoryNeed{}
	}
	return memoryNeed{kind: poolLZMA2, n: effectiveDict(d, size)}
}

// newLZMADecoder returns an internal/lzma decoder, reusing a pooled one
// when the folder reserved it.
func newLZMADecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	need := lzmaMemory(props, size).n
	if v, charge := d.reuse(poolLZMA, need); v != nil {
		z := v.(*lzma.Reader)
		d.keep(poolLZMA, z, charge, false)
		if err := z.Reset(in[0], props, size); err != nil {
			return nil, err
		}
		return z, nil
	}
	z, err := lzma.NewReader(in[0], props, size, d.opts.Limit())
	if err != nil {
		return nil, err
	}
	d.keep(poolLZMA, z, need, true)
	return z, nil
}

// newLZMA2Decoder returns an internal/lzma LZMA2 decoder, reusing a pooled
// one when the folder reserved it.
func newLZMA2Decoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	if len(props) != 1 {
		return nil, fmt.Errorf("LZMA2 properties of %d bytes: %w", len(props), archive.ErrFormat)
	}
	need := lzma2Memory(props, size).n
	if v, charge := d.reuse(poolLZMA2, need); v != nil {
		z := v.(*lzma.Reader2)
		d.keep(poolLZMA2, z, charge, false)
		if err := z.Reset(in[0], props[0], size); err != nil {
			return nil, err
		}
		z.SetThreads(d.opts.Threads)
		return z, nil
	}
	z, err := lzma.NewReader2(in[0], props[0], size, d.opts.Limit())
	if err != nil {
		return nil, err
	}
	// Segments between dictionary resets (7-Zip's multithreaded blocks)
	// are decoded on up to Threads goroutines.
	z.SetThreads(d.opts.Threads)
	d.keep(poolLZMA2, z, need, true)
	return z, nil
}
