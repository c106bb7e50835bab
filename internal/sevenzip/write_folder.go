package sevenzip

// Folders: the coder chain of one solid block, its encoders and the
// parallel compression of small blocks.

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"io"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/ppmd"
)

// chainFolder turns a folder whose coders and unpack sizes are listed
// from the main output towards the packed stream into 7-Zip's layout: the
// list is reversed so that coder 0 reads the packed stream, coder i+1
// reads coder i's output, and the last coder produces the main output.
// (Readers such as py7zr depend on this order.)
func chainFolder(f *folder) {
	n := len(f.coders)
	for i := 0; i < n/2; i++ {
		f.coders[i], f.coders[n-1-i] = f.coders[n-1-i], f.coders[i]
		f.unpackSizes[i], f.unpackSizes[n-1-i] = f.unpackSizes[n-1-i], f.unpackSizes[i]
	}
	f.bindPairs = f.bindPairs[:0]
	for i := range f.coders {
		f.coders[i].inStart, f.coders[i].outStart = i, i
		f.coders[i].numIn, f.coders[i].numOut = 1, 1
		if i > 0 {
			f.bindPairs = append(f.bindPairs, bindPair{inIndex: i, outIndex: i - 1})
		}
	}
	f.packed = []int{0}
}

// newAES starts a 7zAES encryption with a fresh IV and returns its coder
// record.
func (w *writer) newAES(to io.Writer) (*aes.EncryptWriter, coder, error) {
	var iv [16]byte
	if _, err := rand.Read(iv[:]); err != nil {
		return nil, coder{}, err
	}
	aw, err := aes.NewEncryptWriter(to, w.key[:], iv[:])
	if err != nil {
		return nil, coder{}, err
	}
	props := make([]byte, 0, 2+32)
	props = append(props, byte(w.opts.KDFCycles)|0xC0, byte(len(w.salt)-1)<<4|byte(len(iv)-1))
	props = append(props, w.salt[:]...)
	props = append(props, iv[:]...)
	return aw, coder{id: methodAES, numIn: 1, numOut: 1, props: props}, nil
}

// countWriter counts bytes written through it.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// folderResult is a compressed folder waiting to be recorded.
type folderResult struct {
	f      folder
	packed int64
	sizes  []uint64
	crcs   []uint32
	infos  []fileInfo
	data   *bytes.Buffer // the packed stream, for folders compressed in parallel
}

// encoderSet holds the encoders and the read buffer one goroutine reuses
// from folder to folder.
type encoderSet struct {
	lz2  lzmaSlot[*lzma.Writer2] // with the level's dictionary
	lz1  lzmaSlot[*lzma.Writer]
	ppmd *ppmd.Writer7z
	fl   *flate.Writer
	bz   *bzip2.Writer
	buf  []byte
	// small2 and small1 are the last encoders made for a folder smaller
	// than the dictionary, reused while folders fall in the same
	// dictionary size (many similar files with -ms=off, for instance).
	small2 lzmaSlot[*lzma.Writer2]
	small1 lzmaSlot[*lzma.Writer]
	// threads is the number of threads one folder's encoder may use: 1
	// in the sets of parallel folder jobs (each job is one thread of the
	// pool), 0 for the options' Threads.
	threads int
}

// lzmaSlot holds an LZMA or LZMA2 encoder for reuse and the dictionary
// size it was made for.
type lzmaSlot[W any] struct {
	z    W
	dict uint32
}

// get returns the slot's encoder reset to write to w, or a new one from
// newEncoder when there is none or it was made for another dictionary
// size.
func (s *lzmaSlot[W]) get(w io.Writer, lo lzma.WriterOptions, reset func(W, io.Writer), newEncoder func(io.Writer, lzma.WriterOptions) (W, error)) (W, error) {
	if s.dict == lo.DictSize {
		reset(s.z, w)
		return s.z, nil
	}
	z, err := newEncoder(w, lo)
	if err == nil {
		s.z, s.dict = z, lo.DictSize
	}
	return z, err
}

// compressFolder compresses files into one folder written straight to the
// output and records it.
func (w *writer) compressFolder(files []*srcFile, kind filterKind) error {
	if len(files) == 0 {
		return nil
	}
	r, err := w.encodeFolder(w.ctx, w.out, files, kind, &w.enc)
	if r != nil {
		w.pos += r.packed
	}
	if err != nil {
		return err
	}
	w.record(r)
	return nil
}

// record appends a compressed folder to the streams info.
func (w *writer) record(r *folderResult) {
	r.f.firstSub = int32(len(w.si.subSizes))
	r.f.numSub = int32(len(r.sizes))
	for i := range r.sizes {
		w.si.subSizes = append(w.si.subSizes, r.sizes[i])
		w.si.subHasCRC = append(w.si.subHasCRC, true)
		w.si.subCRCs = append(w.si.subCRCs, r.crcs[i])
	}
	w.files = append(w.files, r.infos...)
	w.si.packSizes = append(w.si.packSizes, uint64(r.packed))
	w.si.folders = append(w.si.folders, r.f)
}

// encodeFolder compresses files into one folder with the configured
// method, an optional branch filter and optional encryption, writing the
// packed stream to dst. The result's packed size is valid even on error.
//
// On an error the whole write is cancelled (so that parallel folders stop
// too) and the encoder's goroutines have ended when it returns.
func (w *writer) encodeFolder(ctx context.Context, dst io.Writer, files []*srcFile, kind filterKind, es *encoderSet) (res *folderResult, err error) {
	res = &folderResult{f: newFolder()}
	pack := &countWriter{w: dst}
	defer func() { res.packed = pack.n }()
	var mid io.Writer = pack
	var aw *aes.EncryptWriter
	var midCount *countWriter
	var aesCoder coder
	if w.haveKey {
		var err error
		if aw, aesCoder, err = w.newAES(pack); err != nil {
			return res, err
		}
		defer aw.Close() // releases the pooled buffer on errors; no-op after Close
		midCount = &countWriter{w: aw}
		mid = midCount
	}
	comp, compClose, mcoder, err := w.compressor(ctx, mid, files, es)
	if err != nil {
		return res, err
	}
	defer func() {
		if err != nil {
			w.cancel(err)
			stopEncoder(comp)
		}
	}()
	var in io.Writer = comp
	var fw io.WriteCloser
	f := &res.f
	switch kind {
	case filterX86:
		fw = filters.NewWriter(comp, filters.NewX86(true))
		f.coders = append(f.coders, coder{id: methodBCJ})
	case filterARM64:
		fw = filters.NewWriter(comp, filters.NewARM64(true, 0))
		f.coders = append(f.coders, coder{id: methodARM64})
	}
	if fw != nil {
		in = fw
	}
	f.coders = append(f.coders, mcoder)
	var total int64
	if es.buf == nil {
		es.buf = make([]byte, 256<<10)
	}
	for _, sf := range files {
		n, crc, err := w.copyFile(ctx, in, sf, es.buf)
		if err != nil {
			return res, err
		}
		total += n
		res.sizes = append(res.sizes, uint64(n))
		res.crcs = append(res.crcs, crc)
		res.infos = append(res.infos, sf.info)
	}
	if fw != nil {
		if err := fw.Close(); err != nil {
			return res, err
		}
	}
	if err := compClose(); err != nil {
		return res, err
	}
	if es.lz2.dict != 0 && comp == io.Writer(es.lz2.z) && total < int64(w.lopts.DictSize) {
		// Writer2 sizes the encoder of a stream shorter than the
		// dictionary to the stream; do not reuse it for the next folder.
		es.lz2 = lzmaSlot[*lzma.Writer2]{}
	}
	for range f.coders {
		f.unpackSizes = append(f.unpackSizes, uint64(total))
	}
	if aw != nil {
		if err := aw.Close(); err != nil {
			return res, err
		}
		f.coders = append(f.coders, aesCoder)
		f.unpackSizes = append(f.unpackSizes, uint64(midCount.n))
	}
	if pack.err != nil {
		return res, pack.err
	}
	chainFolder(f)
	return res, nil
}

// compressor returns the encoder of the configured method for a folder of
// files, writing to mid, its Close and its coder record. The encoders of
// es are reused from folder to folder; a folder smaller than the
// dictionary gets an LZMA encoder of its own, sized to it.
// LZMA encoders stop when ctx is done.
func (w *writer) compressor(ctx context.Context, mid io.Writer, files []*srcFile, es *encoderSet) (io.Writer, func() error, coder, error) {
	threads := w.lopts.Threads
	if es.threads > 0 {
		threads = es.threads
	}
	lo, small := w.reducedOptions(files)
	lo.Context, lo.Threads = ctx, threads
	switch w.method {
	case writeLZMA2:
		slot := &es.lz2
		if small {
			slot = &es.small2
		}
		z, err := slot.get(mid, lo, (*lzma.Writer2).Reset, lzma.NewWriter2)
		if err != nil {
			return nil, nil, coder{}, err
		}
		return z, z.Close, coder{id: methodLZMA2, props: []byte{z.Props()}}, nil
	case writeLZMA:
		slot := &es.lz1
		if small {
			slot = &es.small1
		}
		z, err := slot.get(mid, lo, (*lzma.Writer).Reset, lzma.NewWriter)
		if err != nil {
			return nil, nil, coder{}, err
		}
		return z, z.Close, coder{id: methodLZMA, props: z.Props()}, nil
	case writePPMd:
		// 7-Zip cuts the model memory to the folder's size (ReduceSize).
		mem := w.ppmdMem
		if n := expectedSize(files); n >= 0 {
			mem = ppmd.ReduceMem7z(mem, n)
		}
		if es.ppmd == nil {
			z, err := ppmd.NewWriter7z(mid, w.ppmdOrder, mem)
			if err != nil {
				return nil, nil, coder{}, err
			}
			es.ppmd = z
		} else if err := es.ppmd.ResetProps(mid, w.ppmdOrder, mem); err != nil {
			return nil, nil, coder{}, err
		}
		return es.ppmd, es.ppmd.Close, coder{id: methodPPMd, props: es.ppmd.Props()}, nil
	case writeDeflate:
		if es.fl == nil {
			z, err := flate.NewWriter(mid, w.flateLevel)
			if err != nil {
				return nil, nil, coder{}, err
			}
			es.fl = z
		} else {
			es.fl.Reset(mid)
		}
		return es.fl, es.fl.Close, coder{id: methodDeflate}, nil
	case writeBZip2:
		// Blocks are compressed on up to Threads goroutines; the
		// stream does not depend on their number.
		if es.bz == nil {
			z, err := bzip2.NewWriterThreads(mid, w.bzLevel, threads)
			if err != nil {
				return nil, nil, coder{}, err
			}
			es.bz = z
		} else {
			es.bz.Reset(mid)
		}
		return es.bz, es.bz.Close, coder{id: methodBZip2}, nil
	}
	return mid, func() error { return nil }, coder{id: methodCopy}, nil
}

// stopEncoder waits for the goroutines of an encoder that failed or was
// abandoned (LZMA2's blocks, BZip2's) and discards its state.
func stopEncoder(comp io.Writer) {
	switch z := comp.(type) {
	case *lzma.Writer2:
		z.Reset(io.Discard)
	case *bzip2.Writer:
		z.Reset(io.Discard)
	}
}

// expectedSize is the sum of the files' sizes, or -1 when one is unknown.
func expectedSize(files []*srcFile) int64 {
	var t int64
	for _, sf := range files {
		if sf.size < 0 {
			return -1
		}
		t += sf.size
	}
	return t
}

// compressGroups compresses the new solid blocks. With several threads,
// blocks up to parallelLimit (smaller than the dictionary for LZMA, which
// get encoders of their own anyway) are compressed in parallel into
// memory, at most Threads+1 of them held at once, and written in order;
// larger blocks are compressed straight to the output, using LZMA2's own
// block parallelism. The bytes are the same whatever the thread count.
func (w *writer) compressGroups(groups []fileGroup) error {
	threads := w.opts.Threads
	if threads <= 1 || len(groups) < 2 || w.method == writeCopy {
		for _, g := range groups {
			if err := w.compressFolder(g.files, g.kind); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	type job struct {
		r    *folderResult
		err  error
		done chan struct{}
	}
	var pending []*job
	// sets holds one encoder set per thread: taking one is the
	// semaphore, and a PPMd arena or flate state is reused from folder
	// to folder instead of being allocated per folder.
	sets := make(chan *encoderSet, threads)
	for range threads {
		sets <- &encoderSet{buf: make([]byte, 64<<10), threads: 1}
	}
	defer func() {
		cancel()
		for _, j := range pending {
			<-j.done
		}
	}()
	flushOldest := func() error {
		j := pending[0]
		<-j.done
		pending = pending[1:]
		if j.err != nil {
			return j.err
		}
		if err := w.write(j.r.data.Bytes()); err != nil {
			return err
		}
		j.r.data = nil
		w.record(j.r)
		return nil
	}
	for _, g := range groups {
		size := expectedSize(g.files)
		if size < 0 || size >= w.parallelLimit() {
			for len(pending) > 0 {
				if err := flushOldest(); err != nil {
					return err
				}
			}
			if err := w.compressFolder(g.files, g.kind); err != nil {
				return err
			}
			continue
		}
		for len(pending) > threads {
			if err := flushOldest(); err != nil {
				return err
			}
		}
		j := &job{done: make(chan struct{})}
		pending = append(pending, j)
		go func(g fileGroup, size int64) {
			defer close(j.done)
			es := <-sets
			defer func() { sets <- es }()
			buf := bytes.NewBuffer(make([]byte, 0, size/2+4096))
			j.r, j.err = w.encodeFolder(ctx, buf, g.files, g.kind, es)
			if j.r != nil {
				j.r.data = buf
			}
		}(g, size)
	}
	for len(pending) > 0 {
		if err := flushOldest(); err != nil {
			return err
		}
	}
	return nil
}

// reducedOptions returns encoder options with the dictionary reduced to
// the folder's expected size, as 7-Zip does, when that is smaller than
// the level's dictionary: decoders then need less memory.
func (w *writer) reducedOptions(files []*srcFile) (lzma.WriterOptions, bool) {
	total := expectedSize(files)
	if total < 0 {
		return w.lopts, false
	}
	d := reducedDictSize(w.lopts.DictSize, total)
	if d >= w.lopts.DictSize {
		return w.lopts, false
	}
	lo := w.lopts
	lo.DictSize = d
	lo.BlockSize = 0
	return lo, true
}

// reducedDictSize is 7-Zip's dictionary for size bytes of input
// (LzmaEncProps_Normalize): dict, or when the input is smaller, the
// smallest 2^n or 3·2^(n-1) that holds it, at least 4 KiB. LZMA2's
// property byte expresses exactly these.
func reducedDictSize(dict uint32, size int64) uint32 {
	if size >= int64(dict) {
		return dict
	}
	d := int64(lzma.MinDictSize)
	for d < size {
		if d+d/2 >= size {
			d += d / 2
			break
		}
		d *= 2
	}
	return uint32(min(d, int64(dict)))
}
