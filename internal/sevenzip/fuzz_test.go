package sevenzip

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// The fuzz targets check invariants, not only the absence of panics:
// every error wraps an archive sentinel, no entry yields more bytes than
// its declared size, and readers make progress (a bounded number of
// empty reads). Seeds: testdata/fuzz/<target> (generated), plus the small
// archives of the shared corpus when it is present.

// sentinels are the errors every failure must wrap.
var sentinels = []error{archive.ErrFormat, archive.ErrChecksum, archive.ErrWrongPassword,
	archive.ErrPasswordRequired, archive.ErrUnsupported, archive.ErrLimit, archive.ErrNotArchive}

// checkSentinel fails t if err is neither nil, io.EOF nor wraps a
// sentinel.
func checkSentinel(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || err == io.EOF {
		return
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("%s: error wraps no archive sentinel: %v", what, err)
}

// maxEmptyReads bounds consecutive reads that return neither data nor an
// error.
const maxEmptyReads = 1000

// drain reads r to the end, checking that it yields at most limit bytes
// (limit < 0: unknown), makes progress and fails with a sentinel.
func drain(t *testing.T, what string, r io.Reader, limit int64) int64 {
	t.Helper()
	buf := make([]byte, 32<<10)
	var n int64
	empty := 0
	for {
		k, err := r.Read(buf)
		n += int64(k)
		if limit >= 0 && n > limit {
			t.Fatalf("%s: %d bytes, declared %d", what, n, limit)
		}
		if err != nil {
			checkSentinel(t, what, err)
			return n
		}
		if k == 0 {
			if empty++; empty > maxEmptyReads {
				t.Fatalf("%s: %d empty reads in a row", what, empty)
			}
		} else {
			empty = 0
		}
		if n > 1<<26 {
			return n // enough: the declared sizes may be large
		}
	}
}

// FuzzHeader parses plain headers: errors wrap a sentinel, and a parsed
// header is consistent (substreams match files with data, folders their
// packed streams), with a bounded number of records.
func FuzzHeader(f *testing.F) {
	for _, a := range corpusArchives(f, 1<<20) {
		sh, err := parseSignatureHeader(a)
		if err != nil || sh.nextHeaderSize == 0 || sh.nextHeaderOffset+sh.nextHeaderSize+32 > uint64(len(a)) {
			continue
		}
		if h := a[32+sh.nextHeaderOffset : 32+sh.nextHeaderOffset+sh.nextHeaderSize]; h[0] == idHeader {
			f.Add(h[1:])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := &headerMemory{archive.MetadataCharge{Budget: archive.NewMemoryBudget(64 << 20)}}
		h, err := parseHeader(b, mem)
		checkSentinel(t, "parseHeader", err)
		if err == nil {
			if h.files.len() > len(b)+8 {
				t.Fatalf("%d files from %d bytes", h.files.len(), len(b))
			}
			checkStreams(t, &h.main)
		}
		var si streamsInfo
		err = (&byteReader{b: b, mem: mem}).readStreamsInfo(&si)
		checkSentinel(t, "readStreamsInfo", err)
		if err == nil {
			checkStreams(t, &si)
		}
		if mem.Charged() > mem.Budget.Limit() {
			t.Fatalf("charged %d of %d", mem.Charged(), mem.Budget.Limit())
		}
	})
}

// checkStreams checks the layout of a parsed StreamsInfo.
func checkStreams(t *testing.T, si *streamsInfo) {
	t.Helper()
	sub := 0
	for i := range si.folders {
		f := &si.folders[i]
		if int(f.firstSub) != sub && f.numSub > 0 {
			t.Fatalf("folder %d: first substream %d, want %d", i, f.firstSub, sub)
		}
		sub += int(f.numSub)
		if f.firstPack()+len(f.packed) > len(si.packSizes) {
			t.Fatalf("folder %d: packed streams %d+%d of %d", i, f.firstPack(), len(f.packed), len(si.packSizes))
		}
		if len(f.unpackSizes) != f.numOutTotal() {
			t.Fatalf("folder %d: %d unpack sizes for %d outputs", i, len(f.unpackSizes), f.numOutTotal())
		}
		var sum uint64
		for j := range f.numSub {
			sum += si.subSizes[f.firstSub+j]
		}
		if f.numSub > 0 && sum != f.unpackSize() {
			t.Fatalf("folder %d: substreams sum to %d, folder %d", i, sum, f.unpackSize())
		}
	}
	if sub != len(si.subSizes) || len(si.subHasCRC) != len(si.subSizes) || len(si.subCRCs) != len(si.subSizes) {
		t.Fatalf("%d substreams in folders, %d sizes, %d/%d CRCs", sub, len(si.subSizes), len(si.subHasCRC), len(si.subCRCs))
	}
}

// FuzzReader opens and extracts whole archives: errors wrap a sentinel,
// every wanted entry is visited once and in order, no entry yields more
// than its size, and the memory budget is whole again after Close.
func FuzzReader(f *testing.F) {
	// Small archives only: every seed runs instrumented at fuzz start.
	for _, a := range corpusArchives(f, 8<<10) {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		budget := archive.NewMemoryBudget(1 << 24)
		opts := &archive.Options{MaxDict: 1 << 24, Password: func() (string, error) { return "secret", nil },
			MaxKDFCost: 10, Memory: budget}
		rd, err := NewReader(bytes.NewReader(b), int64(len(b)), opts)
		checkSentinel(t, "NewReader", err)
		if err != nil {
			if budget.InUse() != 0 {
				t.Fatalf("%d bytes charged after a failed open", budget.InUse())
			}
			return
		}
		entries := rd.Entries()
		next := 0
		err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
			if next >= len(entries) || entries[next] != e {
				t.Fatalf("entry %q visited out of order (expected #%d of %d)", e.Name, next, len(entries))
			}
			next++
			drain(t, e.Name, r, e.Size)
			return nil
		})
		checkSentinel(t, "Extract", err)
		if err == nil && next != len(entries) {
			t.Fatalf("%d of %d entries visited", next, len(entries))
		}
		if slices.ContainsFunc(entries, func(e *archive.Entry) bool { return e.Size < 0 }) {
			t.Fatal("negative entry size")
		}
		rd.Close()
		if budget.InUse() != 0 {
			t.Fatalf("%d bytes charged after Close", budget.InUse())
		}
	})
}

// FuzzCoder decodes fuzzed packed data with every registered method
// through the folder machinery: errors wrap a sentinel, the output never
// exceeds the declared size, and the decoder makes progress.
func FuzzCoder(f *testing.F) {
	f.Add(uint8(0), []byte{0x5D, 0, 0, 1, 0}, []byte{0, 0x41, 0xFE, 0xFB, 0xFF}, uint16(100))
	f.Add(uint8(1), []byte{0x10}, []byte{0x01, 0x00, 0x02, 'a', 'b', 'c', 0}, uint16(3))
	f.Add(uint8(2), []byte{}, []byte("BZh91AY&SY"), uint16(50))
	ids := make([]uint64, 0, len(methods()))
	for id := range methods() {
		ids = append(ids, id)
	}
	slices.Sort(ids) // map order is random: sort for reproducible inputs
	f.Fuzz(func(t *testing.T, which uint8, props, data []byte, size uint16) {
		id := ids[int(which)%len(ids)]
		m := methods()[id]
		if id == methodAES {
			return // key derivation cost; covered by the corpus
		}
		f := folder{folderGraph: &folderGraph{coders: []coder{{id: id, numIn: m.numIn, numOut: 1, props: props}}}}
		f.unpackSizes = []uint64{uint64(size)}
		var si streamsInfo
		for k := 0; k < m.numIn; k++ {
			f.packed = append(f.packed, k)
			part := len(data) / m.numIn
			si.packSizes = append(si.packSizes, uint64(part))
		}
		si.folders = []folder{f}
		if err := si.layout(); err != nil {
			t.Fatal(err)
		}
		budget := archive.NewMemoryBudget(1 << 22)
		opts := &archive.Options{MaxDict: 1 << 22}
		dctx := &decodeContext{ctx: context.Background(), opts: opts, pool: &decoderPool{mem: budget}}
		fd := &folderDecoder{f: &si.folders[0], si: &si, ra: bytes.NewReader(data), base: 0, end: int64(len(data)), dctx: dctx}
		r, err := fd.open()
		checkSentinel(t, m.name+" open", err)
		if err == nil {
			drain(t, m.name, r, int64(size))
		}
		dctx.close()
		dctx.pool.drain()
		if budget.InUse() != 0 {
			t.Fatalf("%s: %d bytes charged after close", m.name, budget.InUse())
		}
	})
}
