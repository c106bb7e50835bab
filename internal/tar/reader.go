package tar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/hugemem"
	"github.com/garc-dev/garc/internal/stream"
)

// entryCost is what one entry's records take in memory besides its
// strings: its entryAndExtra (archive.Entry, EntryExtra, EntryDetails),
// the eighth more that a block of them may hold unused (newEntry), its
// slot in the entry list three times over (the list grows by copying,
// and the old arrays live on until they are collected), and rounding.
// It is charged to the memory budget before the entry is kept; an entry
// cut from a huge block (hugeSlab), which was charged whole, is charged
// entrySlotCost only.
const entryCost = int64(unsafe.Sizeof(entryAndExtra{}))*9/8 + entrySlotCost

// entrySlotCost is an entry's slot in the list, three times over, and
// rounding.
const entrySlotCost = 3*int64(unsafe.Sizeof(uintptr(0))) + allocSlack

// hugeSlabAfter is the number of entries from which their blocks are
// huge (hugeSlabBytes, advised for transparent huge pages, when the
// memory budget allows it): a tar of Go's source tree (11,233 entries,
// 3.9 MB of entry records) took 880 page faults to touch its entries'
// blocks of 16 to 256 entries, a sixth of garc t's page faults, and
// 0.94x the CPU time with huge blocks from its 2,048th entry (cpupairs,
// 12 rounds; 335 page faults fewer).
const hugeSlabAfter = 2048

// hugeSlabBytes is the size of a huge block: two huge pages, so that it
// holds at least one whole. Huge blocks are made only while the memory
// budget has hugeSlabRoom free, so that the unused part of the last one,
// charged ahead, moves the point at which a list exceeds the budget by
// little.
const (
	hugeSlabBytes = 2 * hugemem.PageSize
	hugeSlabRoom  = 16 * hugeSlabBytes
)

// allocSlack is what rounding to an allocation size class adds to one
// allocation, at most for the small ones an entry makes.
const allocSlack = 16

// stringCost is what a string of the entry takes in memory.
func stringCost(s string) int64 {
	if s == "" {
		return 0
	}
	return int64(len(s)) + allocSlack
}

// Reader is an opened tar archive.
type Reader struct {
	src  io.ReaderAt
	size int64
	kind stream.Kind // 0: not compressed
	opts archive.Options
	info archive.Info
	// entries are the entries read, each the first field of an
	// entryAndExtra, which holds its Extra and its details too.
	entries []*archive.Entry
	slab    []entryAndExtra // where newEntry cuts the next entries from
	// slabCharged says slab is a huge block, charged whole.
	slabCharged bool
	// skipped names the device and FIFO entries, which Extract leaves out.
	skipped []string
	// mem is the run's memory budget (Options.Memory, or one of
	// Options.Limit bytes): the entry list and sparse maps are charged
	// to it. entryMem is the entry list's charge.
	mem      *archive.MemoryBudget
	entryMem archive.MetadataCharge

	complete bool  // entries lists the whole archive
	err      error // what ended the reading of the headers early

	// toEnd asks scan to read on after the archive's end to the end of
	// the input (ReadToEnd); trailing and trailingErr are what it found.
	toEnd       bool
	trailing    int64
	trailingErr error

	// paxGlobalError says a pax global header was malformed, repeated or
	// not the first header of its entry (7-Zip's PAX_GLOBAL_ERROR).
	paxGlobalError bool
	// globalBytes are the bytes of the pax global headers that were the
	// first header of their entry, which 7-Zip's Headers Size leaves out.
	globalBytes int64
}

// IsEmpty reports whether head starts with the two zero blocks that end a
// tar archive, which is all an empty archive holds.
func IsEmpty(head []byte) bool { return len(head) >= 1024 && allZero(head[:1024]) }

// IsHeader reports whether head, the first bytes of a file, starts with a
// tar header: the ustar magic at offset 257, or a checksum that matches
// (the only mark a v7 header has).
func IsHeader(head []byte) bool {
	if len(head) < 512 {
		return false
	}
	block := head[:512]
	if string(block[257:262]) == "ustar" {
		return true
	}
	return block[0] != 0 && checksumOK(block)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Open prepares the tar archive in src (size bytes), compressed with kind
// (0 for a plain tar), and returns a Reader. Nothing is read until Entries
// or Extract needs it, so that `x` and `t` read the archive once (for a
// plain tar `t` read the headers here first, then everything again: 0.81x
// the CPU time of t of a 114 MB tar of Go's source tree, 11,233 entries,
// without that first pass). A size below 0 says that src can only be
// read once, front to back (a pipe): data is then skipped by reading
// rather than by seeking. The errors of Extract and Err wrap archive
// sentinels and name the archive (opts.Name).
func Open(src io.ReaderAt, size int64, kind stream.Kind, opts *archive.Options) (*Reader, error) {
	r := &Reader{src: src, size: size, kind: kind, trailing: -1}
	if opts != nil {
		r.opts = *opts
	}
	r.mem = r.opts.Memory
	if r.mem == nil {
		r.mem = archive.NewMemoryBudget(r.opts.Limit())
	}
	r.entryMem.Budget = r.mem
	format := archive.Format("tar")
	methods := []string(nil)
	if kind != 0 {
		format = archive.Format("tar." + kind.Suffix())
		methods = []string{kind.String()}
	}
	r.info = archive.Info{Format: format, PhysicalSize: size, Methods: methods, Details: &Details{r: r}}
	return r, nil
}

// Info describes the archive.
func (r *Reader) Info() *archive.Info { return &r.info }

// Entries lists the entries in archive order. For a compressed tar that
// Extract has not read through, this decodes the whole stream once; an
// error on the way ends the list early and is reported by Err.
func (r *Reader) Entries() []*archive.Entry {
	if !r.complete && r.err == nil {
		r.scan()
	}
	return r.entries
}

// Err returns the error that ended the reading of the headers early (in
// Open, Entries or a streaming Extract), or nil. A listing must check it:
// Entries has no error result.
func (r *Reader) Err() error { return r.err }

// Streaming reports whether the entry list is still unread, so that
// Extract would build it as it goes: a caller that can work from Extract's
// callbacks alone (x, t, e of every entry) should then not call Entries
// first, which would decode a compressed stream one more time.
func (r *Reader) Streaming() bool { return !r.complete && r.err == nil }

// Skipped names the character devices, block devices and FIFOs the archive
// holds, which are listed but which Extract never hands out (complete once
// Entries or a full Extract has run).
func (r *Reader) Skipped() []string { return r.skipped }

// Close gives the entry list's memory back to the budget; the caller owns
// src.
func (r *Reader) Close() error {
	r.entryMem.Release()
	return nil
}

// input is the tar stream with the offset of the next byte. A plain tar
// is read through a buffer and skipped by seeking; a compressed one is
// read straight from its decoder.
type input struct {
	r   io.Reader
	br  *bufio.Reader     // plain tar: the buffer over sec
	sec *io.SectionReader // plain tar; nil when compressed
	dec stream.Decoder    // compressed tar
	n   int64
	// raw, when not nil, collects the bytes read (the header blocks of
	// a member that Writer.CopyMembers copies as they are).
	raw *[]byte
	// scratch receives the bytes skip reads to pass over them.
	scratch []byte
	// chunkBuf receives what chunk reads where the input lends nothing.
	chunkBuf []byte
}

func (in *input) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	in.n += int64(n)
	if in.raw != nil {
		*in.raw = append(*in.raw, p[:n]...)
	}
	return n, err
}

// chunkSource is a decoder that lends its output (stream's read-ahead):
// ReadChunk returns up to max bytes in the decoder's own buffer, valid
// until its next call.
type chunkSource interface {
	ReadChunk(max int) ([]byte, error)
}

// chunkSize is the size of the buffer chunk reads into where the input
// lends nothing: as much as the extractor's buffer holds.
const chunkSize = 256 << 10

// chunk returns up to max bytes of the input (max > 0): from the
// decoder's buffer where it lends them, else read into in.chunkBuf. They
// are valid until the input is read again.
func (in *input) chunk(max int) ([]byte, error) {
	if src, ok := in.r.(chunkSource); ok && in.raw == nil {
		b, err := src.ReadChunk(max)
		in.n += int64(len(b))
		return b, err
	}
	buf := in.chunkBuffer()
	n, err := in.Read(buf[:min(max, chunkSize)])
	return buf[:n], err
}

// chunkBuffer returns in.chunkBuf, allocated on first use.
func (in *input) chunkBuffer() []byte {
	if in.chunkBuf == nil {
		in.chunkBuf = make([]byte, chunkSize)
	}
	return in.chunkBuf
}

// skip passes over k bytes: within the buffer of a plain tar by
// discarding them, beyond it by seeking, and else by reading them into
// scratch (through Read, so that raw collects them).
func (in *input) skip(k int64) error {
	if in.raw == nil && in.br != nil && int64(in.br.Buffered()) >= k {
		in.br.Discard(int(k))
		in.n += k
		return nil
	}
	if in.sec != nil && in.raw == nil {
		if in.n+k > in.sec.Size() {
			return io.ErrUnexpectedEOF
		}
		in.n += k
		if _, err := in.sec.Seek(in.n, io.SeekStart); err != nil {
			return err
		}
		in.br.Reset(in.sec)
		return nil
	}
	for k > 0 {
		if in.scratch == nil {
			in.scratch = make([]byte, 32<<10)
		}
		b := in.scratch
		if int64(len(b)) > k {
			b = b[:k]
		}
		n, err := in.Read(b)
		k -= int64(n)
		if err == io.EOF && k > 0 {
			return io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

// pass is one front-to-back reading of the archive.
type pass struct {
	r         *Reader
	in        input
	global    bool // a pax global header was read
	block     [blockSize]byte
	pax       paxState
	sparse    sparseMap // the current entry's sparse map
	remaining int64     // data of the current entry not read yet
	pad       int64     // padding after it
	// hdr is the header next returns, valid until it is called again;
	// names makes its strings; cr is the reader Extract hands out for
	// the current entry's data.
	hdr   header
	names names
	cr    contentReader
	// special holds the data of the last extended header read (pax
	// records, a GNU long name), which is copied out of it.
	special []byte
}

func (r *Reader) newPass() (*pass, error) {
	n := r.size
	if n < 0 {
		n = math.MaxInt64 // read once, front to back, up to its end
	}
	sec := io.NewSectionReader(r.src, 0, n)
	p := &pass{r: r, sparse: sparseMap{mem: r.mem}}
	// The pax global header gives the archive's comment, as the pass
	// reads it.
	r.info.Comment, r.paxGlobalError, r.globalBytes = "", false, 0
	if r.kind == 0 {
		p.in.br = bufio.NewReaderSize(sec, 64<<10)
		p.in.r = p.in.br
		if r.size >= 0 {
			p.in.sec = sec // data is skipped by seeking
		}
	} else {
		// An archive file on a local file system is read with raw
		// system calls (fileread_linux.go).
		var in io.Reader = sec
		if f := newFileSection(r.src, n); f != nil {
			in = f
		}
		d, _, err := stream.NewDecoder(r.kind, in, r.opts.Limit(), r.opts.Threads)
		if err != nil {
			return nil, r.wrap("", -1, err)
		}
		p.in.dec = d
		p.in.r = d
	}
	return p, nil
}

func (p *pass) close() {
	p.sparse.release()
	if p.in.dec != nil {
		p.in.dec.Close()
	}
}

// Read reads the current entry's data (before sparse expansion).
func (p *pass) Read(b []byte) (int, error) {
	if p.remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.remaining {
		b = b[:p.remaining]
	}
	n, err := p.in.Read(b)
	p.remaining -= int64(n)
	switch {
	case err == io.EOF && p.remaining > 0 && n == 0:
		err = io.ErrUnexpectedEOF
	case err == io.EOF:
		err = nil
	}
	return n, err
}

// readChunk is Read without a buffer of the caller's: it returns the next
// bytes of the current entry's data (before sparse expansion),
// valid until the pass reads again, then io.EOF.
func (p *pass) readChunk() ([]byte, error) {
	if p.remaining <= 0 {
		return nil, io.EOF
	}
	b, err := p.in.chunk(int(min(p.remaining, math.MaxInt32)))
	p.remaining -= int64(len(b))
	switch {
	case err == io.EOF && p.remaining > 0 && len(b) == 0:
		err = io.ErrUnexpectedEOF
	case err == io.EOF:
		err = nil
	}
	return b, err
}

// next returns the next header garc keeps (extended headers are applied;
// global pax headers, volume labels and Solaris records are passed over),
// with the offset of its first header block, or io.EOF at the end. The
// header is the pass's, overwritten by the next call. As GNU
// tar does, the first zero block ends the archive, whatever follows it.
func (p *pass) next() (*header, int64, error) {
	if k := p.remaining + p.pad; k > 0 {
		p.remaining, p.pad = 0, 0
		if err := p.in.skip(k); err != nil {
			return nil, p.in.n, truncated(err)
		}
	}
	p.pax.reset()
	p.sparse.release()
	start := p.in.n
	for {
		at := p.in.n
		n, err := io.ReadFull(&p.in, p.block[:])
		if n == 0 && err == io.EOF {
			return nil, at, io.EOF // no end-of-archive blocks: accepted
		}
		if err != nil {
			return nil, at, truncated(err)
		}
		if allZero(p.block[:]) {
			return nil, at, io.EOF
		}
		if !checksumOK(p.block[:]) {
			return nil, at, errHeader("header checksum mismatch")
		}
		h := &p.hdr
		if err := parseBlock(p.block[:], h, &p.names); err != nil {
			return nil, at, err
		}
		switch h.typeflag {
		case typePAX, typePAXGlobal, typeGNULongN, typeGNULongL:
			if p.pax.bytes += h.size; p.pax.bytes > maxSpecialSize {
				return nil, at, &archive.LimitError{What: "tar extended headers of one entry", Need: p.pax.bytes, Limit: maxSpecialSize, Fixed: true}
			}
			data, err := readSpecial(&p.in, h.size, &p.special)
			if err != nil {
				return nil, at, err
			}
			p.pax.prefixUsed = p.pax.prefixUsed || h.prefixUsed
			switch h.typeflag {
			case typePAX:
				p.pax.replace()
				p.pax.havePAX, p.pax.recordPath = true, h.name
				p.pax.paxCount++
				err = p.pax.parsePAX(data, &p.names)
			case typePAXGlobal:
				p.readGlobal(h.name, data, at == start)
				if at == start {
					p.r.globalBytes += blockSize + h.size + padding(h.size)
				} else {
					p.pax.paxCount++ // 7-Zip counts a misplaced one with the entry's
				}
			case typeGNULongN:
				s := p.names.text(cBytes(data))
				p.pax.longName = &s
			case typeGNULongL:
				s := p.names.text(cBytes(data))
				p.pax.longLink = &s
			}
			if err != nil {
				return nil, at, err
			}
			continue
		case typeGNUVolume, typeSolarisACL, typeSolarisExt:
			if err := p.in.skip(h.size + padding(h.size)); err != nil {
				return nil, at, truncated(err)
			}
			continue
		case typeGNUSparse:
			if err := readOldGNUSparse(h, p.block[:], &p.in, &p.sparse); err != nil {
				return nil, at, err
			}
			h.typeflag = typeReg
			h.ext |= extSparseGNU
		}
		if err := p.pax.apply(h, &p.names); err != nil {
			return nil, at, err
		}
		if err := p.pax.applyPAXSparse(h, &p.sparse); err != nil {
			return nil, at, err
		}
		if h.isSparse && !h.sparse1x0 {
			if err := validSparse(&p.sparse, h.realSize, h.size); err != nil {
				return nil, at, err
			}
		}
		if h.hasData() {
			p.remaining, p.pad = h.size, padding(h.size)
		}
		if h.typeflag == typeReg && !h.isSparse && strings.HasSuffix(h.name, "/") {
			// A regular file whose name ends in a slash is a directory
			// (the old convention GNU tar, bsdtar and 7-Zip still
			// honour in every format, e.g. "dir/" of type '0'); data
			// it declares is skipped.
			h.typeflag = typeDir
		}
		return h, start, nil
	}
}

func padding(n int64) int64 { return -n & (blockSize - 1) }

// readGlobal takes the archive's comment from a pax global header, as
// 7-Zip shows it (the header's name and its records), and notes what
// 7-Zip calls PAX_GLOBAL_ERROR: malformed records, a second global
// header, or one that is not the first header of its entry (first).
// The records are not applied: garc, like 7-Zip, reads pax global
// headers for the listing only.
func (p *pass) readGlobal(name string, data []byte, first bool) {
	c, ok := globalComment(name, data)
	if !ok || p.global || !first {
		p.r.paxGlobalError = true
	}
	p.global = true
	if ok {
		p.r.info.Comment = c
	}
}

// content returns a reader over the entry's data as extracted: sparse
// files expanded (a pax 1.0 map is read from the data first).
func (p *pass) content(h *header) (io.Reader, error) {
	if !h.isSparse {
		return p, nil
	}
	stored := p.remaining
	if h.sparse1x0 {
		used, err := readSparseMap1x0(p, p.remaining, &p.sparse)
		if err != nil {
			return nil, err
		}
		stored -= used
	}
	if err := validSparse(&p.sparse, h.realSize, stored); err != nil {
		return nil, err
	}
	return &sparseReader{data: p, m: &p.sparse, size: h.realSize}, nil
}

// entry maps the next header onto an archive entry and records it; a
// device or FIFO is listed (as 7-Zip lists it) and its name recorded in
// skipped too, for Extract never hands it out.
func (r *Reader) entry(h *header, at int64) (*archive.Entry, error) {
	if h.isDevice() {
		r.skipped = append(r.skipped, h.name)
	}
	cost := stringCost(h.name) + stringCost(h.linkname) + stringCost(h.uname) + stringCost(h.gname) +
		stringCost(h.comment) + stringCost(h.fflags)
	if len(r.slab) == 0 {
		r.growSlab()
	}
	if r.slabCharged {
		cost += entrySlotCost
	} else {
		cost += entryCost
	}
	if h.isDevice() {
		cost += int64(unsafe.Sizeof("")) // its name's slot in skipped
	}
	if !r.entryMem.Charge(cost) {
		return nil, r.wrap(h.name, at, &archive.LimitError{What: "memory for the entry list", Need: r.entryMem.Charged() + cost, Limit: r.mem.Limit()})
	}
	x := r.newEntry()
	e := &x.e
	fillEntry(e, h)
	e.Index = int32(len(r.entries))
	r.entries = append(r.entries, e)
	x.d = EntryDetails{Typeflag: h.rawType, Magic: h.magic, DevMajor: h.devMajor, DevMinor: h.devMinor, ext: h.ext,
		prefixUsed: h.prefixUsed, paxDigits: h.paxDigits, fflags: h.fflags, paxCount: h.paxCount}
	return e, nil
}

// restart forgets a partial entry list before a reading from the start.
func (r *Reader) restart() {
	r.entries, r.skipped = r.entries[:0:0], nil
	r.slab, r.slabCharged = nil, false // a huge block's charge goes too
	r.entryMem.Release()
}

// scan reads every header once and builds the entry list; an error is
// kept in r.err.
func (r *Reader) scan() {
	r.restart()
	p, err := r.newPass()
	if err != nil {
		r.err = err
		return
	}
	defer p.close()
	for {
		h, at, err := p.next()
		if err == io.EOF {
			if r.toEnd {
				r.trailing, r.trailingErr = p.rest()
				err = streamDamage(r.trailingErr)
			} else {
				err = p.end()
			}
			if err != nil {
				r.err = r.wrap("", -1, err)
				return
			}
			r.complete = true
			return
		}
		if err != nil {
			r.err = r.wrap("", at, headerError(err))
			if r.toEnd {
				_, r.trailingErr = p.rest() // is the rest of the input whole?
			}
			return
		}
		if _, err := r.entry(h, at); err != nil {
			r.err = err
			return
		}
	}
}

// ReadToEnd makes Entries, when it reads the headers, go on after the
// archive's end to the end of its input, for Trailing.
func (r *Reader) ReadToEnd() { r.toEnd = true }

// Trailing returns what follows the archive's end in its input, as
// Entries read it after ReadToEnd: the offset (in the decompressed tar,
// for a compressed one) of the first byte that is not zero, -1 when there
// is none, and the error that ended the reading (a damaged stream). After
// a header that did not parse (Err), the offset is -1 and the error is
// that of the reading of the rest of the input, from that header on.
func (r *Reader) Trailing() (int64, error) { return r.trailing, r.trailingErr }

// rest reads the input after the end of the archive to its end and
// returns the offset of its first byte that is not zero (-1 when none)
// and the error that ended it.
func (p *pass) rest() (int64, error) {
	first := int64(-1)
	buf := make([]byte, 64<<10)
	for {
		at := p.in.n
		n, err := p.in.Read(buf)
		if first < 0 && !allZero(buf[:n]) {
			for i, c := range buf[:n] {
				if c != 0 {
					first = at + int64(i)
					break
				}
			}
		}
		if err == io.EOF {
			return first, nil
		}
		if err != nil {
			return first, err
		}
	}
}

// end is called when the archive's end is reached. For a compressed tar
// it reads the stream on to its end, so that the decoder checks what
// follows the tar's last block (gzip's CRC-32 and size, xz's and zstd's
// checksums, bzip2's stream CRC) and damage that decoded into a tar that
// still parses is reported, as 7-Zip and gzip -t report it: a checksum
// mismatch, or a stream cut off before its checks. Anything else the
// input holds after the tar's end is ignored, as GNU tar and libarchive
// ignore it: what the stream decodes to after the end-of-archive blocks,
// and data after the compressed stream's end (junk appended to the file,
// which the decoder reports as corrupt).
func (p *pass) end() error {
	if p.in.dec == nil {
		return nil // a plain tar has no checksum
	}
	_, err := p.rest()
	return streamDamage(err)
}

// streamDamage returns err, an error that ended the reading of a
// compressed tar's stream after the tar's end, when it is damage end
// reports (a checksum mismatch, a stream cut off), and nil otherwise.
func streamDamage(err error) error {
	if errors.Is(err, archive.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	return nil
}

// newEntry returns a zero entry with its zero Extra and details, cut
// from the current block (growSlab makes one when it is used up).
func (r *Reader) newEntry() *entryAndExtra {
	if len(r.slab) == 0 {
		r.growSlab()
	}
	x := &r.slab[0]
	r.slab = r.slab[1:]
	x.e.Extra = &x.x
	return x
}

// growSlab makes the block the next entries are cut from: one allocation
// for many entries, and no list of details to grow. Blocks grow with the
// list (an eighth of it, 16 to 256 entries, so that what a block holds
// unused stays within the slack entryCost charges for); from
// hugeSlabAfter entries on, a block is hugeSlabBytes advised for
// transparent huge pages, charged whole to the memory budget, while the
// budget has hugeSlabRoom free.
func (r *Reader) growSlab() {
	const size = int(unsafe.Sizeof(entryAndExtra{}))
	r.slabCharged = false
	if len(r.entries) >= hugeSlabAfter && r.mem.Limit()-r.mem.InUse() >= hugeSlabRoom && r.entryMem.Charge(hugeSlabBytes) {
		r.slab = make([]entryAndExtra, hugeSlabBytes/size)
		hugemem.Advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(r.slab))), len(r.slab)*size))
		r.slabCharged = true
		return
	}
	r.slab = make([]entryAndExtra, min(max(len(r.entries)/8, 16), 256))
}

// entryAndExtra is an entry with its Extra and its details, allocated
// together. The entry comes first, so that a pointer to an entry of the
// list is one to its entryAndExtra (Details.Entry).
type entryAndExtra struct {
	e archive.Entry
	x archive.EntryExtra
	d EntryDetails
}

// entryOf maps a tar header onto a new archive entry.
func entryOf(h *header) *archive.Entry {
	e := &archive.Entry{Extra: &archive.EntryExtra{}}
	fillEntry(e, h)
	return e
}

// fillEntry maps a tar header onto e, a zero entry with a zero Extra.
func fillEntry(e *archive.Entry, h *header) {
	e.Name, e.Size, e.PackedSize, e.ModTime = h.name, h.realSize, (h.size+blockSize-1)&^(blockSize-1), h.mtime
	e.HostOS, e.Attributes, e.HasUnixMode, e.Block = archive.HostUnix, uint32(h.mode)&0o7777, true, -1
	*e.Extra = archive.EntryExtra{AccessTime: h.atime, CreateTime: h.ctime, UID: h.uid, GID: h.gid, Owner: h.uname, Group: h.gname,
		Comment: h.comment}
	switch h.typeflag {
	case typeDir, typeGNUDumpDir:
		e.Type = archive.TypeDir
		e.Size, e.PackedSize = 0, 0
		e.Attributes |= 0o040000
	case typeSymlink:
		e.Type = archive.TypeSymlink
		e.LinkTarget = h.linkname
		e.Size, e.PackedSize = 0, 0
		e.Attributes |= 0o120000
	case typeFifo, typeChar, typeBlock:
		// A file of the listing, with the type in its mode (as the
		// other formats' readers give a unix mode's type).
		e.Type = archive.TypeFile
		e.Size, e.PackedSize = 0, 0
		switch h.typeflag {
		case typeFifo:
			e.Attributes |= 0o010000
			e.Mode = fs.ModeNamedPipe
		case typeChar:
			e.Attributes |= 0o020000
			e.Mode = fs.ModeDevice | fs.ModeCharDevice
		default:
			e.Attributes |= 0o060000
			e.Mode = fs.ModeDevice
		}
	case typeLink:
		e.Type = archive.TypeHardlink
		e.LinkTarget = strings.TrimSuffix(h.linkname, "/")
		e.Size, e.PackedSize = 0, 0
		e.Attributes |= 0o100000
	default:
		e.Type = archive.TypeFile
		e.Attributes |= 0o100000
	}
	for len(e.Name) > 1 && strings.HasSuffix(e.Name, "/") {
		e.Name = e.Name[:len(e.Name)-1]
	}
	e.Mode |= fs.FileMode(h.mode) & fs.ModePerm
	switch e.Type {
	case archive.TypeDir:
		e.Mode |= fs.ModeDir
	case archive.TypeSymlink:
		e.Mode |= fs.ModeSymlink
	}
	if h.mode&0o4000 != 0 {
		e.Mode |= fs.ModeSetuid
	}
	if h.mode&0o2000 != 0 {
		e.Mode |= fs.ModeSetgid
	}
	if h.mode&0o1000 != 0 {
		e.Mode |= fs.ModeSticky
	}
	if h.isSparse {
		// The zero runs read from it are holes, which the extractor
		// skips instead of writing.
		e.Extra.Sparse = true
	}
}

// Extract reads the archive from the start and calls fn for every entry
// want selects, with a reader over its data (holes of sparse files read as
// zeros). When the entry list has not been read yet (a compressed tar
// before Entries), Extract builds it as it goes: want and fn see each
// entry as its header is read, and Entries afterwards costs nothing.
func (r *Reader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	streaming := r.Streaming()
	if !streaming {
		if r.err != nil {
			return r.err
		}
		if !slices.ContainsFunc(r.entries, func(e *archive.Entry) bool { return want == nil || want(e) }) {
			return nil
		}
	} else {
		r.restart()
	}
	p, err := r.newPass()
	if err != nil {
		return err
	}
	defer p.close()
	changed := func(name string, at int64) error {
		return r.wrap(name, at, fmt.Errorf("tar: the archive changed between readings: %w", archive.ErrFormat))
	}
	for i := 0; ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, at, err := p.next()
		if err == io.EOF {
			if err := p.end(); err != nil {
				err = r.wrap("", -1, err)
				if streaming {
					r.err = err
				}
				return err
			}
			if streaming {
				r.complete = true
			} else if i != len(r.entries) {
				return changed("", at)
			}
			return nil
		}
		if err != nil {
			err = r.wrap("", at, headerError(err))
			if streaming {
				r.err = err
			}
			return err
		}
		var e *archive.Entry
		switch {
		case streaming:
			if e, err = r.entry(h, at); err != nil {
				r.err = err
				return err
			}
		case i >= len(r.entries):
			return changed(h.name, at)
		default:
			e = r.entries[i]
		}
		i++
		if want != nil && !want(e) || h.isDevice() {
			continue // a device or FIFO is listed, never extracted (Skipped)
		}
		cr := &p.cr
		*cr = contentReader{ctx: ctx, r: r, e: e, p: p}
		if e.Type == archive.TypeFile {
			if cr.data, err = p.content(h); err != nil {
				cr.err = r.wrap(e.Name, p.in.n, headerError(err))
			}
		}
		ferr := fn(e, cr)
		broken := cr.err != nil && errors.Is(cr.err, archive.ErrFormat)
		if broken && streaming {
			r.err = cr.err // the list cannot be completed
		}
		if ferr != nil {
			return ferr
		}
		if broken {
			// The stream is broken: later entries cannot be reached.
			return cr.err
		}
	}
}

// contentReader is one entry's data.
type contentReader struct {
	ctx  context.Context
	data io.Reader // nil for entries without data
	r    *Reader
	e    *archive.Entry
	p    *pass
	n    int64
	err  error
}

func (c *contentReader) Read(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.data == nil {
		return 0, io.EOF
	}
	if c.n&(1<<20-1) < int64(len(b)) {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			return 0, err
		}
	}
	n, err := c.data.Read(b)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = c.r.wrap(c.e.Name, c.p.in.n, headerError(err))
		return n, c.err
	}
	return n, err
}

// ReadChunk is Read without a buffer of the caller's: it returns the next
// bytes of the entry's data, valid until the next call of ReadChunk or
// Read, and io.EOF after the last. The data of a compressed tar comes
// straight from the decoder's buffers where it lends them (the
// read-ahead's): the extractor writes files from there without copying
// them into a buffer of its own.
func (c *contentReader) ReadChunk() ([]byte, error) {
	if c.err != nil {
		return nil, c.err
	}
	if c.data == nil {
		return nil, io.EOF
	}
	if c.n&(1<<20-1) < chunkSize {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			return nil, err
		}
	}
	var b []byte
	var err error
	if c.data == c.p {
		b, err = c.p.readChunk()
	} else { // a sparse file's expanded data
		buf := c.p.in.chunkBuffer()
		var n int
		n, err = c.data.Read(buf)
		b = buf[:n]
	}
	c.n += int64(len(b))
	if err != nil && err != io.EOF {
		c.err = c.r.wrap(c.e.Name, c.p.in.n, headerError(err))
		return b, c.err
	}
	return b, err
}

// SkipHole passes over the hole of a sparse file at the reader's position
// (archive.HoleSkipper): 0 for other entries, and where data or the end
// comes next.
func (c *contentReader) SkipHole() (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	s, ok := c.data.(*sparseReader)
	if !ok {
		return 0, nil
	}
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	return s.skipHole(), nil
}

// headerError maps the parser's and the decoders' errors onto sentinels.
func headerError(err error) error {
	switch {
	case errors.Is(err, archive.ErrFormat), errors.Is(err, archive.ErrChecksum),
		errors.Is(err, archive.ErrLimit), errors.Is(err, archive.ErrUnsupported):
		return err
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return fmt.Errorf("tar: unexpected end of data: %w", archive.ErrFormat)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err // the file system's error, not the archive's
	}
	return fmt.Errorf("tar: %v: %w", err, archive.ErrFormat)
}

// wrap names the archive, the entry and the offset in the tar stream. In
// a compressed tar that offset counts decompressed bytes: the message says
// so ("at offset N of the decompressed tar") and Error.Offset, an offset
// in the archive file, stays unknown.
func (r *Reader) wrap(entry string, at int64, err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) && ae.Archive == "" {
		e := *ae
		e.Archive = r.opts.Name
		if e.Entry == "" {
			e.Entry = entry
		}
		return &e
	}
	if r.kind != 0 && at >= 0 {
		err = fmt.Errorf("at offset %d of the decompressed tar: %w", at, err)
		at = -1
	}
	return &archive.Error{Archive: r.opts.Name, Entry: entry, Offset: at, Err: err}
}
