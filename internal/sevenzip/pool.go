package sevenzip

import (
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

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
// a folder needs memory that is not free, idle decoders are dropped,
// largest first. Dropped memory is garbage until the collector runs, and
// a collection is only triggered by heap growth relative to the live
// heap: after dropping a large dictionary the pool therefore returns it
// to the operating system before the next folder allocates, so that the
// allocation does not add to it. The dropped memory is counted for the
// process, not per pool: a reader that closes leaves its drops to be
// returned before the next folder of any reader allocates, and a process
// that exits after its last archive spends no collection on them.
//
// Every change of the reader's decoder memory — a folder reserving it,
// a folder ending and pooling its decoders, an idle decoder dropped —
// is made under mu together with the budget's charge. The memory charged
// for decoders is therefore always either held by a folder being decoded
// (active) or idle in items, never between the two, and a folder that
// sees no folder active and no idle decoder knows that waiting cannot
// free anything (coders.go, reserve).
type decoderPool struct {
	mem *archive.MemoryBudget // nil: no accounting

	mu     sync.Mutex
	items  [numPoolKinds][]pooledItem
	active int64 // charges held by folders being decoded
}

// droppedBytes is the decoder memory every pool of the process dropped
// since the last collection.
var droppedBytes atomic.Int64

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
	return p.takeLocked(kind, need)
}

// takeLocked is take with p.mu held.
func (p *decoderPool) takeLocked(kind poolKind, need int64) (pooledItem, bool) {
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
	p.items[kind] = slices.Delete(l, best, best+1) // clears the freed slot: nothing stays reachable
	return it, true
}

// put returns an idle item to the pool, or drops it when the pool holds
// enough of its kind.
func (p *decoderPool) put(kind poolKind, it pooledItem) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.putLocked(kind, it)
	p.mu.Unlock()
}

// putLocked is put with p.mu held; it reports whether the item was kept.
func (p *decoderPool) putLocked(kind poolKind, it pooledItem) bool {
	if len(p.items[kind]) < maxPooledPerKind {
		p.items[kind] = append(p.items[kind], it)
		return true
	}
	p.dropLocked(it.charge)
	return false
}

// dropLocked gives the charge of a discarded item back to the budget;
// p.mu is held.
func (p *decoderPool) dropLocked(charge int64) {
	if charge == 0 {
		return
	}
	droppedBytes.Add(charge)
	if p.mem != nil {
		p.mem.Release(charge)
	}
}

// collect returns dropped memory to the operating system when enough of
// it has accumulated in the process. It is called without p.mu, before
// memory is allocated.
func (p *decoderPool) collect() {
	if p == nil {
		return
	}
	if n := droppedBytes.Load(); n >= collectThreshold && droppedBytes.CompareAndSwap(n, 0) {
		debug.FreeOSMemory()
	}
}

// Reclaim drops idle decoders, largest first, until need bytes are freed
// or none is left. It implements archive.Reclaimer (another reader
// sharing the budget asks).
func (p *decoderPool) Reclaim(need int64) {
	p.mu.Lock()
	p.reclaimLocked(need)
	p.mu.Unlock()
	p.collect()
}

// reclaimLocked is Reclaim with p.mu held and without the collection.
func (p *decoderPool) reclaimLocked(need int64) {
	for freed := int64(0); freed < need; {
		bk, bi := -1, -1
		for k := range p.items {
			for i, it := range p.items[k] {
				if it.charge > 0 && (bk < 0 || it.charge > p.items[bk][bi].charge) {
					bk, bi = k, i
				}
			}
		}
		if bk < 0 {
			return
		}
		it := p.items[bk][bi]
		p.items[bk] = slices.Delete(p.items[bk], bi, bi+1)
		p.dropLocked(it.charge)
		freed += it.charge
	}
}

// drain drops every idle item (the reader closes). Their memory goes back
// to the system before the next folder of any reader allocates, not now.
func (p *decoderPool) drain() {
	p.mu.Lock()
	for k := range p.items {
		for _, it := range p.items[k] {
			p.dropLocked(it.charge)
		}
		p.items[k] = nil
	}
	p.mu.Unlock()
}
