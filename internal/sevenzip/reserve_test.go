package sevenzip

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// simulateFolder does with the pool what a folder does: it reserves the
// memory of needs, builds (or reuses) one decoder per need and returns
// them to the pool when it ends. check runs while the folder holds its
// memory.
func simulateFolder(ctx context.Context, pool *decoderPool, needs []memoryNeed, check func()) error {
	d := &decodeContext{ctx: ctx, pool: pool}
	defer d.close()
	if err := d.reserve(needs); err != nil {
		return err
	}
	for _, nd := range needs {
		if nd.kind == poolNone {
			continue // not pooled: its fresh charge is released at close
		}
		if v, charge := d.reuse(nd.kind, nd.n); v != nil {
			d.keep(nd.kind, v, charge, false)
			continue
		}
		d.keep(nd.kind, new(int), nd.n, true)
	}
	check()
	return nil
}

// TestReserveConcurrentFolders: folders each needing nearly all the
// decoder memory, decoded by several goroutines at once, wait for each
// other: none is refused (the exit 8 that garc t --threads 2 sometimes
// gave on such folders: one saw another's memory between the pool and
// the count of active folders, and took it for the header's), none waits
// forever, and together they never hold more than the decoder memory
// (the same mistake let two folders take their memory at once beside a
// small header's charge).
func TestReserveConcurrentFolders(t *testing.T) {
	// Small units, so that dropped decoders seldom reach the pool's
	// collection threshold (each collection is a full GC).
	const (
		unit    = 10 << 10
		decoder = 100 * unit // memory for decoders beside the header's charge
	)
	kinds := [][]memoryNeed{
		{{kind: poolPPMd, n: 98 * unit}},
		{{kind: poolLZMA, n: 98 * unit}},
		{{kind: poolLZMA2, n: 60 * unit}, {kind: poolLZMA, n: 38 * unit}},
		{{kind: poolNone, n: 98 * unit}},
		{{kind: poolPPMd, n: 90 * unit}},
	}
	goroutines, rounds := 3, 3000
	if testing.Short() || raceEnabled {
		rounds = 500
	}
	for _, tc := range []struct {
		name    string
		lasting int64 // the parsed header's charge
		limit   int64
		needs   func(g, i int) []memoryNeed
	}{
		// A folder needing 98 units fits only beside the header, taking
		// the memory alone.
		{"same kind", 4 * unit, decoder, func(g, i int) []memoryNeed { return kinds[0] }},
		{"mixed kinds", 4 * unit, decoder, func(g, i int) []memoryNeed { return kinds[(g+i)%len(kinds)] }},
		// A header above headerSlack: folders fit only within the limit.
		{"large header", headerSlack + unit, headerSlack + unit + decoder,
			func(g, i int) []memoryNeed { return kinds[(g+i)%len(kinds)] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := archive.NewMemoryBudget(tc.limit)
			pool := &decoderPool{mem: mem}
			mem.AddReclaimer(pool)
			if !mem.TryAcquire(tc.lasting) {
				t.Fatal("lasting charge refused")
			}
			// A lost wake-up would hang: it ends the wait instead and
			// shows as an error.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			var mu sync.Mutex
			var errs []error
			report := func(err error) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			for g := range goroutines {
				wg.Go(func() {
					for i := range rounds {
						needs := tc.needs(g, i)
						err := simulateFolder(ctx, pool, needs, func() {
							if n := mem.InUse() - tc.lasting; n > decoder {
								report(fmt.Errorf("%d bytes of decoders charged, at most %d", n, decoder))
							}
						})
						if err != nil {
							report(fmt.Errorf("goroutine %d, folder %d (%v): %w", g, i, needs, err))
							return
						}
					}
				})
			}
			wg.Wait()
			if len(errs) > 0 {
				t.Fatal(errors.Join(errs...))
			}
			pool.drain()
			if n := mem.InUse(); n != tc.lasting {
				t.Errorf("%d bytes charged after the folders and the pool, want the lasting %d", n, tc.lasting)
			}
		})
	}
}

// TestReserveAlone: a folder that finds no other folder decoding takes
// the memory idle decoders hold, and beside a lasting charge of at most
// headerSlack even beyond the limit; it is refused only when it cannot
// fit beside a larger lasting charge with every idle decoder dropped.
func TestReserveAlone(t *testing.T) {
	const limit = 256 << 20
	for _, tc := range []struct {
		name    string
		lasting int64
		idle    []memoryNeed // idle decoders in the pool
		needs   []memoryNeed
		refused bool
		reused  int // idle decoders reused
	}{
		{"free", 0, nil, []memoryNeed{{poolLZMA, 200 << 20}}, false, 0},
		{"reuse", 0, []memoryNeed{{poolLZMA, 250 << 20}}, []memoryNeed{{poolLZMA, 200 << 20}}, false, 1},
		{"drop other kind", 0, []memoryNeed{{poolPPMd, 250 << 20}}, []memoryNeed{{poolLZMA, 200 << 20}}, false, 0},
		{"drop oversized same kind", 0, []memoryNeed{{poolLZMA, 250 << 20}},
			[]memoryNeed{{poolLZMA, 8 << 20}, {poolPPMd, 200 << 20}}, false, 0},
		{"drop all idle", 0, []memoryNeed{{poolLZMA, 100 << 20}, {poolLZMA2, 100 << 20}, {poolPPMd, 50 << 20}},
			[]memoryNeed{{poolNone, 250 << 20}}, false, 0},
		{"beside header", headerSlack, []memoryNeed{{poolPPMd, 200 << 20}}, []memoryNeed{{poolLZMA, 250 << 20}}, false, 0},
		{"beside large header", headerSlack + 1, []memoryNeed{{poolPPMd, 200 << 20}}, []memoryNeed{{poolLZMA, 250 << 20}}, true, 0},
		{"above limit", 0, nil, []memoryNeed{{poolLZMA, 200 << 20}, {poolPPMd, 57 << 20}}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := archive.NewMemoryBudget(limit)
			pool := &decoderPool{mem: mem}
			mem.AddReclaimer(pool)
			mem.ForceAcquire(tc.lasting)
			for _, nd := range tc.idle {
				mem.ForceAcquire(nd.n)
				pool.put(nd.kind, pooledItem{v: new(int), charge: nd.n})
			}
			d := &decodeContext{ctx: context.Background(), pool: pool}
			err := d.reserve(tc.needs)
			if tc.refused {
				if !errors.Is(err, archive.ErrLimit) {
					t.Fatalf("reserve: %v, want a limit error", err)
				}
				if d.held != 0 || pool.active != 0 {
					t.Errorf("refused folder holds %d, active %d", d.held, pool.active)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			reused := 0
			for k := range d.reserved {
				reused += len(d.reserved[k])
			}
			if reused != tc.reused {
				t.Errorf("%d idle decoders reused, want %d", reused, tc.reused)
			}
			var total int64
			for _, nd := range tc.needs {
				total += nd.n
			}
			if d.held < total || pool.active != d.held {
				t.Errorf("folder holds %d, active %d, needs %d", d.held, pool.active, total)
			}
			if n := mem.InUse(); n > max(limit, tc.lasting+total) {
				t.Errorf("%d bytes charged, limit %d, lasting %d", n, limit, tc.lasting)
			}
			d.close()
			pool.drain()
			if n := mem.InUse(); n != tc.lasting {
				t.Errorf("%d bytes charged after close, want the lasting %d", n, tc.lasting)
			}
		})
	}
}

// TestReserveWaits: a folder that does not fit beside one decoding waits
// for it, reuses what it leaves, and a cancelled wait returns the
// context's error holding nothing.
func TestReserveWaits(t *testing.T) {
	mem := archive.NewMemoryBudget(100 << 20)
	pool := &decoderPool{mem: mem}
	mem.AddReclaimer(pool)
	first := &decodeContext{ctx: context.Background(), pool: pool}
	needs := []memoryNeed{{poolPPMd, 90 << 20}}
	if err := first.reserve(needs); err != nil {
		t.Fatal(err)
	}
	first.keep(poolPPMd, new(int), 90<<20, true)

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := &decodeContext{ctx: ctx, pool: pool}
	cancel()
	if err := cancelled.reserve(needs); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	if cancelled.held != 0 || pool.active != 90<<20 {
		t.Fatalf("cancelled folder holds %d, active %d", cancelled.held, pool.active)
	}

	second := &decodeContext{ctx: context.Background(), pool: pool}
	done := make(chan error)
	go func() { done <- second.reserve(needs) }()
	first.close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(second.reserved[poolPPMd]) != 1 || second.fresh != 0 || mem.InUse() != 90<<20 {
		t.Errorf("second folder: %d reused, %d fresh, %d charged", len(second.reserved[poolPPMd]), second.fresh, mem.InUse())
	}
	second.close()
	pool.drain()
	if n := mem.InUse(); n != 0 {
		t.Errorf("%d bytes charged at the end", n)
	}
}

// TestDrainLeavesCollection: a closing reader's dropped decoders are not
// collected at its close (a process that exits next spends nothing on
// them) but before the next folder of any reader allocates.
func TestDrainLeavesCollection(t *testing.T) {
	droppedBytes.Store(0)
	mem := archive.NewMemoryBudget(1 << 30)
	closing := &decoderPool{mem: mem}
	d := &decodeContext{ctx: context.Background(), pool: closing}
	if err := d.reserve([]memoryNeed{{poolPPMd, collectThreshold}}); err != nil {
		t.Fatal(err)
	}
	d.keep(poolPPMd, new(int), collectThreshold, true)
	d.close()
	closing.drain()
	if n := droppedBytes.Load(); n != collectThreshold {
		t.Fatalf("%d bytes counted as dropped after the close, want %d (not collected yet)", n, collectThreshold)
	}
	if n := mem.InUse(); n != 0 {
		t.Fatalf("%d bytes charged after the close", n)
	}
	next := &decodeContext{ctx: context.Background(), pool: &decoderPool{mem: mem}}
	if err := next.reserve([]memoryNeed{{poolLZMA, 1 << 20}}); err != nil {
		t.Fatal(err)
	}
	if n := droppedBytes.Load(); n != 0 {
		t.Errorf("%d bytes still counted as dropped after another reader's folder reserved memory", n)
	}
	next.close()
}
