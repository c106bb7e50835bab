package sevenzip

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
)

// num encodes a 7z variable-length number.
func num(v uint64) []byte {
	var b []byte
	for n := 0; n < 8; n++ {
		if v < 1<<(7*(n+1)) {
			first := byte(0xFF << (8 - n))
			first |= byte(v >> (8 * n))
			b = append(b, first)
			for k := 0; k < n; k++ {
				b = append(b, byte(v>>(8*k)))
			}
			return b
		}
	}
	b = append(b, 0xFF)
	for k := 0; k < 8; k++ {
		b = append(b, byte(v>>(8*k)))
	}
	return b
}

func TestNum(t *testing.T) {
	for _, v := range []uint64{0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 1 << 30, 1<<56 - 1, 1 << 56, 1<<64 - 1} {
		r := &byteReader{b: num(v)}
		if got, err := r.readNumber(); err != nil || got != v || r.remaining() != 0 {
			t.Errorf("%d: got %d, %v, rest %d", v, got, err, r.remaining())
		}
	}
}

// coderSpec is one single-coder folder of a generated archive.
type coderSpec struct {
	id     []byte // method ID bytes
	props  []byte
	packed []byte
	unpack uint64
}

// folderArchive builds an archive of one entry per folder, each folder a
// single coder.
func folderArchive(folders []coderSpec) []byte {
	var packed []byte
	h := []byte{idHeader, idMainStreamsInfo, idPackInfo, 0}
	h = append(h, num(uint64(len(folders)))...)
	h = append(h, idSize)
	for _, f := range folders {
		h = append(h, num(uint64(len(f.packed)))...)
		packed = append(packed, f.packed...)
	}
	h = append(h, idEnd, idUnpackInfo, idFolder)
	h = append(h, num(uint64(len(folders)))...)
	h = append(h, 0)
	for _, f := range folders {
		h = append(h, 1, byte(len(f.id))|0x20)
		h = append(h, f.id...)
		h = append(h, num(uint64(len(f.props)))...)
		h = append(h, f.props...)
	}
	h = append(h, idCodersUnpackSize)
	for _, f := range folders {
		h = append(h, num(f.unpack)...)
	}
	h = append(h, idEnd, idEnd, idFilesInfo)
	h = append(h, num(uint64(len(folders)))...)
	var names []byte
	for i := range folders {
		for _, c := range fmt.Sprintf("f%d", i) {
			names = append(names, byte(c), 0)
		}
		names = append(names, 0, 0)
	}
	h = append(h, idName)
	h = append(h, num(uint64(len(names)+1))...)
	h = append(h, 0)
	h = append(h, names...)
	h = append(h, idEnd, idEnd)
	return buildArchive(packed, h)
}

// modelBomb returns an archive of n folders, each a PPMd coder claiming
// mem bytes of model and holding random packed bytes.
func modelBomb(n int, mem uint32) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var fs []coderSpec
	for i := 0; i < n; i++ {
		props := []byte{6, 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(props[1:], mem)
		data := make([]byte, 300)
		for k := range data {
			data[k] = byte(rng.Uint32())
		}
		data[0] = 0
		fs = append(fs, coderSpec{id: []byte{3, 4, 1}, props: props, packed: data, unpack: 1 << 20})
	}
	return folderArchive(fs)
}

// extractIgnoringErrors decodes every entry, ignoring per-entry errors.
func extractIgnoringErrors(t *testing.T, data []byte, opts *archive.Options) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		_, err := io.Copy(io.Discard, r)
		if err != nil && !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) {
			t.Errorf("%s: %v", e.Name, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFolderMemoryReused: folders claiming a large model each reuse one
// arena instead of allocating their own, with one thread or two, and the
// budget is whole again after Close.
func TestFolderMemoryReused(t *testing.T) {
	const mem = 64 << 20
	data := modelBomb(4, mem)
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprint("threads", threads), func(t *testing.T) {
			budget := archive.NewMemoryBudget(100 << 20)
			opts := &archive.Options{MaxDict: 100 << 20, Threads: threads, Memory: budget}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			extractIgnoringErrors(t, data, opts)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 2*mem {
				t.Errorf("4 folders of a %d MiB model allocated %d MiB", mem>>20, got>>20)
			}
			if n := budget.InUse(); n != 0 {
				t.Errorf("%d bytes still charged after Close", n)
			}
		})
	}
}

// TestFolderMemoryReclaimed: a folder needing memory that an idle pooled
// decoder of another kind holds gets it (the idle one is dropped), where
// the budget fits only one of them.
func TestFolderMemoryReclaimed(t *testing.T) {
	ppmdProps := []byte{6, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(ppmdProps[1:], 48<<20)
	lzmaProps := []byte{0x5D, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(lzmaProps[1:], 48<<20)
	// The data is corrupt: what matters is the memory each decoder takes.
	data := folderArchive([]coderSpec{
		{id: []byte{3, 1, 1}, props: lzmaProps, packed: make([]byte, 64), unpack: 48 << 20},
		{id: []byte{3, 4, 1}, props: ppmdProps, packed: make([]byte, 64), unpack: 100},
		{id: []byte{3, 1, 1}, props: lzmaProps, packed: make([]byte, 64), unpack: 48 << 20},
	})
	budget := archive.NewMemoryBudget(64 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{MaxDict: 64 << 20, Memory: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var peak int64
	err = rd.Extract(ctx, nil, func(e *archive.Entry, r io.Reader) error {
		io.Copy(io.Discard, r)
		peak = max(peak, budget.InUse())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if peak > budget.Limit() || peak < 48<<20 {
		t.Errorf("peak charge %d, limit %d", peak, budget.Limit())
	}
}

// TestFolderMemoryAboveLimit: a folder whose coders together need more
// than the limit is refused with ErrLimit, though each alone fits.
func TestFolderMemoryAboveLimit(t *testing.T) {
	f := folder{folderGraph: &folderGraph{coders: []coder{
		{id: methodLZMA2, numIn: 1, numOut: 1, props: []byte{28}},
		{id: methodLZMA2, numIn: 1, numOut: 1, props: []byte{28}, inStart: 1, outStart: 1},
	}}, unpackSizes: []uint64{1 << 30, 1 << 30}}
	d := &decodeContext{ctx: context.Background(), opts: &archive.Options{MaxDict: 100 << 20},
		pool: &decoderPool{mem: archive.NewMemoryBudget(100 << 20)}}
	if err := d.reserve(folderMemory(&f)); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("two 64 MiB windows under a 100 MiB limit: %v", err)
	}
}

// manyEntries returns a plain-header archive of n empty entries with
// empty names (each is then named after the archive), with creation and
// access times when times is set.
func manyEntries(n int, times bool) []byte {
	h := []byte{idHeader, idFilesInfo}
	h = append(h, num(uint64(n))...)
	bits := bytes.Repeat([]byte{0xFF}, (n+7)/8)
	h = append(h, idEmptyStream)
	h = append(h, num(uint64(len(bits)))...)
	h = append(h, bits...)
	h = append(h, idName)
	h = append(h, num(uint64(1+2*n))...)
	h = append(h, make([]byte, 1+2*n)...)
	if times {
		for _, id := range []byte{idCTime, idATime} {
			h = append(h, id)
			h = append(h, num(uint64(2+8*n))...)
			h = append(h, 1, 0) // all defined, not external
			for i := 0; i < n; i++ {
				h = binary.LittleEndian.AppendUint64(h, 133000000000000000+uint64(i))
			}
		}
	}
	h = append(h, idEnd, idEnd)
	return buildArchive(nil, h)
}

// TestEntryMemoryCharged: the memory an archive's entries take is charged
// to the budget before it is allocated, so the entry count is bounded by
// the limit, and the charge covers what is really allocated.
func TestEntryMemoryCharged(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testEntryMemoryCharged(t, false) })
	// Creation and access times live in an archive.EntryExtra per entry.
	t.Run("times", func(t *testing.T) { testEntryMemoryCharged(t, true) })
}

func testEntryMemoryCharged(t *testing.T, times bool) {
	const n = 200_000
	data := manyEntries(n, times)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	budget := archive.NewMemoryBudget(1 << 30)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Memory: budget})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Entries()) != n {
		t.Fatalf("%d entries", len(rd.Entries()))
	}
	alloc := int64(after.TotalAlloc - before.TotalAlloc)
	charged := budget.InUse()
	t.Logf("%d entries: %d bytes allocated (%d per entry), %d charged", n, alloc, alloc/n, charged)
	// The Info and the reader itself are not charged, and the race
	// detector adds to allocations: allow 1 MiB more, a twentieth more
	// under the race detector.
	if alloc > charged+1<<20 && (!raceEnabled || alloc > charged+charged/20) {
		t.Errorf("allocated %d bytes, charged only %d", alloc, charged)
	}
	// Beside what the entries keep (the archive.Entry, the pointer to
	// it, the locator), opening allocates the parsed file records, which
	// stand beside the entries while they are built: for files with no
	// rare property (comment, creation or access time) at most 40 bytes
	// a file, the header's own bytes and bit vectors included (a
	// 4,000,000-entry header peaked at 1.0 GB with 80-byte records).
	kept := int64(unsafe.Sizeof(archive.Entry{}) + unsafe.Sizeof(&archive.Entry{}) + unsafe.Sizeof(entryMeta{}))
	if !times && !raceEnabled && alloc/n > kept+40 {
		t.Errorf("allocated %d bytes per entry, %d beside the %d the entry keeps", alloc/n, alloc/n-kept, kept)
	}
	rd.Close()
	if budget.InUse() != 0 {
		t.Errorf("%d bytes charged after Close", budget.InUse())
	}
	// Under a limit the entries do not fit in, the header is refused.
	_, err = NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{MaxDict: int64(n) * 200})
	if !errors.Is(err, archive.ErrLimit) {
		t.Errorf("%d entries under a %d-byte limit: %v", n, n*200, err)
	}
}

// TestDeclaredCountsCharged: counts declared in a header (folders here)
// are charged before the records are allocated: a header declaring far
// more folders than the memory limit allows is refused with ErrLimit, not
// allocated and then found truncated.
func TestDeclaredCountsCharged(t *testing.T) {
	const n = 1 << 20
	h := []byte{idHeader, idMainStreamsInfo, idUnpackInfo, idFolder}
	h = append(h, num(n)...)
	h = append(h, 0)
	h = append(h, make([]byte, 2*n)...) // enough header bytes for the count check
	data := buildArchive(nil, h)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{MaxDict: 16 << 20})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, archive.ErrLimit) {
		t.Errorf("%d folders under a 16 MiB limit: %v", n, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("allocated %d MiB", got>>20)
	}
}

// TestFolderMemoryAtLimit: folders each needing the whole limit decode one
// after the other, with one thread or two, beside the header's small
// lasting charge.
func TestFolderMemoryAtLimit(t *testing.T) {
	const limit = 64 << 20
	data := modelBomb(4, limit)
	for _, threads := range []int{1, 2} {
		budget := archive.NewMemoryBudget(limit)
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{MaxDict: limit, Threads: threads, Memory: budget})
		if err != nil {
			t.Fatal(err)
		}
		err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
			if _, err := io.Copy(io.Discard, r); errors.Is(err, archive.ErrLimit) {
				t.Errorf("threads %d: %s: %v", threads, e.Name, err)
			}
			if n := budget.InUse(); n > limit+headerSlack {
				t.Errorf("threads %d: %s: %d bytes charged", threads, e.Name, n)
			}
			return nil
		})
		rd.Close()
		if err != nil || budget.InUse() != 0 {
			t.Errorf("threads %d: %v, %d bytes charged after Close", threads, err, budget.InUse())
		}
	}
}

// TestErrorOffsets: corrupt data is reported where it is: the archive
// offset of a bad plain header, and the folder and packed offset of
// corrupt LZMA data.
func TestErrorOffsets(t *testing.T) {
	// A header whose file count is cut off.
	hdr := []byte{idHeader, idFilesInfo, 0xFF}
	data := buildArchive([]byte("0123456789"), hdr)
	_, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Name: "h.7z"})
	var ae *archive.Error
	// The header starts at 32+10; the number's first byte is at +2 and
	// the failure is where its next byte would be.
	if !errors.As(err, &ae) || ae.Offset != 32+10+3 || !errors.Is(err, archive.ErrFormat) ||
		err.Error() != "h.7z: at offset 45: corrupt 7z header: truncated: bad header: corrupt or invalid archive" {
		t.Errorf("truncated header: %v (offset %d)", err, ae.Offset)
	}

	// LZMA data that decodes to a match before the start of the output.
	props := []byte{0x5D, 0, 0, 1, 0}
	packed := append([]byte{0}, bytes.Repeat([]byte{0xFF}, 64)...)
	data = folderArchive([]coderSpec{
		{id: []byte{0}, packed: []byte("stored"), unpack: 6},
		{id: []byte{3, 1, 1}, props: props, packed: packed, unpack: 1000},
	})
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Name: "d.7z"})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var readErr error
	rd.Extract(context.Background(), func(e *archive.Entry) bool { return e.Name == "f1" }, func(e *archive.Entry, r io.Reader) error {
		_, readErr = io.Copy(io.Discard, r)
		return nil
	})
	ae = nil
	msg := fmt.Sprint(readErr)
	if !errors.As(readErr, &ae) || ae.Offset < 32+6 || ae.Offset > 32+6+int64(len(packed)) ||
		!strings.Contains(msg, "7z folder 1") || !strings.Contains(msg, "packed offset") {
		t.Errorf("corrupt LZMA: %v", readErr)
	} else {
		t.Log(msg)
	}
}

// TestFolderStreamLimit: a folder's coders may have at most 64 streams in
// all, as in 7-Zip, so that the graph walks stay small.
func TestFolderStreamLimit(t *testing.T) {
	b := []byte{idMainStreamsInfo, idUnpackInfo, idFolder, 1, 0, 1, 0x11, 0x00, 65, 1}
	b = append(b, make([]byte, 200)...)
	_, err := parseHeader(b, nil)
	if !errors.Is(err, archive.ErrFormat) || !strings.Contains(fmt.Sprint(err), "65 inputs") {
		t.Errorf("a coder with 65 inputs: %v", err)
	}
}

// TestMemoryBeyondLimit: what a reader may hold beyond Options.Limit —
// prefetched data and the header's slack — leaves room for the runtime
// and the command within the 256 MiB the README allows.
func TestMemoryBeyondLimit(t *testing.T) {
	if beyond := prefetchBudget + headerSlack; beyond > 192<<20 {
		t.Errorf("prefetched data and header slack: %d MiB beyond the limit", beyond>>20)
	}
}
