package stream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/xz"
	ownzstd "github.com/garc-dev/garc/internal/zstd"
)

// Kind is a single-stream compression format.
type Kind int

// The formats, in the order Identify tries them.
const (
	Gzip Kind = iota + 1
	Bzip2
	XZ
	Zstd
	LZMA // LZMA-alone (.lzma), recognised last: its header has no magic
)

// Format returns the archive.Format naming a file of this kind.
func (k Kind) Format() archive.Format {
	switch k {
	case Gzip:
		return "gzip"
	case Bzip2:
		return "bzip2"
	case XZ:
		return "xz"
	case Zstd:
		return "zstd"
	case LZMA:
		return "lzma"
	}
	return "unknown"
}

// String returns the format's name.
func (k Kind) String() string { return string(k.Format()) }

// Suffix returns the file-name suffix of the format without its dot (gz,
// bz2, xz, zst, lzma), which also names a tar inside it ("tar.gz").
func (k Kind) Suffix() string {
	switch k {
	case Gzip:
		return "gz"
	case Bzip2:
		return "bz2"
	case Zstd:
		return "zst"
	}
	return k.String()
}

var (
	magicGzip = []byte{0x1f, 0x8b, 0x08}
	magicBz2  = []byte("BZh")
	magicZstd = []byte{0x28, 0xB5, 0x2F, 0xFD}
)

// HeadSize is how many leading bytes Identify wants to see.
const HeadSize = 16

// Identify recognises a compressed stream from its first bytes.
func Identify(head []byte) (Kind, bool) {
	switch {
	case bytes.HasPrefix(head, magicGzip):
		return Gzip, true
	case bytes.HasPrefix(head, magicBz2) && len(head) >= 10 && head[3] >= '1' && head[3] <= '9' &&
		(bytes.Equal(head[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) || bytes.Equal(head[4:10], []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})):
		return Bzip2, true
	case bytes.HasPrefix(head, xz.Magic):
		return XZ, true
	case bytes.HasPrefix(head, magicZstd) || isSkippableFrame(head):
		return Zstd, true
	case isLZMAAlone(head):
		return LZMA, true
	}
	return 0, false
}

// isSkippableFrame recognises a zstd skippable frame (magic 0x184D2A5?).
func isSkippableFrame(head []byte) bool {
	return len(head) >= 8 && binary.LittleEndian.Uint32(head)&0xFFFFFFF0 == 0x184D2A50
}

// isLZMAAlone recognises the 13-byte header of LZMA Utils' .lzma format:
// a properties byte below 225, a dictionary size that is 2^n or 2^n+2^(n-1)
// (what every encoder writes), and an unpacked size that is either
// unknown (all ones) or below 2^48.
func isLZMAAlone(head []byte) bool {
	if len(head) < 13 || head[0] >= 9*5*5 {
		return false
	}
	d := binary.LittleEndian.Uint32(head[1:5])
	if d < 1<<12 {
		return false
	}
	ok := false
	for n := 12; n < 32; n++ {
		if d == 1<<n || (n > 12 && d == 1<<n|1<<(n-1)) || d == 0xFFFFFFFF {
			ok = true
			break
		}
	}
	size := binary.LittleEndian.Uint64(head[5:13])
	return ok && (size == ^uint64(0) || size < 1<<48)
}

// Header is what a stream says about the file it holds, where the format
// records it (gzip's FNAME and MTIME, the .lzma unpacked size).
type Header struct {
	Name    string
	ModTime time.Time
	Size    int64 // -1 when unknown
}

// Decoder decompresses one file of a Kind.
type Decoder interface {
	io.Reader
	// Close releases the decoder's memory; it does not close the input.
	Close() error
}

// NewDecoder returns a decoder for a stream of kind k read from r, and
// what its header says. maxDict bounds the window or dictionary (0: the
// archive default); threads > 1 lets bzip2 decode blocks in parallel and
// runs the decoder ahead of the reader on a goroutine of its own
// (readahead.go).
func NewDecoder(k Kind, r io.Reader, maxDict int64, threads int) (Decoder, Header, error) {
	d, h, err := newDecoder(k, r, maxDict, threads)
	if err == nil && threads > 1 {
		d = newReadAhead(d)
	}
	return d, h, err
}

func newDecoder(k Kind, r io.Reader, maxDict int64, threads int) (Decoder, Header, error) {
	if maxDict <= 0 {
		maxDict = archive.DefaultMaxDict
	}
	h := Header{Size: -1}
	switch k {
	case Gzip:
		z, h, err := newGzipReader(r)
		if err != nil {
			return nil, h, err
		}
		return z, h, nil
	case Bzip2:
		z := bzip2.NewReaderThreads(r, max(threads, 1))
		return bzip2Decoder{errorMapper{z, "bzip2"}, z}, h, nil
	case XZ:
		z := xz.NewReader(r, maxDict)
		z.SetThreads(threads)
		return nopCloser{z}, h, nil
	case Zstd:
		return newZstdDecoder(r, maxDict)
	case LZMA:
		var hdr [lzmaHeaderSize]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil, h, &archive.Error{Offset: 0, Err: fmt.Errorf("lzma: truncated header: %w", archive.ErrFormat)}
		}
		size := int64(binary.LittleEndian.Uint64(hdr[5:13]))
		if size < 0 {
			size = -1
		}
		z, err := lzma.NewReader(r, hdr[:5], size, maxDict)
		if err != nil {
			return nil, h, &archive.Error{Offset: 0, Err: fmt.Errorf("lzma: %w", err)}
		}
		h.Size = size
		return nopCloser{lzmaDecoder{z}}, h, nil
	}
	return nil, h, &archive.UnsupportedError{What: "stream format"}
}

// StoredName returns the name the entry of a single-stream file of kind k
// extracts to, as 7-Zip names it: the name a gzip header records, made a
// relative path of real components (as 7-Zip extracts it: "../x" and
// "/x" give "x", "a/b/c" stays a path; '\\' separates as everywhere in
// garc), else the archive's default name (defaultName). A recorded name
// whose last component is no name ("", ".", "..", "dir/") is not used;
// 7-Zip writes "_" for those.
func StoredName(k Kind, archiveName string, h Header) string {
	if name, ok := cleanStoredName(h.Name); ok {
		return name
	}
	return defaultName(k, filepath.Base(archiveName))
}

// cleanStoredName drops a drive prefix ("C:", which safe extraction
// would remove) and the empty, "." and ".." components of a recorded
// name; ok is false when its last component is one of them.
func cleanStoredName(name string) (string, bool) {
	isSep := func(r rune) bool { return r == '/' || r == '\\' }
	if len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z') {
		name = name[2:]
	}
	switch last := name[strings.LastIndexAny(name, `/\`)+1:]; last {
	case "", ".", "..":
		return "", false
	}
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, isSep) {
		if part == "." || part == ".." {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(part)
	}
	return b.String(), true
}

// streamExtensions are the file-name extensions 7-Zip registers for each
// kind, with what replaces them in the default name (a .tgz holds a .tar).
var streamExtensions = [...][]struct{ ext, repl string }{
	Gzip:  {{"gz", ""}, {"gzip", ""}, {"tgz", ".tar"}, {"tpz", ".tar"}, {"apk", ".tar"}},
	Bzip2: {{"bz2", ""}, {"bzip2", ""}, {"tbz2", ".tar"}, {"tbz", ".tar"}},
	XZ:    {{"xz", ""}, {"txz", ".tar"}},
	Zstd:  {{"zst", ""}, {"tzst", ".tar"}},
	LZMA:  {{"lzma", ""}},
}

// defaultName is the name 7-Zip gives the content of a compressed file
// named base: an extension registered for k (any case) is replaced by what
// stands for it (a.tar.gz, a.gz.gz, x.tgz → a.tar, a.gz, x.tar), any other
// extension is dropped (x.tbz2 of gzip → x), a name without one gets "~"
// (noext → noext~, .gz → .gz~); trailing blanks go. A result that is no
// name (the file "..gz") is "_", as 7-Zip extracts it.
func defaultName(k Kind, base string) string {
	ext, repl := "", ""
	if dot := strings.LastIndexByte(base, '.'); dot >= 0 {
		ext = base[dot+1:]
	}
	exts := streamExtensions[k]
	if len(exts) > 0 {
		repl = exts[0].repl
	}
	matched := false
	for _, e := range exts {
		if strings.EqualFold(ext, e.ext) {
			repl, matched = e.repl, true
			break
		}
	}
	var name string
	switch dot := strings.LastIndexByte(base, '.'); {
	case matched && len(base) > len(ext)+1:
		name = base[:len(base)-len(ext)-1] + repl
	case dot > 0:
		name = base[:dot] + repl
	case repl == "":
		name = base + "~"
	default:
		name = base + repl
	}
	name = strings.TrimRight(name, " \t\n")
	if name == "" || name == "." || name == ".." {
		return "_"
	}
	return name
}

type nopCloser struct{ io.Reader }

// bzip2Decoder gives the bzip2 Reader's block buffers back on Close, for
// the next stream opened (the opener looks into a stream before it reads
// it).
type bzip2Decoder struct {
	errorMapper
	z *bzip2.Reader
}

func (d bzip2Decoder) Close() error { return d.z.Close() }

func (nopCloser) Close() error { return nil }

// errorMapper makes decoder errors wrap archive.ErrFormat where the codec
// reports a plain error, and turns a premature end into one.
type errorMapper struct {
	r    io.Reader
	what string
}

func (m errorMapper) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err != nil && err != io.EOF {
		err = mapError(m.what, err)
	}
	return n, err
}

func mapError(what string, err error) error {
	switch {
	case errors.Is(err, archive.ErrFormat), errors.Is(err, archive.ErrChecksum),
		errors.Is(err, archive.ErrLimit), errors.Is(err, archive.ErrUnsupported):
		return err
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%s: unexpected end of data: %w", what, archive.ErrFormat)
	}
	var pe interface{ Timeout() bool } // I/O errors of the file system pass unchanged
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %v: %w", what, err, archive.ErrFormat)
}

// lzmaHeaderSize is the size of the .lzma header: properties, dictionary
// size and unpacked size.
const lzmaHeaderSize = 13

// lzmaDecoder reports damage at its offset in the file: the codec's
// CorruptInputError counts from the end of the header.
type lzmaDecoder struct{ z *lzma.Reader }

func (d lzmaDecoder) Read(p []byte) (int, error) {
	n, err := d.z.Read(p)
	if err != nil && err != io.EOF {
		var ce *lzma.CorruptInputError
		if errors.As(err, &ce) {
			return n, &archive.Error{Offset: lzmaHeaderSize + ce.Offset, Err: err}
		}
		err = mapError("lzma", err)
	}
	return n, err
}

// zstdMaxWindow is the largest window a zstd frame header can declare
// (exponent 31, mantissa 7: 3.75 TiB).
const zstdMaxWindow = 1<<41 + 7<<38

type zstdDecoder struct {
	*zstdParts // nil once closed
	chk        *zstdCheck
	limit      int64
}

// zstdParts is what a closed zstdDecoder or zstdRunsDecoder leaves to
// the next one.
type zstdParts struct {
	dec *zstd.Decoder   // klauspost's, made when first needed
	own *ownzstd.Reader // garc's, made when first needed
	in  *bufio.Reader   // the file, read ahead of the decoder
	win []byte          // the window ring given to dec (giveWindow)
	// look holds the start of a file that starts with a raw block, read
	// zstdRawLook bytes ahead (newZstdDecoder); lookR reads it.
	look  []byte
	lookR bytes.Reader
}

// zstdInputSize is the buffer the file is read through. The decoder reads
// each block's 3-byte header and then its content, two system calls a
// block of up to 128 KiB (1,624 for the 25 MB mixed.tar.zst); through 64
// KiB at a time, garc t of it took 0.96x the CPU time (cpupairs, 10
// rounds, load 12; 32 KiB and 128 KiB about the same, 512 KiB 0.99x: the
// fresh buffer's page faults).
const zstdInputSize = 64 << 10

// zstdDecoders keeps the parts of closed zstdDecoders for the next one:
// with them the decoder's window buffer (2.3 MB for zstd -3), which would otherwise be
// allocated and touched anew each time a stream is opened, and a
// .tar.zst is opened twice (once to see whether it holds a tar). On this
// machine touching fresh memory costs about 4 ms of CPU time per MiB
// under load, as much as the decoder takes for 3 MB of output.
var zstdDecoders sync.Pool

// errClosed is what a Decoder's Read returns after Close.
var errClosed = errors.New("stream: read from a closed decoder")

// Read decodes. What zstdCheck finds comes out as soon as it is known,
// and at the latest in place of the decoder's end or error: the check
// has then read everything the decoder read.
func (d *zstdDecoder) Read(p []byte) (int, error) {
	if d.zstdParts == nil {
		return 0, errClosed
	}
	n, err := d.dec.Read(p)
	if d.chk.found.Load() || err != nil {
		if cerr := d.chk.finish(); cerr != nil {
			return 0, cerr
		}
	}
	if err != nil && err != io.EOF {
		err = zstdError(err, d.limit)
	}
	return n, err
}

// Close ends the check without finishing it and gives the decoder, rid
// of its input, to the next zstdDecoder.
func (d *zstdDecoder) Close() error {
	if d.zstdParts == nil {
		return nil
	}
	d.chk.stop()
	d.dec.Reset(nil)
	d.in.Reset(nil)
	zstdDecoders.Put(d.zstdParts)
	d.zstdParts = nil
	return nil
}

func zstdError(err error, limit int64) error {
	switch {
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return fmt.Errorf("zstd: a frame's window exceeds the limit %d (raise it with --max-dict): %w", limit, archive.ErrLimit)
	case errors.Is(err, zstd.ErrCRCMismatch):
		return fmt.Errorf("zstd: %w", archive.ErrChecksum)
	}
	return mapError("zstd", err)
}

// zstdRunsDecoder decodes, with garc's own decoder (internal/zstd), a
// zstd file that zstdMostlyRuns found to be mostly RLE or raw blocks.
// That decoder fills an RLE block with doubling copies where klauspost's
// writes it a byte at a time, reads a raw block straight into its window
// where klauspost's copies it three times, and it reports itself what
// zstdCheck looks for (a window above the limit, an offset of 0); on
// sequences it is slower than klauspost's assembly, which is why it
// decodes only such files.
type zstdRunsDecoder struct {
	*zstdParts // nil once closed
}

// Read decodes.
func (d *zstdRunsDecoder) Read(p []byte) (int, error) {
	if d.zstdParts == nil {
		return 0, errClosed
	}
	n, err := d.own.Read(p)
	if err != nil && err != io.EOF {
		err = mapError("zstd", err)
	}
	return n, err
}

// Close gives the decoder, rid of its input, to the next one.
func (d *zstdRunsDecoder) Close() error {
	if d.zstdParts == nil {
		return nil
	}
	d.own.Reset(nil, 0)
	d.in.Reset(nil)
	zstdDecoders.Put(d.zstdParts)
	d.zstdParts = nil
	return nil
}
