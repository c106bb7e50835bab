package stream

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/xz"
)

// WriterOptions configure NewWriter.
type WriterOptions struct {
	// Level is 7-Zip's -mx1 … -mx9 (0 or out of range: DefaultLevel of
	// the format): the Deflate level of gzip, the block size of bzip2 (9 from level 5, as 7-Zip),
	// the LZMA preset of .lzma (lzma.LevelOptions) and of xz with xz's
	// dictionaries (xzOptions), and for zstd the encoder: garc's own
	// (internal/zstd) at 3 to 5, else klauspost/compress's (ZstdLevel).
	Level int
	// Threads compress in parallel (gzip and bzip2 blocks, LZMA2 blocks
	// of xz, zstd jobs); the output does not depend on it.
	Threads int
	// Name and ModTime go into a gzip header (FNAME, MTIME; none when
	// empty or zero).
	Name    string
	ModTime time.Time
	// Size is the content's size for the .lzma header, -1 when unknown
	// (the stream then ends with an end marker).
	Size int64
	// MaxMemory, when positive, bounds the memory of the .xz and .lzma
	// encoders (--max-dict, xz.WriterMemory): when the level's would
	// exceed it, fewer blocks are compressed at once (the output stays
	// the same), then the dictionary is halved until it fits, and
	// Notice, when not nil, is told so; when even a 64 KiB dictionary
	// does not fit NewWriter fails with an archive.LimitError. The
	// windows of gzip (32 KiB) and zstd (4 MiB, with about 16 MiB of
	// input held per thread beyond the first: zstdwriter.go) and bzip2's
	// blocks are small and fixed.
	MaxMemory int64
	Notice    func(string)
}

// ErrSize is wrapped when a .lzma stream's content differs from the size
// its header promised.
var ErrSize = fmt.Errorf("stream: content size changed while it was compressed: %w", archive.ErrFormat)

// NewWriter returns a writer that compresses what is written to it into
// w in the format k; Close ends the stream (and does not close w).
func NewWriter(w io.Writer, k Kind, o WriterOptions) (io.WriteCloser, error) {
	if o.Level < 1 || o.Level > 9 {
		o.Level = DefaultLevel(k)
	}
	o.Threads = max(o.Threads, 1)
	switch k {
	case Gzip:
		return newGzipWriter(w, &o), nil
	case Bzip2:
		level := 9
		if o.Level < 5 {
			level = 2*o.Level - 1
		}
		return bzip2.NewWriterThreads(w, level, o.Threads)
	case XZ:
		lo := xzOptions(&o)
		if err := fitMemory(&lo, &o, xz.WriterMemory); err != nil {
			return nil, err
		}
		return xz.NewWriter(w, lo)
	case Zstd:
		return newZstdWriter(w, &o), nil
	case LZMA:
		return newLZMAWriter(w, &o)
	}
	return nil, fmt.Errorf("stream: cannot write %v", k)
}

// DefaultLevel is the level of a stream written without one: 6 for gzip
// and xz, their tools' own default presets (gzip -6, xz -6), at which
// garc's .gz is within 1.001× pigz -6's size (garc's own Deflate parse,
// zlib's level-6 settings) and its .xz no larger than xz -6's on source
// text, mixed data, logs and executables (xzOptions), and 5, 7-Zip's
// default, for the others.
func DefaultLevel(k Kind) int {
	if k == XZ || k == Gzip {
		return 6
	}
	return 5
}

// ZstdLevel maps 7-Zip's -mx1 … -mx9 to klauspost/compress's encoder
// levels: 1–2 fastest (zstd -1), 3–5 default (zstd -3), 6–7 better (about
// zstd -7), 8–9 best (about zstd -11).
func ZstdLevel(level int) zstd.EncoderLevel {
	switch {
	case level <= 2:
		return zstd.SpeedFastest
	case level <= 5:
		return zstd.SpeedDefault
	case level <= 7:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedBestCompression
}

// xzDicts are the dictionaries of .xz at levels 0 to 9: xz's presets
// (xz(1), "Presets": 256 KiB, 1, 2, 4, 4, 8, 8, 16, 32, 64 MiB), not
// 7-Zip's (lzma.LevelOptions: 32 MiB at -mx5, 64 MiB at -mx6, 256 MiB at
// -mx9), whose binary-tree tables take 9 bytes a dictionary byte (576
// MiB at 64 MiB, 80 MiB at 8 MiB): with the encoder of a lone block sized
// to it, -mx6's peak RSS grew with the input from 264 MB (20 MiB) to 666
// MB (2 GiB), where xz -T2 -6 takes 212-226 MB (issue 26, point 8). With
// garc's parse the smaller dictionaries still leave .xz smaller than
// xz's at -mx1, -mx6 and -mx9 on source code, mixed data, logs and
// executables, not on a CSV table of numbers (1.003× at -mx6; 7-Zip's 64
// MiB left it 1.001×; docs/PERFORMANCE.md).
var xzDicts = [10]uint32{256 << 10, 1 << 20, 2 << 20, 4 << 20, 4 << 20, 8 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20}

// xzOptions are the LZMA2 options of an .xz stream at o.Level: xz's
// dictionary (xzDicts) with 7-Zip's finder and parse of the level
// (lzma.LevelOptions), blocks of four dictionaries (xz.BlockSize), and
// from -mx6 a nice length of 128 (xz -6 and 7-Zip -mx7 take 64): than
// with 64, at -mx6 0.26 % smaller on the Go tree (src/crypto and
// src/net), at -mx9 0.85 % on 8 MiB of logs (where 64 left it 1.0015×
// xz -9's) and 1.2 % on 32 MiB of mixed data, for 18-19 % less CPU time
// (one run each, load about 20; docs/PERFORMANCE.md).
func xzOptions(o *WriterOptions) lzma.WriterOptions {
	lo := lzma.LevelOptions(o.Level)
	lo.Threads = o.Threads
	lo.DictSize = xzDicts[lo.Level]
	lo.BlockSize = 0 // xz.BlockSize: four dictionaries
	if o.Level >= 6 {
		lo.FastBytes = max(lo.FastBytes, 128)
	}
	return lo
}

// minFitDict is the smallest dictionary fitMemory goes down to.
const minFitDict = 64 << 10

// fitMemory makes the encoder options lo, whose memory mem estimates, fit
// o.MaxMemory: first with fewer threads (their blocks or finder threads),
// which leaves the output as it is, then with a dictionary halved until
// it fits (blocks following it), which Notice is told. It returns an
// archive.LimitError when not even minFitDict fits.
func fitMemory(lo *lzma.WriterOptions, o *WriterOptions, mem func(lzma.WriterOptions) int64) error {
	limit := o.MaxMemory
	if limit <= 0 || mem(*lo) <= limit {
		return nil
	}
	for lo.Threads > 1 && mem(*lo) > limit {
		lo.Threads--
	}
	from := lo.DictSize
	for mem(*lo) > limit && lo.DictSize > minFitDict {
		lo.DictSize /= 2
		lo.BlockSize = 0 // four dictionaries again
	}
	if need := mem(*lo); need > limit {
		return &archive.LimitError{What: "compression memory", Need: need, Limit: limit}
	}
	if lo.DictSize != from && o.Notice != nil {
		o.Notice(fmt.Sprintf("-mx%d: dictionary of %d KiB instead of %d KiB, so that the encoder's memory (about %d MiB) stays within --max-dict %d MiB",
			lo.Level, lo.DictSize>>10, from>>10, mem(*lo)>>20, limit>>20))
	}
	return nil
}

// lzmaMemory estimates the memory of an LZMA (not LZMA2) encoder: the
// finder's tables as xz.WriterMemory counts them and a window of the
// dictionary (as one block of that size).
func lzmaMemory(lo lzma.WriterOptions) int64 {
	lo.Threads = 1
	lo.BlockSize = int64(max(lo.DictSize, minFitDict))
	return xz.WriterMemory(lo)
}

// lzmaWriter writes LZMA Utils' .lzma: a 13-byte header (properties,
// dictionary size, content size or all ones) and the LZMA stream, with an
// end marker when the size is unknown.
type lzmaWriter struct {
	z    *lzma.Writer
	size int64 // promised size, -1 unknown
	n    int64
}

func newLZMAWriter(w io.Writer, o *WriterOptions) (*lzmaWriter, error) {
	lo := lzma.LevelOptions(o.Level)
	lo.Threads = o.Threads
	lo.EOSMarker = o.Size < 0
	if err := fitMemory(&lo, o, lzmaMemory); err != nil {
		return nil, err
	}
	z, err := lzma.NewWriter(w, lo)
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, 0, lzmaHeaderSize)
	hdr = append(hdr, z.Props()...)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(o.Size))
	if _, err := w.Write(hdr); err != nil {
		return nil, err
	}
	return &lzmaWriter{z: z, size: o.Size}, nil
}

func (l *lzmaWriter) Write(p []byte) (int, error) {
	l.n += int64(len(p))
	if l.size >= 0 && l.n > l.size {
		return 0, ErrSize
	}
	return l.z.Write(p)
}

func (l *lzmaWriter) Close() error {
	if l.size >= 0 && l.n != l.size {
		l.z.Close()
		return ErrSize
	}
	return l.z.Close()
}

// gzipWriter writes one gzip member whose Deflate stream is cut into
// blocks of gzipBlock bytes, each compressed with the 32 KiB before it as
// its dictionary and ended with a sync flush (the last one with the final
// block), as pigz does: blocks compress on several goroutines and the
// stream is the same for any number of them.
type gzipWriter struct {
	w     io.Writer
	level int
	pool  *blockPool
	crc   uint32
	size  uint32
	hdr   []byte
	err   error
}

// gzipBlock is the input size of one block of a gzip stream.
const gzipBlock = 512 << 10

// deflateWindow is Deflate's window: what a block takes from the one
// before it.
const deflateWindow = 32 << 10

func newGzipWriter(w io.Writer, o *WriterOptions) *gzipWriter {
	g := &gzipWriter{w: w, level: o.Level}
	flg := byte(0)
	if o.Name != "" {
		flg |= 0x08 // FNAME
	}
	var mtime uint32
	if !o.ModTime.IsZero() && o.ModTime.Unix() > 0 && o.ModTime.Unix() <= 0xFFFFFFFF {
		mtime = uint32(o.ModTime.Unix())
	}
	xfl := byte(0)
	switch {
	case o.Level >= 9:
		xfl = 2
	case o.Level <= 1:
		xfl = 4
	}
	g.hdr = []byte{0x1f, 0x8b, 8, flg}
	g.hdr = binary.LittleEndian.AppendUint32(g.hdr, mtime)
	g.hdr = append(g.hdr, xfl, 3) // OS: Unix
	if o.Name != "" {
		g.hdr = append(append(g.hdr, o.Name...), 0)
	}
	g.pool = newBlockPool(w, o.Threads, gzipBlock, deflateWindow, newDeflateBlocks(o.Level))
	return g
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.hdr != nil {
		if _, g.err = g.w.Write(g.hdr); g.err != nil {
			return 0, g.err
		}
		g.hdr = nil
	}
	g.crc = crc32.Update(g.crc, crc32.IEEETable, p)
	g.size += uint32(len(p))
	if g.err = g.pool.write(p); g.err != nil {
		return 0, g.err
	}
	return len(p), nil
}

func (g *gzipWriter) Close() error {
	if g.err != nil {
		g.pool.close()
		return g.err
	}
	if _, err := g.Write(nil); err != nil {
		return err
	}
	if g.err = g.pool.close(); g.err != nil {
		return g.err
	}
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:], g.crc)
	binary.LittleEndian.PutUint32(t[4:], g.size)
	_, g.err = g.w.Write(t[:])
	return g.err
}
