package ppmd

import (
	"fmt"
	"io"
	"runtime"

	"github.com/garc-dev/garc/internal/archive"
)

// Reader8 decodes PPMd variant I revision 1 as ZIP method 98 stores it: a
// 2-byte header (order − 1 in bits 0–3, memory in MiB − 1 in bits 4–11,
// restoration method in bits 12–15; APPNOTE 5.10), then the range-coded
// symbols. It produces the declared size and stops; the end marker that
// may follow is not required. The zero value is ready for Reset; the model
// arena is kept across Resets of the same memory size.
type Reader8 struct {
	p    model8
	size int64
	done int64
	err  error
}

// Reset makes z decode a new stream of size bytes from r: it reads the
// header and starts the model. A model larger than maxMem bytes is an
// archive.LimitError, an order or restoration method outside variant I's
// an archive.UnsupportedError.
func (z *Reader8) Reset(r io.ByteReader, size, maxMem int64) error {
	z.size, z.done, z.err = size, 0, nil
	lo, err1 := r.ReadByte()
	hi, err2 := r.ReadByte()
	if err1 != nil || err2 != nil {
		return fmt.Errorf("PPMd header: %w", archive.ErrFormat)
	}
	v := uint32(lo) | uint32(hi)<<8
	order := v&0xF + 1
	memSize := (v>>4&0xFF + 1) << 20
	restore := v >> 12
	if order < 2 || restore > 2 {
		return &archive.UnsupportedError{What: fmt.Sprintf("PPMd order %d, restoration method %d", order, restore)}
	}
	if int64(memSize) > maxMem {
		return &archive.LimitError{What: "PPMd memory", Need: int64(memSize), Limit: maxMem}
	}
	p := &z.p
	p.align = (4 - memSize) & 3
	if p.size != memSize || p.mem == nil {
		p.mem = nil
		p.mem = make([]byte, p.align+memSize)
		p.size = memSize
	}
	p.rc = rangeDecoder{br: r, base: 2}
	if err := p.rc.initRAR(); err != nil {
		return p.rc.locate(err)
	}
	if p.rc.overread > 0 {
		// The encoder flushes four bytes: a stream is never shorter.
		return p.rc.locate(ErrTruncated)
	}
	p.maxOrder = order
	p.restoreMethod = restore
	p.restartModel()
	return nil
}

// Read implements io.Reader.
func (z *Reader8) Read(b []byte) (n int, err error) {
	if z.err != nil {
		return 0, z.err
	}
	defer func() {
		// The model is consistent for every symbol sequence; a fault
		// here would mean corrupt input reached a state the reference
		// code would crash in. Report it as corrupt data.
		if r := recover(); r != nil {
			if _, isRuntime := r.(runtime.Error); !isRuntime {
				panic(r)
			}
			z.err = &CorruptInputError{Offset: z.p.rc.base, Err: &modelFault{r}}
			err = z.err
		}
	}()
	for n < len(b) && z.done < z.size {
		sym := z.p.decodeSymbol()
		if sym < 0 || z.p.rc.err != nil {
			switch {
			case z.p.rc.err != nil:
				z.err = z.p.rc.locate(z.p.rc.err)
			case sym == symEnd:
				z.err = fmt.Errorf("%w %d bytes before the declared size", z.p.rc.locate(ErrEndMarker), z.size-z.done)
			default:
				z.err = z.p.rc.locate(ErrCorrupt)
			}
			return n, z.err
		}
		b[n] = byte(sym)
		n++
		z.done++
	}
	if n == 0 && z.done >= z.size {
		return 0, io.EOF
	}
	return n, nil
}
