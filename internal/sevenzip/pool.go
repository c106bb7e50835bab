package sevenzip

import "sync"

// decoderPool keeps decoders (with their dictionaries and buffers) of
// finished folders so that the next folder reuses them instead of
// allocating again. It is shared by the folders of one Reader and safe for
// concurrent use.
type decoderPool struct {
	mu    sync.Mutex
	items map[string][]any
}

// get returns a pooled item of the given kind, or nil.
func (p *decoderPool) get(kind string) any {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.items[kind]
	if len(l) == 0 {
		return nil
	}
	it := l[len(l)-1]
	p.items[kind] = l[:len(l)-1]
	return it
}

// maxPooledPerKind bounds the memory the pool keeps.
const maxPooledPerKind = 4

// put returns an item to the pool.
func (p *decoderPool) put(kind string, it any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.items == nil {
		p.items = map[string][]any{}
	}
	if len(p.items[kind]) < maxPooledPerKind {
		p.items[kind] = append(p.items[kind], it)
	}
}
