package stream

import (
	"bytes"
	"encoding/binary"
	"io"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/testenv"
)

// zstdEncode compresses data into one frame with a window of w bytes.
func zstdEncode(t *testing.T, data []byte, w int) []byte {
	t.Helper()
	e, err := zstd.NewWriter(nil, zstd.WithWindowSize(w), zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	return e.EncodeAll(data, nil)
}

// ringOf returns the data pointer and capacity of d's window ring.
func ringOf(t *testing.T, d *zstd.Decoder) (uintptr, int) {
	t.Helper()
	r, ok := zstdRing(d)
	if !ok {
		t.Fatal("klauspost's decoder has no history ring field: giveWindow no longer gives it a window")
	}
	return r.Pointer(), r.Cap()
}

// blockBuffersOf returns the data pointers of the dataStorage and
// literalBuf of d's block decoder, which waits in its channel of
// decoders once a stream has ended.
func blockBuffersOf(t *testing.T, d *zstd.Decoder) (data, lits uintptr) {
	t.Helper()
	ch := reflect.ValueOf(d).Elem().FieldByName("decoders")
	if ch.Kind() != reflect.Chan {
		t.Fatal("klauspost's decoder has no channel of block decoders")
	}
	ch = reflect.NewAt(ch.Type(), unsafe.Pointer(ch.UnsafeAddr())).Elem()
	b, ok := ch.TryRecv()
	if !ok || b.Kind() != reflect.Pointer || b.IsNil() {
		t.Fatal("no block decoder waits in the channel")
	}
	defer ch.Send(b)
	return b.Elem().FieldByName("dataStorage").Pointer(), b.Elem().FieldByName("literalBuf").Pointer()
}

// TestZstdWindowGiven: klauspost's decoder decodes into the ring garc
// gives it (on Linux, memory outside the heap) rather than one of its
// own, with the same output, and its block decoder reads blocks and
// literals into the buffers garc gives it behind the ring; a decoder
// taken over by a later stream with a larger window gets a larger ring,
// with a smaller one keeps its ring.
func TestZstdWindowGiven(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the window is given only on Linux (zstdWindowMemory)")
	}
	// Two collections empty zstdDecoders, whose decoders may hold rings
	// of their own from other tests (a 4 GiB one from a frame declaring
	// that window).
	runtime.GC()
	runtime.GC()
	data := testenv.MixedData(t, 6<<20)
	var (
		last, lastData uintptr
		lastParts      *zstdParts
	)
	for i, c := range []struct {
		window int
		grows  bool // a new ring, larger than the last case's
	}{{2 << 20, true}, {1 << 20, false}, {8 << 20, true}} {
		comp := zstdEncode(t, data, c.window)
		d, _, err := NewDecoder(Zstd, bytes.NewReader(comp), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		zd, ok := d.(*zstdDecoder)
		if !ok {
			t.Fatalf("decoder %T, want klauspost's", d)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("window %d: %d bytes, %v; want %d", c.window, len(got), err, len(data))
		}
		p, n := ringOf(t, zd.dec)
		if p != uintptr(unsafe.Pointer(unsafe.SliceData(zd.win))) || n != cap(zd.win)-2*zstdBlockBuf {
			t.Errorf("window %d: decoder's ring at %#x (cap %d), given %p (cap %d)", c.window, p, n, zd.win, cap(zd.win))
		}
		// The first decoder is a new one (the pool was emptied): its
		// block buffers are behind its ring; a decoder taken over keeps
		// them, wherever its ring goes.
		data, lits := blockBuffersOf(t, zd.dec)
		if i == 0 && (data != p+uintptr(n) || lits != data+zstdBlockBuf) {
			t.Errorf("window %d: block buffers at %#x and %#x, given %#x and %#x", c.window, data, lits, p+uintptr(n), p+uintptr(n)+zstdBlockBuf)
		}
		if zd.zstdParts == lastParts && (data != lastData || lits != lastData+zstdBlockBuf) {
			t.Errorf("window %d: block buffers at %#x and %#x, before at %#x", c.window, data, lits, lastData)
		}
		lastData = data
		if n < c.window+zstdRingRoom {
			t.Errorf("window %d: ring of %d bytes", c.window, n)
		}
		// sync.Pool may hand out another decoder (the goroutine moved).
		if zd.zstdParts == lastParts && (p != last) != c.grows {
			t.Errorf("window %d: ring at %#x after %#x, want a new one: %v", c.window, p, last, c.grows)
		}
		last, lastParts = p, zd.zstdParts
		d.Close()
	}
}

// TestZstdFirstWindow reads the window of the first data frame, past
// skippable frames, for a window descriptor and a single segment.
func TestZstdFirstWindow(t *testing.T) {
	skip := binary.LittleEndian.AppendUint32(nil, zstdSkipMagic+3)
	skip = binary.LittleEndian.AppendUint32(skip, 5)
	skip = append(skip, "abcde"...)
	single := []byte{0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0x00, 0x00, 0x10, 0x00} // 4-byte content size 1 MiB
	for _, c := range []struct {
		name string
		data []byte
		want uint64
	}{
		{"2 MiB", zstdRawFrame(0x58, []byte("x")), 2 << 20},
		{"2.25 MiB", zstdRawFrame(0x59, []byte("x")), 2<<20 + 256<<10},
		{"after a skippable frame", append(skip, zstdRawFrame(0x60, []byte("x"))...), 4 << 20},
		{"single segment", single, 1 << 20},
		{"tiny single segment", []byte{0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05}, zstdMinWindow},
		{"not zstd", []byte("plain text, not zstd"), 0},
		{"truncated header", []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00}, 0},
	} {
		if got := zstdFirstWindow(c.data); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
