package sevenzip

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"sync"

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
	// reserved holds the pooled decoders reserve took for this folder
	// and no coder has reused yet.
	reserved [numPoolKinds][]pooledItem
	// kept holds the decoders the folder's coders use, returned to the
	// pool when the folder ends.
	kept []keptDecoder
	// fresh is budget acquired by reserve for decoders built anew and
	// not yet handed to a decoder that returns it through the pool.
	fresh int64
	// held is all the budget reserve secured (fresh and reused); it
	// counts in pool.active until close.
	held int64
	// closers are run when the folder's decoder is finished.
	closers []io.Closer
}

// keptDecoder is a decoder a coder of the folder uses and the pool kind
// it returns to.
type keptDecoder struct {
	kind poolKind
	it   pooledItem
}

func (d *decodeContext) onClose(c io.Closer) { d.closers = append(d.closers, c) }

// close runs the closers and ends the folder's hold on memory in one
// step under the pool's lock: its decoders (used or only reserved) become
// idle in the pool, the rest of its charge is released and it stops
// counting as active. Folders waiting for memory are then woken.
func (d *decodeContext) close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i].Close()
	}
	clear(d.closers) // dropped decoders must not stay reachable from here
	d.closers = d.closers[:0]
	if p := d.pool; p != nil {
		p.mu.Lock()
		for _, k := range d.kept {
			p.putLocked(k.kind, k.it)
		}
		for k := range d.reserved {
			for _, it := range d.reserved[k] {
				p.putLocked(poolKind(k), it)
			}
		}
		if p.mem != nil && d.held > 0 {
			p.mem.Release(d.fresh)
			p.active -= d.held
			p.mem.Notify() // waiting folders may reuse, reclaim or, with none active, take all
		}
		p.mu.Unlock()
	}
	clear(d.kept)
	d.kept = d.kept[:0]
	for k := range d.reserved {
		d.reserved[k] = nil
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
		m, ok := methods()[c.id]
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
// other folder of the reader is decoding and every idle decoder has been
// dropped, as nothing more would be released.
//
// Each attempt, and the decision to wait or to refuse, is one step under
// the pool's lock, in which every change of the reader's decoder memory
// is also made (pool.go): the memory a folder sees held is held by a
// folder decoding or by an idle decoder it may drop, and a folder ending
// after the attempt wakes the waiter (close).
func (d *decodeContext) reserve(needs []memoryNeed) error {
	if d.pool == nil || d.pool.mem == nil || len(needs) == 0 {
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
		if ok, _, err := d.reserveStep(needs, total, false); ok || err != nil {
			return err
		}
		// Other readers sharing the budget may hold idle memory.
		mem.Reclaim(total)
		ok, changed, err := d.reserveStep(needs, total, true)
		if ok || err != nil {
			return err
		}
		select {
		case <-changed:
		case <-d.ctx.Done():
			return d.ctx.Err()
		}
	}
}

// reserveStep tries once to reserve needs (total bytes), giving idle
// decoders back as needed. In the final step of a round, with no folder
// of the reader decoding, it drops every idle decoder and then either
// takes the memory beside the lasting charges (up to headerSlack of
// them) or refuses the folder. Otherwise, when it fails, changed is
// closed at the next change of the budget after the attempt.
func (d *decodeContext) reserveStep(needs []memoryNeed, total int64, final bool) (ok bool, changed <-chan struct{}, err error) {
	p, mem := d.pool, d.pool.mem
	p.mu.Lock()
	changed = mem.Changed()
	ok = d.tryReserveLocked(needs, total)
	if !ok && final && p.active == 0 {
		// No folder of the reader is decoding: nothing will be
		// released but idle decoders, and those go now. What is held
		// then is the header's lasting charge (and other readers' of
		// a shared budget); up to headerSlack of it may stand beside
		// a folder that alone fits the limit.
		p.reclaimLocked(mem.InUse())
		if ok = d.takeReservation(needs); !ok {
			used := mem.InUse()
			if used > headerSlack {
				p.mu.Unlock()
				p.collect()
				return false, nil, &archive.LimitError{What: "7z block decoder memory (beside the header's)", Need: total + used, Limit: mem.Limit()}
			}
			mem.ForceAcquire(total)
			d.fresh, d.held = total, total
			p.active += total
			ok = true
		}
	}
	p.mu.Unlock()
	if ok {
		p.collect() // what was dropped goes back to the system before the folder allocates
	}
	return ok, changed, nil
}

// headerSlack is how much lasting charge (the parsed header) may stand
// beside a folder needing the whole limit: the process's memory stays
// within the limit plus this.
const headerSlack = 64 << 20

// tryReserveLocked reserves needs, reusing idle decoders, if the budget
// has room, or else after dropping idle decoders (largest first) until
// the folder would fit built anew; it takes nothing when that does not
// suffice. The pool's lock is held.
func (d *decodeContext) tryReserveLocked(needs []memoryNeed, total int64) bool {
	if d.takeReservation(needs) {
		return true
	}
	mem := d.pool.mem
	d.pool.reclaimLocked(total - (mem.Limit() - mem.InUse()))
	return d.takeReservation(needs)
}

// takeReservation takes the pooled decoders needs can reuse and the
// budget for the others if it is free now, and counts the folder as
// active; otherwise it takes nothing. The pool's lock is held.
func (d *decodeContext) takeReservation(needs []memoryNeed) bool {
	p := d.pool
	var fresh int64
	for _, nd := range needs {
		if nd.kind != poolNone {
			if it, ok := p.takeLocked(nd.kind, nd.n); ok {
				d.reserved[nd.kind] = append(d.reserved[nd.kind], it)
				continue
			}
		}
		fresh += nd.n
	}
	if p.mem.TryAcquire(fresh) {
		d.fresh = fresh
		d.held = fresh
		for k := range d.reserved {
			for _, it := range d.reserved[k] {
				d.held += it.charge
			}
		}
		p.active += d.held
		return true
	}
	for k := range d.reserved {
		for _, it := range d.reserved[k] {
			p.putLocked(poolKind(k), it)
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

// keep records a decoder a coder of the folder uses, to be returned to
// the pool when the folder ends (close). charge is what it holds: the
// charge it was reused with, or need for a decoder built anew (taken
// from the folder's fresh budget).
func (d *decodeContext) keep(kind poolKind, v any, charge int64, built bool) {
	if built && d.pool != nil && d.pool.mem != nil {
		d.fresh -= charge
	}
	d.kept = append(d.kept, keptDecoder{kind: kind, it: pooledItem{v: v, charge: charge}})
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

// methods returns the registry of coder methods by ID, built on first use
// rather than when the package initializes, which every garc process would
// pay for (77 allocations), 7z archive or not. Each coder file adds its
// methods.
var methods = sync.OnceValue(func() map[uint64]*method {
	m := make(map[uint64]*method, 32)
	register := func(id uint64, c *method) { m[id] = c }
	for _, add := range []func(func(uint64, *method)){
		addBasicMethods, addAESMethod, addDeflate64Method, addFilterMethods,
		addLZMAMethods, addPPMdMethod, addStdMethods,
	} {
		add(register)
	}
	return m
})

// addBasicMethods adds Copy and the methods known by name only.
func addBasicMethods(register func(uint64, *method)) {
	register(methodCopy, &method{name: "Copy", numIn: 1, newDecoder: newCopyDecoder})
	register(methodBrotli, &method{name: "Brotli", numIn: 1})
	register(methodLZ4, &method{name: "LZ4", numIn: 1})
	register(methodLZ5, &method{name: "LZ5", numIn: 1})
	register(methodLizard, &method{name: "Lizard", numIn: 1})
}

// methodName returns the display name of a method ID.
func methodName(id uint64) string {
	if m, ok := methods()[id]; ok {
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
	m, ok := methods()[c.id]
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
