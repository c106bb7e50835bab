package sevenzip

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// Method IDs (7-Zip DOC/Methods.txt).
const (
	methodCopy      = 0x00
	methodDelta     = 0x03
	methodX86       = 0x04
	methodPPC       = 0x05
	methodIA64      = 0x06
	methodARM       = 0x07
	methodARMT      = 0x08
	methodSPARC     = 0x09
	methodARM64     = 0x0A
	methodRISCV     = 0x0B
	methodLZMA2     = 0x21
	methodLZMA      = 0x030101
	methodBCJ       = 0x03030103
	methodBCJ2      = 0x0303011B
	methodPPCOld    = 0x03030205
	methodIA64Old   = 0x03030401
	methodARMOld    = 0x03030501
	methodARMTOld   = 0x03030701
	methodSPARCOld  = 0x03030805
	methodPPMd      = 0x030401
	methodDeflate   = 0x040108
	methodDeflate64 = 0x040109
	methodBZip2     = 0x040202
	methodAES       = 0x06F10701
	methodZstd      = 0x04F71101
	methodBrotli    = 0x04F71102
	methodLZ4       = 0x04F71104
	methodLZ5       = 0x04F71105
	methodLizard    = 0x04F71106
	methodFastLZMA2 = 0x04F71111 // 7-Zip-zstd's fast-lzma2 writes ordinary LZMA2 IDs; kept for naming
)

// decodeContext is what a coder constructor may need besides its inputs.
type decodeContext struct {
	ctx      context.Context // ends waiting for memory; never nil
	opts     *archive.Options
	password func() (string, error)
	key7z    func(password string, salt []byte, cycles int) ([32]byte, error)
	// pool recycles decoders between folders and accounts their memory;
	// may be nil.
	pool *decoderPool
	// reserved holds the pooled decoders reserve took for this folder.
	reserved [numPoolKinds][]pooledItem
	// fresh is budget acquired by reserve for decoders built anew and
	// not yet handed to a decoder that returns it through the pool.
	fresh int64
	// held is all the budget reserve secured (fresh and reused).
	held int64
	// closers are run when the folder's decoder is finished.
	closers []io.Closer
}

func (d *decodeContext) onClose(c io.Closer) { d.closers = append(d.closers, c) }

// close runs the closers (which return decoders to the pool), gives back
// reserved decoders no coder used and releases the remaining budget.
func (d *decodeContext) close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i].Close()
	}
	clear(d.closers) // dropped decoders must not stay reachable from here
	d.closers = d.closers[:0]
	for k := range d.reserved {
		for _, it := range d.reserved[k] {
			d.pool.put(poolKind(k), it)
		}
		d.reserved[k] = nil
	}
	if d.pool != nil && d.pool.mem != nil {
		d.pool.mem.Release(d.fresh)
		d.pool.mu.Lock()
		d.pool.active -= d.held
		d.pool.mu.Unlock()
	}
	d.fresh, d.held = 0, 0
}

// memoryNeed is the memory one coder allocates from its properties.
type memoryNeed struct {
	kind poolKind // where the decoder holding it is pooled
	n    int64
}

// folderMemory returns the memory the coders of f need.
func folderMemory(f *folder) []memoryNeed {
	var needs []memoryNeed
	for i := range f.coders {
		c := &f.coders[i]
		m, ok := methods[c.id]
		if !ok || m.memory == nil || c.outStart >= len(f.unpackSizes) {
			continue
		}
		size := int64(min(f.unpackSizes[c.outStart], 1<<62))
		if nd := m.memory(c.props, size); nd.n > 0 {
			needs = append(needs, nd)
		}
	}
	return needs
}

// reserve secures the memory of a folder's decoders before any is built:
// pooled decoders large enough are taken for reuse, and the rest is taken
// from the budget at once. When it is not free, idle decoders are
// dropped, and then the folder waits for other folders to finish (and
// tries again, reusing what they leave). A folder needing more than the
// whole budget is refused with a *archive.LimitError, and so is one that
// does not fit beside the reader's lasting charges (its header) when no
// other folder of the reader is decoding, as nothing would be released.
func (d *decodeContext) reserve(needs []memoryNeed) error {
	if d.pool == nil || d.pool.mem == nil {
		return nil
	}
	mem := d.pool.mem
	var total int64
	for _, nd := range needs {
		total += nd.n
	}
	if total > mem.Limit() {
		return &archive.LimitError{What: "7z block decoder memory", Need: total, Limit: mem.Limit()}
	}
	for {
		changed := mem.Changed()
		for reclaimed := false; ; reclaimed = true {
			d.pool.collect()
			if d.tryReserve(needs) {
				return nil
			}
			if reclaimed {
				break
			}
			mem.Reclaim(total)
		}
		// With no folder of the reader decoding, nothing will be
		// released: what is held is the header's lasting charge (and
		// other readers' of a shared budget). Up to headerSlack of it
		// may stand beside a folder that alone fits the limit. The
		// check and the charge are one step, so that two folders
		// cannot both take this way.
		d.pool.mu.Lock()
		if d.pool.active == 0 {
			held := mem.InUse()
			if held > headerSlack {
				d.pool.mu.Unlock()
				// A folder that has just ended may have put its
				// decoders into the pool after the reclaim above:
				// give idle memory back once more, and try again if
				// that freed any.
				d.pool.collect()
				mem.Reclaim(total)
				if mem.InUse() < held {
					continue
				}
				return &archive.LimitError{What: "7z block decoder memory (beside the header's)", Need: total + held, Limit: mem.Limit()}
			}
			d.pool.active += total
			d.pool.mu.Unlock()
			mem.ForceAcquire(total)
			d.fresh, d.held = total, total
			return nil
		}
		d.pool.mu.Unlock()
		select {
		case <-changed:
		case <-d.ctx.Done():
			return d.ctx.Err()
		}
	}
}

// headerSlack is how much lasting charge (the parsed header) may stand
// beside a folder needing the whole limit: the process's memory stays
// within the limit plus this.
const headerSlack = 64 << 20

// tryReserve takes the pooled decoders needs can reuse and the budget for
// the others if it is free now; otherwise it takes nothing.
func (d *decodeContext) tryReserve(needs []memoryNeed) bool {
	var fresh int64
	for _, nd := range needs {
		if nd.kind != poolNone {
			if it, ok := d.pool.take(nd.kind, nd.n); ok {
				d.reserved[nd.kind] = append(d.reserved[nd.kind], it)
				continue
			}
		}
		fresh += nd.n
	}
	// The charge and the count of active folders change in one step
	// under the pool's lock, which reserve's no-folder-active check also
	// holds: otherwise that check could see this folder's memory in use
	// and no folder active, and refuse a folder that only had to wait.
	d.pool.mu.Lock()
	if d.pool.mem.TryAcquire(fresh) {
		d.fresh = fresh
		d.held = fresh
		for k := range d.reserved {
			for _, it := range d.reserved[k] {
				d.held += it.charge
			}
		}
		d.pool.active += d.held
		d.pool.mu.Unlock()
		return true
	}
	d.pool.mu.Unlock()
	// Waiting while holding pooled decoders could starve another folder
	// doing the same: give them back.
	for k := range d.reserved {
		for _, it := range d.reserved[k] {
			d.pool.putQuiet(poolKind(k), it)
		}
		d.reserved[k] = nil
	}
	return false
}

// reuse returns a decoder of the kind reserved for this folder holding at
// least need bytes, and its charge.
func (d *decodeContext) reuse(kind poolKind, need int64) (any, int64) {
	l := d.reserved[kind]
	for i, it := range l {
		if it.charge >= need {
			d.reserved[kind] = append(l[:i], l[i+1:]...)
			return it.v, it.charge
		}
	}
	return nil, 0
}

// keep returns a decoder to the pool when the folder is done. charge is
// what it holds: the charge it was reused with, or need for a decoder
// built anew (taken from the folder's fresh budget).
func (d *decodeContext) keep(kind poolKind, v any, charge int64, built bool) {
	if built && d.pool != nil && d.pool.mem != nil {
		d.fresh -= charge
	}
	d.onClose(closerFunc(func() error {
		d.pool.put(kind, pooledItem{v: v, charge: charge})
		return nil
	}))
}

// newDecoderFunc builds the decoder of one coder from its inputs, its
// properties and the size of its output.
type newDecoderFunc func(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error)

// method describes one coder method.
type method struct {
	name string
	// numIn is the number of inputs the decoder takes.
	numIn int
	// newDecoder is nil for methods that are recognised but not
	// supported.
	newDecoder newDecoderFunc
	// describe formats the method with its properties for listings, e.g.
	// "LZMA2:24"; nil means just the name.
	describe func(props []byte) string
	// memory returns the dictionary, window or model memory the decoder
	// allocates for the properties and output size (invalid properties:
	// zero, the constructor refuses them); nil means negligible.
	memory func(props []byte, size int64) memoryNeed
}

// methods is the registry of coder methods by ID. Coder files add to it in
// their init functions.
var methods = map[uint64]*method{}

func register(id uint64, m *method) { methods[id] = m }

func init() {
	register(methodCopy, &method{name: "Copy", numIn: 1, newDecoder: newCopyDecoder})
	register(methodBrotli, &method{name: "Brotli", numIn: 1})
	register(methodLZ4, &method{name: "LZ4", numIn: 1})
	register(methodLZ5, &method{name: "LZ5", numIn: 1})
	register(methodLizard, &method{name: "Lizard", numIn: 1})
}

// methodName returns the display name of a method ID.
func methodName(id uint64) string {
	if m, ok := methods[id]; ok {
		return m.name
	}
	return methodIDString(id)
}

// methodIDString formats an ID as 7-Zip does for unknown methods.
func methodIDString(id uint64) string {
	if id == 0 {
		return "00"
	}
	s := strings.ToUpper(strconv.FormatUint(id, 16))
	if len(s)%2 == 1 {
		s = "0" + s
	}
	return s
}

// describeCoder formats a coder for listings.
func describeCoder(c *coder) string {
	m, ok := methods[c.id]
	if !ok {
		return methodIDString(c.id)
	}
	if m.describe != nil {
		return m.describe(c.props)
	}
	return m.name
}

// sizeString formats a dictionary or memory size as 7-Zip does: a power of
// two as its exponent, otherwise with a k/m suffix.
func sizeString(v uint64) string {
	if v != 0 && v&(v-1) == 0 {
		return strconv.Itoa(bits.TrailingZeros64(v))
	}
	switch {
	case v%(1<<20) == 0:
		return strconv.FormatUint(v>>20, 10) + "m"
	case v%(1<<10) == 0:
		return strconv.FormatUint(v>>10, 10) + "k"
	}
	return strconv.FormatUint(v, 10)
}

func itoa(i int) string { return strconv.Itoa(i) }

func newCopyDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	return in[0], nil
}

// errShort is wrapped when a coder ends before its declared size.
var errShort = fmt.Errorf("data ends early: %w", archive.ErrFormat)

// boundedReader yields exactly n bytes of r: it stops at n and reports a
// stream that ends earlier as corrupt.
type boundedReader struct {
	r     io.Reader
	n     int64
	err   error
	stall int // consecutive reads that returned nothing
}

// maxStall is how many empty reads in a row are taken as a decoder that
// makes no progress.
const maxStall = 100

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if n == 0 && err == nil {
		if b.stall++; b.stall >= maxStall {
			b.err = fmt.Errorf("decoder makes no progress: %w", archive.ErrFormat)
			return 0, b.err
		}
	} else {
		b.stall = 0
	}
	if err != nil {
		if err == io.EOF {
			if b.n > 0 {
				b.err = errShort
				return n, b.err
			}
			return n, nil
		}
		b.err = wrapDecodeError(err)
		return n, b.err
	}
	return n, nil
}

// wrapDecodeError makes sure an error from a third-party decoder wraps one
// of the archive sentinels: a premature end is the reader's errShort, the
// rest follows archive.AsFormatError, the rule every format shares.
func wrapDecodeError(err error) error {
	if err == io.ErrUnexpectedEOF {
		return errShort
	}
	return archive.AsFormatError(err)
}
