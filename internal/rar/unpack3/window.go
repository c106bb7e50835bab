package unpack3

import (
	"sync"

	"github.com/garc-dev/garc/internal/ppmd"
)

// minWindow is the smallest window allocated. It leaves room for the
// longest match beyond the decoding limit.
const minWindow = 256 << 10

var (
	poolMu sync.Mutex
	pools  = map[int]*sync.Pool{}
)

// getWindow returns a window of exactly size bytes, reused from the pool
// when one is available. Its contents are stale: the decoder never reads
// a byte it has not written since Reset.
func getWindow(size int) *[]byte {
	poolMu.Lock()
	p := pools[size]
	poolMu.Unlock()
	if p != nil {
		if b, ok := p.Get().(*[]byte); ok && len(*b) == size {
			return b
		}
	}
	b := make([]byte, size)
	return &b
}

// putWindow returns a window to the pool of its size.
func putWindow(b *[]byte) {
	if b == nil || len(*b) == 0 {
		return
	}
	poolMu.Lock()
	p := pools[len(*b)]
	if p == nil {
		p = new(sync.Pool)
		pools[len(*b)] = p
	}
	poolMu.Unlock()
	p.Put(b)
}

// windowSize chooses the window for an entry: the whole dictionary for a
// solid continuation or an unknown size, otherwise the unpacked size
// rounded up to a power of two when that is smaller.
func windowSize(dict, unpacked int64, solid bool) int64 {
	w := dict
	if !solid && unpacked >= 0 {
		r := int64(minWindow)
		for r < unpacked && r < dict {
			r <<= 1
		}
		w = min(w, r)
	}
	return max(w, minWindow)
}

// models pools PPMd models with their arenas (up to 256 MiB, allocated and
// cleared by the runtime), so that a new Decoder per archive does not pay
// for a fresh arena. Model.Init rebuilds a model whatever it held.
var models sync.Pool

// getModel returns a pooled PPMd model or a new one.
func getModel() *ppmd.Model {
	if m, ok := models.Get().(*ppmd.Model); ok {
		return m
	}
	return ppmd.NewModel()
}

// putModel returns m to the pool.
func putModel(m *ppmd.Model) {
	if m != nil {
		models.Put(m)
	}
}
