package sevenzip

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

func init() {
	register(methodLZMA, &method{name: "LZMA", numIn: 1, newDecoder: newLZMADecoder, describe: describeLZMA})
	register(methodLZMA2, &method{name: "LZMA2", numIn: 1, newDecoder: newLZMA2Decoder, describe: describeLZMA2})
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
// the output, never less than minDict.
func effectiveDict(dict uint64, size int64) int64 {
	if size >= 0 && uint64(size) < dict {
		dict = uint64(size)
	}
	if dict < minDict {
		dict = minDict
	}
	return int64(dict)
}

// lzmaEngine selects the implementation behind the LZMA and LZMA2 coders:
// "garc" (internal/lzma). It is a variable so benchmarks can compare it
// with github.com/ulikunitz/xz/lzma, which the tests register as "xz"
// (coder_lzma_xz_test.go) without linking it into garc.
var lzmaEngine = "garc"

// lzmaEngines holds the constructors of each engine.
var lzmaEngines = map[string][2]newDecoderFunc{}

func newLZMADecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	return lzmaEngines[lzmaEngine][0](in, props, size, d)
}

func newLZMA2Decoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	return lzmaEngines[lzmaEngine][1](in, props, size, d)
}
