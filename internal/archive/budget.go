package archive

import "sync"

// MemoryBudget accounts the memory sized by an archive — dictionaries,
// windows, model arenas, header records — that a reader holds at once,
// whatever the number of blocks, entries or threads. Users take their
// size (TryAcquire) before allocating and release it when the memory is
// gone (dropped, not merely idle in a pool); idle holdings are given back
// on demand through the reclaimers registered with AddReclaimer.
//
// A request that does not fit what is free reclaims idle memory and then
// waits for a change (Changed) before trying again; holders must
// therefore never wait while keeping memory another request could free.
//
// The zero value is not usable; create one with NewMemoryBudget. It is
// safe for concurrent use.
type MemoryBudget struct {
	mu         sync.Mutex
	limit      int64
	used       int64
	wake       chan struct{} // closed and replaced on every release
	reclaimers []Reclaimer
}

// Reclaimer gives idle memory back to a MemoryBudget: Reclaim drops idle
// holdings of about need bytes or more (fewer when it holds fewer) and
// releases them to the budget. It is called without the budget's lock.
type Reclaimer interface {
	Reclaim(need int64)
}

// NewMemoryBudget returns a budget of limit bytes (DefaultMaxDict when
// limit <= 0).
func NewMemoryBudget(limit int64) *MemoryBudget {
	if limit <= 0 {
		limit = DefaultMaxDict
	}
	return &MemoryBudget{limit: limit, wake: make(chan struct{})}
}

// Limit returns the size of the budget.
func (b *MemoryBudget) Limit() int64 { return b.limit }

// InUse returns the bytes currently acquired.
func (b *MemoryBudget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// AddReclaimer registers r to be asked for idle memory when a request
// does not fit. r must be comparable (a pointer, typically) for
// RemoveReclaimer.
func (b *MemoryBudget) AddReclaimer(r Reclaimer) {
	b.mu.Lock()
	b.reclaimers = append(b.reclaimers, r)
	b.mu.Unlock()
}

// RemoveReclaimer unregisters r.
func (b *MemoryBudget) RemoveReclaimer(r Reclaimer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.reclaimers {
		if x == r {
			b.reclaimers = append(b.reclaimers[:i], b.reclaimers[i+1:]...)
			return
		}
	}
}

// TryAcquire takes n bytes if they are free now, without reclaiming or
// waiting, and reports whether it did. A negative or oversized n is
// refused.
func (b *MemoryBudget) TryAcquire(n int64) bool {
	if n == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || n > b.limit-b.used {
		return false
	}
	b.used += n
	return true
}

// ForceAcquire takes n bytes even beyond the limit. It is for callers
// that bound the excess themselves (a small lasting charge, such as a
// parsed header, beside one allocation that alone fits the limit).
func (b *MemoryBudget) ForceAcquire(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// Reclaim asks the registered reclaimers to drop about need bytes of idle
// memory.
func (b *MemoryBudget) Reclaim(need int64) {
	b.mu.Lock()
	rs := append([]Reclaimer(nil), b.reclaimers...)
	b.mu.Unlock()
	for _, r := range rs {
		r.Reclaim(need)
	}
}

// Changed returns a channel that is closed at the next Release or Notify.
// A request that does not fit takes it before trying, and waits on it
// after failing, so that no release in between is missed.
func (b *MemoryBudget) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wake
}

// Notify wakes the waiters without releasing memory: a holder made some
// of its memory idle (reusable or reclaimable).
func (b *MemoryBudget) Notify() {
	b.mu.Lock()
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// Release gives back n bytes acquired earlier.
func (b *MemoryBudget) Release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.used < 0 {
		b.used = 0
	}
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}
