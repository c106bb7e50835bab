package lzma

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// pollCtx is a context that becomes cancelled at its cancelAt-th poll (a
// call of Done), as if the cancellation had arrived just before it, and
// then calls onCancel. It counts polls, so that the tests depend on how
// much input the encoder processes, not on time.
type pollCtx struct {
	context.Context
	mu       sync.Mutex
	polls    int
	cancelAt int
	onCancel func()
	done     chan struct{}
}

func newPollCtx(cancelAt int) *pollCtx {
	return &pollCtx{Context: context.Background(), cancelAt: cancelAt, done: make(chan struct{})}
}

func (c *pollCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	if c.polls == c.cancelAt {
		close(c.done)
		if c.onCancel != nil {
			c.onCancel()
		}
	}
	return c.done
}

func (c *pollCtx) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// maxAfterCancel bounds the input positions an encoder may process after
// a cancellation: one polling interval plus one optimal parse.
const maxAfterCancel = cancelCheckInterval + lookahead

// TestCompressBlockCancel cancels a block mid-way and checks that the
// encoder (with and without the parallel finder) stops within
// maxAfterCancel more input positions, returning the context's error.
func TestCompressBlockCancel(t *testing.T) {
	data := testData("text", 2<<20, 7)
	for _, tc := range []struct {
		level, threads int
	}{{1, 1}, {3, 1}, {5, 1}, {9, 1}, {9, 2}} {
		t.Run(fmt.Sprintf("mx%d/mt%d", tc.level, tc.threads), func(t *testing.T) {
			o := LevelOptions(tc.level)
			o.DictSize = min(o.DictSize, 4<<20) // the data's size: tables of 256 MiB would only cost memory
			o.Threads = tc.threads
			ctx := newPollCtx(4)
			o.Context = ctx
			if err := o.normalize(); err != nil {
				t.Fatal(err)
			}
			e := newEncoder(&o)
			atCancel := -1
			ctx.onCancel = func() { atCancel = e.mf.pos }
			useMT := tc.threads >= 2
			_, err := compressBlock(e, data, 0, 0, nil, useMT)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if atCancel < 0 {
				t.Fatal("the context was never cancelled")
			}
			if n := e.mf.pos - atCancel; n > maxAfterCancel {
				t.Errorf("encoder went on for %d positions after the cancellation (at %d), want <= %d", n, atCancel, maxAfterCancel)
			}
		})
	}
}

// TestPreloadCancel cancels while a block's history is being inserted.
func TestPreloadCancel(t *testing.T) {
	data := testData("text", 3<<20, 8)
	o := LevelOptions(9)
	o.DictSize = 4 << 20 // the data's size: tables of 256 MiB would only cost memory
	ctx := newPollCtx(3)
	o.Context = ctx
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	e := newEncoder(&o)
	atCancel := -1
	ctx.onCancel = func() { atCancel = e.mf.pos }
	hist := 2 << 20
	_, err := compressBlock(e, data, hist, int64(hist), nil, false)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if atCancel < 0 || atCancel >= hist {
		t.Fatalf("cancelled at %d, want during the preload of %d bytes", atCancel, hist)
	}
	if n := e.mf.pos - atCancel; n > cancelCheckInterval {
		t.Errorf("preload went on for %d positions after the cancellation, want <= %d", n, cancelCheckInterval)
	}
}

// TestWriterCancel cancels the LZMA Writer mid-stream.
func TestWriterCancel(t *testing.T) {
	data := testData("text", 4<<20, 9)
	o := LevelOptions(9)
	o.DictSize = 1 << 16
	ctx := newPollCtx(5)
	o.Context = ctx
	w, err := NewWriter(io.Discard, o)
	if err != nil {
		t.Fatal(err)
	}
	atCancel := -1
	ctx.onCancel = func() {
		if w.e != nil && w.e.mf.buf != nil {
			atCancel = w.e.mf.pos
		}
	}
	_, err = w.Write(data)
	if err == nil {
		err = w.Close()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if atCancel < 0 {
		t.Fatal("the context was not cancelled while encoding")
	}
	if n := w.e.mf.pos - atCancel; n > maxAfterCancel {
		t.Errorf("encoder went on for %d positions after the cancellation, want <= %d", n, maxAfterCancel)
	}
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close after the cancellation: %v", err)
	}
}

// cancellingWriter cancels a context at its first Write.
type cancellingWriter struct {
	cancel context.CancelFunc
}

func (c *cancellingWriter) Write(p []byte) (int, error) {
	c.cancel()
	return len(p), nil
}

// TestWriter2CancelNoLeak cancels a multi-threaded LZMA2 Writer once the
// first block is out and checks that Write or Close report it and that
// every goroutine of the writer has ended.
func TestWriter2CancelNoLeak(t *testing.T) {
	data := testData("text", 6<<20, 10)
	for _, threads := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("mt", threads), func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := LevelOptions(9)
			o.DictSize = 1 << 20
			o.BlockSize = 1 << 20
			o.Threads = threads
			o.Context = ctx
			w, err := NewWriter2(&cancellingWriter{cancel}, o)
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.Write(data)
			if err == nil {
				err = w.Close()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			testenv.CheckGoroutines(t, before)
		})
	}
}

// TestWriter2ContextNotCancelled checks that a live context changes
// nothing in the output.
func TestWriter2ContextNotCancelled(t *testing.T) {
	data := testData("mixed", 1<<20, 11)
	o := LevelOptions(5)
	want, _ := encodeLZMA2(t, data, o)
	o.Context = context.Background()
	got, _ := encodeLZMA2(t, data, o)
	if !bytes.Equal(got, want) {
		t.Fatal("output differs with a context")
	}
}
