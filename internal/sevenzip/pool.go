package sevenzip

import (
	"runtime/debug"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
)

// poolKind says what a pooled item is.
type poolKind uint8

// Pooled item kinds.
const (
	poolNone  poolKind = iota // not pooled: the memory is held while the folder decodes
	poolBufio                 // *bufio.Reader over a packed stream
	poolLZMA                  // *lzma.Reader
	poolLZMA2                 // *lzma.Reader2
	poolPPMd                  // *ppmd.Reader7z
	numPoolKinds
)

// pooledItem is an idle decoder and the budget it holds (the size of its
// dictionary, window or model arena).
type pooledItem struct {
	v      any
	charge int64
}

// decoderPool keeps decoders (with their dictionaries and buffers) of
// finished folders so that the next folder reuses them instead of
// allocating again. It is shared by the folders of one Reader and safe for
// concurrent use.
//
// Pooled decoders keep their memory charged to the reader's budget; when
// a folder needs memory that is not free, the budget asks the pool
// (Reclaim) to drop idle decoders, largest first. Dropped memory is
// garbage until the collector runs, and a collection is only triggered
// by heap growth relative to the live heap: after dropping a large
// dictionary the pool therefore returns it to the operating system at
// once, so that the next folder's allocation does not add to it.
type decoderPool struct {
	mem *archive.MemoryBudget // nil: no accounting

	mu      sync.Mutex
	items   [numPoolKinds][]pooledItem
	dropped int64 // charged bytes dropped since the last collection
	active  int64 // charges held by folders being decoded
}

// maxPooledPerKind bounds the idle decoders kept of each kind.
const maxPooledPerKind = 4

// collectThreshold is the dropped memory above which the pool returns
// freed memory to the operating system before more is allocated.
const collectThreshold = 16 << 20

// take removes and returns the smallest idle item of the kind holding at
// least need bytes.
func (p *decoderPool) take(kind poolKind, need int64) (pooledItem, bool) {
	if p == nil {
		return pooledItem{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.items[kind]
	best := -1
	for i, it := range l {
		if it.charge >= need && (best < 0 || it.charge < l[best].charge) {
			best = i
		}
	}
	if best < 0 {
		return pooledItem{}, false
	}
	it := l[best]
	p.items[kind] = append(l[:best], l[best+1:]...)
	return it, true
}

// put returns an idle item to the pool, or drops it when the pool holds
// enough of its kind, and wakes folders waiting for memory.
func (p *decoderPool) put(kind poolKind, it pooledItem) {
	if p.putQuiet(kind, it) && it.charge > 0 && p.mem != nil {
		p.mem.Notify() // a waiting folder may reuse or reclaim it
	}
}

// putQuiet is put without waking anyone; it reports whether the item
// was kept.
func (p *decoderPool) putQuiet(kind poolKind, it pooledItem) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	if len(p.items[kind]) < maxPooledPerKind {
		p.items[kind] = append(p.items[kind], it)
		p.mu.Unlock()
		return true
	}
	p.mu.Unlock()
	p.drop(it.charge)
	return false
}

// drop gives the charge of a discarded item back to the budget.
func (p *decoderPool) drop(charge int64) {
	if p == nil || charge == 0 {
		return
	}
	p.mu.Lock()
	p.dropped += charge
	p.mu.Unlock()
	if p.mem != nil {
		p.mem.Release(charge)
	}
}

// collect returns dropped memory to the operating system when enough of
// it has accumulated.
func (p *decoderPool) collect() {
	if p == nil {
		return
	}
	p.mu.Lock()
	big := p.dropped >= collectThreshold
	if big {
		p.dropped = 0
	}
	p.mu.Unlock()
	if big {
		debug.FreeOSMemory()
	}
}

// Reclaim drops idle decoders, largest first, until need bytes are freed
// or none is left. It implements archive.Reclaimer.
func (p *decoderPool) Reclaim(need int64) {
	var freed int64
	for freed < need {
		p.mu.Lock()
		bk, bi := -1, -1
		for k := range p.items {
			for i, it := range p.items[k] {
				if it.charge > 0 && (bk < 0 || it.charge > p.items[bk][bi].charge) {
					bk, bi = k, i
				}
			}
		}
		if bk < 0 {
			p.mu.Unlock()
			break
		}
		it := p.items[bk][bi]
		p.items[bk] = append(p.items[bk][:bi], p.items[bk][bi+1:]...)
		p.mu.Unlock()
		p.drop(it.charge)
		freed += it.charge
	}
	p.collect()
}

// drain drops every idle item.
func (p *decoderPool) drain() {
	p.mu.Lock()
	var charge int64
	for k := range p.items {
		for _, it := range p.items[k] {
			charge += it.charge
		}
		p.items[k] = nil
	}
	p.mu.Unlock()
	p.drop(charge)
	p.collect()
}
