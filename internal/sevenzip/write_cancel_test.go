package sevenzip

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// textSource yields n bytes of compressible text, cancelling cancel once
// cancelAt bytes have been read, and counts the bytes read once ctx is
// done.
type textSource struct {
	ctx         context.Context
	text        []byte
	n, read     int64
	cancelAt    int64
	cancel      func()
	afterCancel *atomic.Int64
}

func (s *textSource) Read(p []byte) (int, error) {
	if s.read >= s.n {
		return 0, io.EOF
	}
	if s.ctx.Err() != nil {
		s.afterCancel.Add(int64(len(p)))
	}
	k := int(min(int64(len(p)), s.n-s.read))
	for i := range k {
		p[i] = s.text[(s.read+int64(i))%int64(len(s.text))] ^ byte((s.read+int64(i))>>20)
	}
	s.read += int64(k)
	if s.read >= s.cancelAt {
		s.cancel()
	}
	return k, nil
}

// cancellingOutput cancels after its first write beyond the signature
// header: an encoder has finished a block then, and others are running.
type cancellingOutput struct {
	memOutput
	cancel  func()
	written atomic.Int64
}

func (c *cancellingOutput) Write(p []byte) (int, error) {
	if c.written.Add(int64(len(p))) > signatureHeaderSize {
		c.cancel()
	}
	return c.memOutput.Write(p)
}

// TestWriteCancelStops: cancelling the context of a large write makes it
// return context.Canceled after reading at most one more buffer of input,
// with every encoder goroutine ended (LZMA2 blocks and BZip2 blocks in
// flight are stopped, not left running), whether the cancellation comes
// while input is read or while blocks are being encoded.
func TestWriteCancelStops(t *testing.T) {
	const size = 256 << 20
	text := pseudoText(9, 1<<20)
	for _, c := range []struct {
		name string
		opts WriteOptions
	}{
		{"lzma2-mt2", WriteOptions{Level: 5, DictSize: 256 << 10, Threads: 2}},
		{"lzma2-mt1", WriteOptions{Level: 5, DictSize: 256 << 10, Threads: 1}},
		{"lzma-mx9", WriteOptions{Method: "LZMA", Level: 9, DictSize: 256 << 10, Threads: 1}},
		{"bzip2-mt2", WriteOptions{Method: "BZip2", Level: 9, Threads: 2}},
		{"ppmd", WriteOptions{Method: "PPMd", Level: 5}},
		{"deflate", WriteOptions{Method: "Deflate", Level: 5}},
	} {
		for _, during := range []string{"input", "encoding"} {
			t.Run(c.name+"-"+during, func(t *testing.T) {
				before := runtime.NumGoroutine()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var after atomic.Int64
				cancelAt := int64(size)
				if during == "input" {
					cancelAt = 1 << 20
				}
				var out Output = &memOutput{}
				if during == "encoding" {
					out = &cancellingOutput{cancel: cancel}
				}
				it := []WriteItem{{Name: "big.txt", Size: size, Open: func() (io.ReadCloser, error) {
					return io.NopCloser(&textSource{ctx: ctx, text: text, n: size, cancelAt: cancelAt, cancel: cancel, afterCancel: &after}), nil
				}}}
				opts := c.opts
				_, err := Write(ctx, out, it, &opts)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want context.Canceled", err)
				}
				if n := after.Load(); n > 0 {
					t.Errorf("%d bytes read after the cancellation", n)
				}
				testenv.CheckGoroutines(t, before)
			})
		}
	}
}
