package stream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// readerClock is a fake clock for the read-ahead's windows: it shows the
// reader spending consume between its Reads and the decoder decode in
// each (it is advanced by those at each reading).
type readerClock struct {
	consume, decode time.Duration
	now             time.Time
	inRead          bool
}

func (c *readerClock) read() time.Time {
	if c.inRead {
		c.now = c.now.Add(c.decode)
	} else {
		c.now = c.now.Add(c.consume)
	}
	c.inRead = !c.inRead
	return c.now
}

// readerWork makes the readAheads' clock a readerClock until the test
// ends.
func readerWork(t *testing.T, consume, decode time.Duration) *readerClock {
	c := &readerClock{consume: consume, decode: decode, now: time.Now()}
	readAheadClock = c.read
	t.Cleanup(func() { readAheadClock = time.Now })
	return c
}

// readSmall reads r to its end in reads of odd sizes, returning the data
// and the error that ended it (nil for io.EOF).
func readSmall(r io.Reader) ([]byte, error) {
	var out bytes.Buffer
	buf := make([]byte, 70001)
	for i := 0; ; i++ {
		n, err := r.Read(buf[:1+i*7919%len(buf)])
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

// readChunks reads r by ReadChunk of odd sizes, as an extractor takes a
// file's data, to its end or to at least stop bytes (stop > 0), returning
// the data and the error that ended it (nil for io.EOF).
func readChunks(r *readAhead, stop int) ([]byte, error) {
	var out bytes.Buffer
	for i := 0; stop <= 0 || out.Len() < stop; i++ {
		b, err := r.ReadChunk(1 + i*7919%70001)
		out.Write(b)
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
	return out.Bytes(), nil
}

// TestReadAheadSameAsDirect decodes every kind, whole, damaged and cut
// near the end, with threads 1, directly and through a read-ahead: the same
// bytes and the same error come out. (With threads 2 NewDecoder also
// decodes bzip2 blocks in parallel, a decoder of its own.) The reader
// takes the data by ReadChunk and is made to look busy, so that the
// goroutine starts.
func TestReadAheadSameAsDirect(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	data := make([]byte, (readAheadBusy+1)*readAheadDirect+3<<16+12345)
	x := uint32(1)
	for i := range data {
		x = x*1664525 + 1013904223
		data[i] = "garc  reads\n"[x>>28%12]
	}
	cases := []struct {
		name string
		kind Kind
		comp []byte
	}{
		{"gz", Gzip, tool(t, data, "gzip", "-c", "-n")},
		{"bz2", Bzip2, tool(t, data, "bzip2", "-c")},
		{"xz", XZ, tool(t, data, "xz", "-c", "-1")},
		{"zst", Zstd, tool(t, data, "zstd", "-c", "-q", "--check")},
	}
	for _, c := range cases {
		damaged := bytes.Clone(c.comp) // past where the read-ahead starts
		for i := len(damaged) * 15 / 16; i < len(damaged)*15/16+64; i++ {
			damaged[i] ^= 0x55
		}
		for _, in := range []struct {
			name string
			comp []byte
		}{{"whole", c.comp}, {"damaged", damaged}, {"cut", c.comp[:len(c.comp)*15/16]}} {
			t.Run(c.name+"/"+in.name, func(t *testing.T) {
				var outs [2][]byte
				var errs [2]error
				for i := range 2 {
					d, _, err := NewDecoder(c.kind, bytes.NewReader(in.comp), 0, 1)
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := d.(*readAhead); ok {
						t.Fatal("threads 1: read-ahead")
					}
					var ra *readAhead
					if i == 1 {
						ra = newReadAhead(d)
						d = ra
						outs[i], errs[i] = readChunks(ra, 0)
					} else {
						outs[i], errs[i] = readSmall(d)
					}
					d.Close()
					if ra != nil && !ra.started && len(outs[1]) > (readAheadBusy+1)*readAheadDirect {
						t.Fatalf("the read-ahead did not start in %d bytes", len(outs[1]))
					}
				}
				if in.name == "whole" && (errs[0] != nil || !bytes.Equal(outs[0], data)) {
					t.Fatalf("direct decoding: %d bytes, %v", len(outs[0]), errs[0])
				}
				if in.name != "whole" && errs[0] == nil {
					t.Fatal("damage not reported")
				}
				if !bytes.Equal(outs[0], outs[1]) {
					t.Errorf("read-ahead gave %d bytes, direct %d (or different ones)", len(outs[1]), len(outs[0]))
				}
				if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
					t.Errorf("read-ahead error %v, direct %v", errs[1], errs[0])
				}
			})
		}
	}
}

// failingDecoder gives n bytes and then err, counting its Reads and
// whether it was closed.
type failingDecoder struct {
	n      int
	err    error
	reads  int
	closed bool
}

func (f *failingDecoder) Read(p []byte) (int, error) {
	f.reads++
	if f.n == 0 {
		return 0, f.err
	}
	k := min(len(p), f.n, 100000)
	clear(p[:k])
	f.n -= k
	return k, nil
}

func (f *failingDecoder) Close() error { f.closed = true; return nil }

// TestReadAheadError: the data before a decoder's error comes out, then
// the error itself (errors.Is holds), and it stays.
func TestReadAheadError(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	src := &failingDecoder{n: 5<<20 + 3, err: archive.ErrChecksum}
	r := newReadAhead(src)
	got, err := readChunks(r, 0)
	if len(got) != 5<<20+3 || !errors.Is(err, archive.ErrChecksum) || !r.started {
		t.Fatalf("%d bytes, %v, started %v", len(got), err, r.started)
	}
	if _, err := r.Read(make([]byte, 10)); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("second read: %v", err)
	}
	r.Close()
	if !src.closed {
		t.Fatal("decoder not closed")
	}
}

// TestReadAheadEarlyClose: closing a long stream a few bytes after the
// goroutine started (after the readAheadBusy windows of readAheadDirect
// bytes read directly)
// stops the goroutine (Close returns only after it has) and closes the
// decoder; the goroutine has read at most the ring's worth and one
// buffer more. A decoder opened and closed without a Read starts none.
func TestReadAheadEarlyClose(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	src := &failingDecoder{n: math.MaxInt32, err: io.EOF}
	r := newReadAhead(src)
	if _, err := readChunks(r, (readAheadBusy+1)*readAheadDirect); err != nil || !r.started {
		t.Fatal(err, r.started)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	default:
		t.Fatal("goroutine still running after Close")
	}
	if !src.closed {
		t.Fatal("decoder not closed")
	}
	if read := int64(math.MaxInt32) - int64(src.n); read > (readAheadBusy+1)*readAheadDirect+(readAheadBufs+1)*readAheadSize {
		t.Fatalf("read %d bytes ahead", read)
	}
	r.Close() // a second Close does nothing

	idle := &failingDecoder{n: 10, err: io.EOF}
	r = newReadAhead(idle)
	r.Close()
	if idle.reads != 0 || r.done != nil || !idle.closed {
		t.Fatalf("%d reads, goroutine %v, closed %v", idle.reads, r.done != nil, idle.closed)
	}
}

// TestReadAheadSmallDirect checks that a stream shorter than
// readAheadBusy windows of readAheadDirect bytes is read without the
// read-ahead goroutine and its buffers, with the same bytes and end, and
// that a longer one starts it (its reader busy, taking the data by
// ReadChunk).
func TestReadAheadSmallDirect(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	for _, size := range []int{2, 100000, readAheadDirect + 100000, readAheadBusy*readAheadDirect + 100000} {
		data := bytes.Repeat([]byte("garc"), size/4)
		comp := tool(t, data, "zstd", "-c", "-q")
		d, _, err := NewDecoder(Zstd, bytes.NewReader(comp), 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		ra, ok := d.(*readAhead)
		if !ok {
			t.Fatalf("threads 2: decoder %T, want *readAhead", d)
		}
		got, err := readChunks(ra, 0)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("size %d: %d bytes, error %v; want %d bytes, none", size, len(got), err, len(data))
		}
		if n, err := d.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("size %d: Read after the end: %d, %v; want 0, EOF", size, n, err)
		}
		if want := len(data) >= readAheadBusy*readAheadDirect; ra.started != want {
			t.Errorf("size %d: goroutine started %v, want %v", size, ra.started, want)
		}
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestReadAheadOnlyForWork: the goroutine starts at the end of the
// readAheadBusy-th window of readAheadDirect bytes in a row in which the
// reader took data by ReadChunk and spent at least 1/readAheadWorth of
// the decoder's time between its reads, and never for a reader that does
// next to nothing, is busy in one window only, or takes the data by Read
// only (garc t, whose time between Reads is the processor taken away
// from it), which read directly to the end with the same bytes and end.
func TestReadAheadOnlyForWork(t *testing.T) {
	const size = 6*readAheadDirect + 12345
	const idle, busy = time.Microsecond, time.Millisecond
	for _, c := range []struct {
		name            string
		consume, decode time.Duration
		// The reader is busy (as much as the decoder) from byte from to
		// byte to, when from >= 0.
		from, to int
		// The reader takes the data by Read from byte reads to byte
		// readsTo, and by ReadChunk elsewhere.
		reads, readsTo int
		started        bool
	}{
		{"busy reader", busy, busy, -1, 0, 0, 0, true},
		{"at the threshold", busy, readAheadWorth * busy, -1, 0, 0, 0, true},
		{"idle reader", idle, busy, -1, 0, 0, 0, false},
		{"below the threshold", busy, (readAheadWorth + 1) * busy, -1, 0, 0, 0, false},
		{"busy from the third window", idle, busy, 2 * readAheadDirect, size, 0, 0, true},
		{"busy in one window", idle, busy, 2 * readAheadDirect, 3 * readAheadDirect, 0, 0, false},
		{"busy in two windows", idle, busy, 2 * readAheadDirect, 4 * readAheadDirect, 0, 0, true},
		{"busy reader by Read", busy, busy, -1, 0, 0, size, false},
		{"busy, by Read from the second window on", busy, busy, -1, 0, readAheadDirect, size, false},
		{"busy, by Read in the first window", busy, busy, -1, 0, 0, readAheadDirect, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := readerWork(t, c.consume, c.decode)
			src := &failingDecoder{n: size, err: io.EOF}
			r := newReadAhead(src)
			defer r.Close()
			var got int
			buf := make([]byte, 64<<10)
			for {
				switch {
				case c.from < 0:
				case got == c.from:
					clock.consume, clock.decode = busy, busy
				case got == c.to:
					clock.consume, clock.decode = c.consume, c.decode
				}
				var n int
				var err error
				if got >= c.reads && got < c.readsTo {
					n, err = r.Read(buf)
				} else {
					var b []byte
					b, err = r.ReadChunk(len(buf))
					n = len(b)
				}
				got += n
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got != size || r.started != c.started {
				t.Errorf("%d bytes, goroutine started %v; want %d, %v", got, r.started, size, c.started)
			}
		})
	}
}

// TestReadAheadMemory: a read-ahead that starts with no ring kept takes
// at most its ring's buffers (and the goroutine's stack) from the heap
// (on Linux none: the ring is mapped outside it).
func TestReadAheadMemory(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	readAheadRings.Lock()
	readAheadRings.free = nil // earlier tests' rings are not reused
	readAheadRings.Unlock()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := newReadAhead(&failingDecoder{n: math.MaxInt32, err: io.EOF})
	for got := 0; got < (readAheadBusy+1)*readAheadDirect; {
		b, err := r.ReadChunk(64 << 10)
		if err != nil {
			t.Fatal(err)
		}
		got += len(b)
	}
	if !r.started {
		t.Fatal("the goroutine did not start")
	}
	buf := make([]byte, 64<<10)
	for range 2 * readAheadDirect / len(buf) {
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > readAheadBufs*readAheadSize+uint64(len(buf))+64<<10 {
		t.Errorf("%d bytes allocated", n)
	}
}

// patternDecoder gives n bytes of a pattern (byte i is pattern(i)) in
// reads of at most 100000 bytes, then err.
type patternDecoder struct {
	off, n int
	err    error
}

func pattern(i int) byte { return byte(i*7 + i>>11) }

func (d *patternDecoder) Read(p []byte) (int, error) {
	if d.off == d.n {
		return 0, d.err
	}
	k := min(len(p), d.n-d.off, 100000)
	for i := range p[:k] {
		p[i] = pattern(d.off + i)
	}
	d.off += k
	return k, nil
}

func (d *patternDecoder) Close() error { return nil }

// TestReadAheadReadChunk reads a stream with ReadChunk and Read mixed, of
// sizes up to more than a buffer: the same bytes in order, then the
// decoder's error, before the goroutine starts and after. Once it has
// started, the chunks are the ring's own buffers (no copy), the buffer
// lent while reading directly among them; Close keeps the ring for the
// next read-ahead.
func TestReadAheadReadChunk(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	const size = (readAheadBusy+2)*readAheadDirect + 3*readAheadSize + 12345
	r := newReadAhead(&patternDecoder{n: size, err: archive.ErrChecksum})
	seen := map[*[readAheadSize]byte]bool{}
	inRing := func(b []byte) bool {
		for _, buf := range r.ring {
			if &b[0] == &buf[len(buf)-cap(b)] {
				seen[buf] = true
				return true
			}
		}
		return false
	}
	buf := make([]byte, readAheadSize+1)
	got := 0
	var err error
	for i := 0; err == nil; i++ {
		var b []byte
		if i%3 == 2 {
			var n int
			n, err = r.Read(buf[:1+i*7919%len(buf)])
			b = buf[:n]
		} else {
			b, err = r.ReadChunk(1 + i*104729%(2*readAheadSize))
			if len(b) > 0 && r.started && !inRing(b) {
				t.Fatalf("chunk %d at byte %d is not in the ring", i, got)
			}
		}
		for j, c := range b {
			if c != pattern(got+j) {
				t.Fatalf("byte %d is %d, want %d", got+j, c, pattern(got+j))
			}
		}
		got += len(b)
	}
	if got != size || !errors.Is(err, archive.ErrChecksum) || !r.started {
		t.Fatalf("%d bytes, %v, started %v; want %d, a checksum error, started", got, err, r.started, size)
	}
	if len(seen) != readAheadBufs {
		t.Errorf("chunks from %d of the ring's %d buffers", len(seen), readAheadBufs)
	}
	if b, err := r.ReadChunk(10); len(b) != 0 || !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("after the end: %d bytes, %v", len(b), err)
	}
	ring := r.ring
	r.Close()
	if next := getRing(); next != ring {
		t.Error("the ring of a closed read-ahead was not kept for the next one")
	} else {
		putRing(next)
	}
}

// TestSingleReadAhead: a single compressed file extracted by ReadChunk
// (an extractor writing it) is read ahead once its reader looks busy, and
// one read by Read only (garc t) is not; both give the file's bytes.
func TestSingleReadAhead(t *testing.T) {
	readerWork(t, time.Millisecond, time.Millisecond)
	data := bytes.Repeat([]byte("garc reads ahead\n"), (readAheadBusy+2)*readAheadDirect/17)
	comp := tool(t, data, "zstd", "-c", "-q")
	for _, chunks := range []bool{false, true} {
		f, err := OpenFile(bytes.NewReader(comp), int64(len(comp)), Zstd, &archive.Options{Name: "a.zst", Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		started := false
		err = f.Extract(context.Background(), nil, func(_ *archive.Entry, r io.Reader) error {
			var err error
			if chunks {
				for err == nil {
					var b []byte
					b, err = r.(archive.ChunkReader).ReadChunk()
					got = append(got, b...)
				}
				if err == io.EOF {
					err = nil
				}
			} else {
				got, err = io.ReadAll(r)
			}
			started = r.(*contentReader).d.(*readAhead).started
			return err
		})
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("chunks %v: %d bytes, %v; want %d", chunks, len(got), err, len(data))
		}
		if started != chunks {
			t.Errorf("chunks %v: read ahead %v", chunks, started)
		}
	}
}
