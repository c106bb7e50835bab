package sevenzip

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// packBufferSize is the read buffer of each packed stream.
const packBufferSize = 64 << 10

// folderDecoder builds the decoder graph of one folder.
type folderDecoder struct {
	f    *folder
	si   *streamsInfo
	ra   io.ReaderAt
	base int64 // archive offset of the packed streams' origin (end of the signature header)
	end  int64 // archive size
	dctx *decodeContext
	seen []bool // coders already built (a coder output feeds exactly one input)
}

// open returns a reader over the folder's main output, bounded by its
// unpack size.
func (fd *folderDecoder) open() (io.Reader, error) {
	fd.seen = make([]bool, len(fd.f.coders))
	if err := fd.dctx.reserve(folderMemory(fd.f)); err != nil {
		return nil, err
	}
	main := fd.f.mainOutput()
	ci := fd.f.coderOfOutput(main)
	if ci < 0 {
		return nil, fmt.Errorf("folder without a main coder: %w", errHeader)
	}
	return fd.coderOutput(ci)
}

// packReader returns a buffered reader over the folder's k-th packed
// stream.
func (fd *folderDecoder) packReader(k int) (io.Reader, error) {
	off := fd.f.packOffset
	p := fd.f.firstPack()
	for j := 0; j < k; j++ {
		off += int64(fd.si.packSizes[p+j])
	}
	size := int64(fd.si.packSizes[p+k])
	start := fd.base + off
	if start < 0 || start > fd.end || size > fd.end-start {
		return nil, fmt.Errorf("packed stream at %d (+%d bytes) beyond the end of the archive (%d): %w",
			start, size, fd.end, archive.ErrFormat)
	}
	sr := io.NewSectionReader(fd.ra, start, size)
	// Buffers of finished folders are reused.
	var br *bufio.Reader
	if it, ok := fd.dctx.pool.take(poolBufio, 0); ok {
		br = it.v.(*bufio.Reader)
		br.Reset(sr)
	} else {
		br = bufio.NewReaderSize(sr, packBufferSize)
	}
	fd.dctx.onClose(closerFunc(func() error {
		br.Reset(nil)
		fd.dctx.pool.put(poolBufio, pooledItem{v: br})
		return nil
	}))
	return br, nil
}

// coderOutput builds the decoder of coder ci with all its inputs.
func (fd *folderDecoder) coderOutput(ci int) (io.Reader, error) {
	f := fd.f
	if fd.seen[ci] {
		return nil, fmt.Errorf("coder output used twice: %w", errHeader)
	}
	fd.seen[ci] = true
	c := &f.coders[ci]
	m, ok := methods()[c.id]
	if !ok || m.newDecoder == nil {
		return nil, &archive.UnsupportedError{What: "7z method " + methodName(c.id)}
	}
	if c.numOut != 1 {
		return nil, &archive.UnsupportedError{What: fmt.Sprintf("7z coder %s with %d outputs", m.name, c.numOut)}
	}
	if c.numIn != m.numIn {
		return nil, fmt.Errorf("coder %s with %d inputs: %w", m.name, c.numIn, errHeader)
	}
	ins := make([]io.Reader, c.numIn)
	for k := range ins {
		idx := c.inStart + k
		if bp := f.findBindPairForIn(idx); bp >= 0 {
			next := f.coderOfOutput(f.bindPairs[bp].outIndex)
			if next < 0 {
				return nil, fmt.Errorf("bind pair to unknown output: %w", errHeader)
			}
			r, err := fd.coderOutput(next)
			if err != nil {
				return nil, err
			}
			ins[k] = r
			continue
		}
		p := -1
		for j, in := range f.packed {
			if in == idx {
				p = j
				break
			}
		}
		if p < 0 {
			return nil, fmt.Errorf("coder input %d is neither bound nor packed: %w", idx, errHeader)
		}
		r, err := fd.packReader(p)
		if err != nil {
			return nil, err
		}
		ins[k] = r
	}
	size := int64(f.unpackSizes[c.outStart])
	r, err := m.newDecoder(ins, c.props, size, fd.dctx)
	if err != nil {
		return nil, err
	}
	return &boundedReader{r: r, n: size}, nil
}

// folderMethod describes a folder's coders for listings as 7-Zip does,
// from the coder producing the output towards the packed streams, e.g.
// "BCJ LZMA2:24" or "BCJ2 LZMA2:24 LZMA:20:lc0:lp2 LZMA:20:lc0:lp2".
func folderMethod(f *folder) string {
	var parts []string
	seen := make([]bool, len(f.coders))
	var walk func(ci int, depth int)
	walk = func(ci int, depth int) {
		if ci < 0 || depth > len(f.coders) {
			return
		}
		c := &f.coders[ci]
		if seen[ci] {
			return
		}
		seen[ci] = true
		parts = append(parts, describeCoder(c))
		for k := 0; k < c.numIn; k++ {
			if bp := f.findBindPairForIn(c.inStart + k); bp >= 0 {
				walk(f.coderOfOutput(f.bindPairs[bp].outIndex), depth+1)
			}
		}
	}
	walk(f.coderOfOutput(f.mainOutput()), 0)
	return strings.Join(parts, " ")
}

// folderEncrypted reports whether a folder has an encryption coder.
func folderEncrypted(f *folder) bool {
	for i := range f.coders {
		if f.coders[i].id == methodAES {
			return true
		}
	}
	return false
}
