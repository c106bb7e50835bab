package ppmd

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/garc-dev/garc/internal/archive"
)

// Errors reported by the decoders. All wrap archive.ErrFormat.
var (
	// ErrCorrupt reports a code value the model cannot map to a symbol, or
	// a stream that does not start or end as the range coder requires.
	ErrCorrupt = fmt.Errorf("ppmd: corrupt data: %w", archive.ErrFormat)
	// ErrEndMarker reports the escape past the order-0 context that PPMd
	// encoders may write as an end mark, found where data was expected.
	ErrEndMarker = fmt.Errorf("ppmd: unexpected end marker: %w", archive.ErrFormat)
	// ErrTruncated reports input that ended before the coded data did.
	ErrTruncated = fmt.Errorf("ppmd: truncated input: %w", archive.ErrFormat)
	// ErrNotInitialized reports a RAR decoder started on a model that was
	// never initialised (or was left inconsistent by an earlier error).
	ErrNotInitialized = fmt.Errorf("ppmd: model not initialized: %w", archive.ErrFormat)
)

// errModelInvariant is raised (as a panic, recovered by recoverFault) when
// the model structure is found inconsistent.
var errModelInvariant = errors.New("ppmd: model invariant violated")

// CorruptInputError reports corrupt or truncated PPMd data at an offset of
// the decoder's input, counted from the first byte it read since Reset (7z)
// or Init (RAR): where decoding failed, or the end of the input for a
// truncation. Err is ErrCorrupt, ErrEndMarker or ErrTruncated, so the
// error wraps that and archive.ErrFormat.
type CorruptInputError struct {
	Offset int64
	Err    error
}

func (e *CorruptInputError) Error() string {
	return fmt.Sprintf("%v (at packed offset %d)", e.Err, e.Offset)
}

// Unwrap returns Err.
func (e *CorruptInputError) Unwrap() error { return e.Err }

// modelFault is a fault of the model caught by recoverFault: an explicit
// invariant check that failed, or the runtime error (index out of range,
// division by zero) a broken invariant would cause. Hostile input is meant
// never to get here; tests and fuzz targets treat it as a bug. It wraps
// ErrCorrupt.
type modelFault struct{ cause any }

func (f *modelFault) Error() string {
	return fmt.Sprintf("ppmd: model fault (%v): %v", f.cause, ErrCorrupt)
}
func (f *modelFault) Unwrap() error { return ErrCorrupt }

const (
	rcTop = 1 << 24
	rcBot = 1 << 15 // RAR flavour: smallest range before forced renormalisation

	// maxOverread bounds how many bytes past the end of input the RAR
	// flavour substitutes with zeros before reporting truncation.
	maxOverread = 8
)

// Results of decodeSymbol besides byte values.
const (
	symEnd   = -1
	symError = -2
)

// rangeDecoder is the arithmetic decoder in either flavour:
//
//   - 7z (rar == false): 7-Zip's range coder, as in LZMA: a leading zero
//     byte, then code and range registers renormalised a byte at a time
//     whenever range drops below 2^24.
//   - RAR (rar == true): Dmitry Subbotin's carry-less range coder of the
//     original PPMd var.H, which also tracks low and renormalises when the
//     top byte of low is settled or the range falls below 2^15.
//
// The two differ only in init, decode (which must advance low for RAR),
// the binary-context escape step, and normalisation.
type rangeDecoder struct {
	code, rng, low uint32
	rar            bool

	// 7z input: buffered reads from src.
	buf  []byte
	pos  int
	src  io.Reader
	nbuf int

	// RAR input: one byte at a time from br.
	br       io.ByteReader
	overread int

	base int64 // input offset of buf[0] (7z), or bytes read (RAR)

	err error // first input error; bytes read after it are 0
}

func (rc *rangeDecoder) readByte() uint32 {
	if rc.pos < rc.nbuf {
		b := rc.buf[rc.pos]
		rc.pos++
		return uint32(b)
	}
	return rc.readByteSlow()
}

func (rc *rangeDecoder) readByteSlow() uint32 {
	if rc.err != nil {
		return 0
	}
	if rc.rar {
		b, err := rc.br.ReadByte()
		if err == nil {
			rc.base++
			return uint32(b)
		}
		if err == io.EOF {
			// The encoder flushes four bytes, so a valid stream never
			// reads past its end; allow a few zero bytes for callers
			// whose byte source ends exactly there, then give up.
			rc.overread++
			if rc.overread <= maxOverread {
				return 0
			}
			err = ErrTruncated
		}
		rc.err = err
		return 0
	}
	for tries := 0; ; tries++ {
		if tries == 100 {
			rc.err = io.ErrNoProgress
			return 0
		}
		n, err := rc.src.Read(rc.buf)
		if n > 0 {
			rc.base += int64(rc.nbuf)
			rc.nbuf = n
			rc.pos = 1
			return uint32(rc.buf[0])
		}
		if err != nil {
			if err == io.EOF {
				err = ErrTruncated
			}
			rc.err = err
			rc.base += int64(rc.nbuf)
			rc.nbuf, rc.pos = 0, 0
			return 0
		}
	}
}

// locate gives a decoding error of the package (ErrCorrupt, ErrEndMarker,
// ErrTruncated) the input offset; other errors (the byte source's, or one
// already located) pass unchanged.
func (rc *rangeDecoder) locate(err error) error {
	if err == ErrCorrupt || err == ErrEndMarker || err == ErrTruncated {
		return &CorruptInputError{Offset: rc.base + int64(rc.pos), Err: err}
	}
	return err
}

// recoverFault is the one place where a fault of the model becomes an
// error instead of a crash: the decoders' API methods defer it directly
// (recover works only there). It re-raises any other panic, marks the
// model unusable and sets *errp to a CorruptInputError wrapping a
// modelFault.
func (rc *rangeDecoder) recoverFault(m *Model, errp *error) {
	r := recover()
	if r == nil {
		return
	}
	if _, isRuntime := r.(runtime.Error); !isRuntime && r != errModelInvariant {
		panic(r)
	}
	m.ready = false
	*errp = &CorruptInputError{Offset: rc.base + int64(rc.pos), Err: &modelFault{r}}
}

// init7z starts the 7z flavour: a zero byte, then four code bytes.
func (rc *rangeDecoder) init7z() error {
	rc.rar = false
	rc.code, rc.rng, rc.low = 0, 0xFFFFFFFF, 0
	first := rc.readByte()
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | rc.readByte()
	}
	if rc.err != nil {
		return rc.err
	}
	if first != 0 || rc.code == 0xFFFFFFFF {
		return ErrCorrupt
	}
	return nil
}

// initRAR starts the RAR flavour: four code bytes.
func (rc *rangeDecoder) initRAR() error {
	rc.rar = true
	rc.code, rc.rng, rc.low = 0, 0xFFFFFFFF, 0
	rc.overread = 0
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | rc.readByte()
	}
	if rc.err != nil {
		return rc.err
	}
	if rc.code == 0xFFFFFFFF {
		return ErrCorrupt
	}
	return nil
}

// threshold scales range down by total and returns the code's position in
// [0, total) — or beyond, for corrupt input. total must not exceed range.
func (rc *rangeDecoder) threshold(total uint32) uint32 {
	rc.scale(total)
	return rc.count()
}

// scale divides range by total (which must not exceed it), the unit of
// the cumulative frequencies that below, count and decode then take.
func (rc *rangeDecoder) scale(total uint32) {
	rc.rng /= total
}

// below reports whether the code's position on the last scale is below
// the cumulative frequency cum (count() < cum): a multiplication where
// count takes a second division, so a symbol found first, or an escape,
// costs one division instead of two. The product is exact in 64 bits for
// any cum.
func (rc *rangeDecoder) below(cum uint32) bool {
	return uint64(rc.code) < uint64(cum)*uint64(rc.rng)
}

// count returns the code's position on the last scale: in [0, total), or
// beyond for corrupt input.
func (rc *rangeDecoder) count() uint32 {
	return rc.code / rc.rng
}

// decode narrows the interval to [start, start+size) of the last
// threshold's scale, without renormalising.
func (rc *rangeDecoder) decode(start, size uint32) {
	start *= rc.rng
	rc.low += start
	rc.code -= start
	rc.rng *= size
}

// normalize shifts in input bytes until the range is wide enough again.
// It is small enough to inline; the work is done out of line.
func (rc *rangeDecoder) normalize() {
	if rc.rng < rcTop || rc.rar {
		rc.normalizeSlow()
	}
}

// normalizeSlow renormalises the RAR flavour, or shifts in one or two
// bytes for the 7z flavour, whose range is then below 2^24.
func (rc *rangeDecoder) normalizeSlow() {
	if rc.rar {
		rc.normalizeRAR()
		return
	}
	// The first byte is readByte written out (readByte is just over the
	// inlining budget): one call per input byte instead of two.
	var b uint32
	if rc.pos < rc.nbuf {
		b = uint32(rc.buf[rc.pos])
		rc.pos++
	} else {
		b = rc.readByteSlow()
	}
	rc.code = rc.code<<8 | b
	rc.rng <<= 8
	if rc.rng < rcTop {
		rc.code = rc.code<<8 | rc.readByte()
		rc.rng <<= 8
	}
}

// normalizeRAR renormalises the RAR flavour.
func (rc *rangeDecoder) normalizeRAR() {
	for {
		if rc.low^(rc.low+rc.rng) >= rcTop {
			if rc.rng >= rcBot {
				return
			}
			rc.rng = -rc.low & (rcBot - 1)
		}
		rc.code = rc.code<<8 | rc.readByte()
		rc.rng <<= 8
		rc.low <<= 8
		if rc.rng == 0 {
			// Cannot happen for consistent state; stop rather than spin.
			if rc.err == nil {
				rc.err = ErrCorrupt
			}
			return
		}
	}
}

// decodeBinEscape applies the escape branch of a binary context whose
// symbol took size0 = (range>>14)*p of the range.
func (rc *rangeDecoder) decodeBinEscape(size0 uint32) {
	if rc.rar {
		rc.low += size0
		rc.code -= size0
		rc.rng = (rc.rng &^ (binScale - 1)) - size0
		return
	}
	rc.code -= size0
	rc.rng -= size0
}
