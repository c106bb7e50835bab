package archive

import "testing"

// reclaimer adapts a function to Reclaimer (a pointer: comparable).
type reclaimer struct{ f func(need int64) }

func (r *reclaimer) Reclaim(need int64) { r.f(need) }

func TestMemoryBudget(t *testing.T) {
	b := NewMemoryBudget(100)
	if b.Limit() != 100 || NewMemoryBudget(0).Limit() != DefaultMaxDict {
		t.Fatal("limits")
	}
	if !b.TryAcquire(60) || b.TryAcquire(41) || !b.TryAcquire(0) || b.TryAcquire(-1) {
		t.Fatal("TryAcquire: 60 of 100, then 41 must not fit, 0 always fits")
	}
	changed := b.Changed()
	b.Release(10)
	select {
	case <-changed:
	default:
		t.Fatal("Release does not signal Changed")
	}
	changed = b.Changed()
	b.Notify()
	select {
	case <-changed:
	default:
		t.Fatal("Notify does not signal Changed")
	}
	if b.InUse() != 50 {
		t.Fatalf("in use %d, want 50", b.InUse())
	}
	var asked int64
	r := &reclaimer{func(need int64) { asked = need; b.Release(50) }}
	b.AddReclaimer(r)
	b.Reclaim(30)
	if asked != 30 || b.InUse() != 0 {
		t.Fatalf("reclaimer asked for %d, %d in use", asked, b.InUse())
	}
	b.RemoveReclaimer(r)
	asked = 0
	b.Reclaim(1)
	if asked != 0 {
		t.Fatal("removed reclaimer still called")
	}
	b.ForceAcquire(150)
	if b.InUse() != 150 || b.TryAcquire(1) {
		t.Fatalf("after ForceAcquire: %d in use", b.InUse())
	}
}
