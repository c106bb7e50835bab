package sevenzip

import (
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Base is an existing archive opened as the starting point of an update
// or a deletion.
type Base struct {
	rd *Reader
}

// OpenBase parses the headers of the 7z archive in r (size bytes, the
// signature header at offset 0) for Write's opts.Base. A password is
// needed when its headers are encrypted or when entries of a partly
// deleted encrypted solid block must be recompressed.
func OpenBase(r io.ReaderAt, size int64, opts *archive.Options) (*Base, error) {
	rd, err := newReader(r, size, opts)
	if err != nil {
		return nil, err
	}
	return &Base{rd: rd}, nil
}

// Entries lists the base archive's entries.
func (b *Base) Entries() []*archive.Entry { return b.rd.entries }

// Info describes the base archive.
func (b *Base) Info() *archive.Info { return &b.rd.info }

// basePlan says what happens to the base archive's entries.
type basePlan struct {
	keep       []bool       // per base entry
	skipItem   []bool       // per new item: the base's entry is kept instead
	empties    []fileInfo   // kept base entries without data
	copyFolder []bool       // per base folder: copied whole
	recompress [][]*srcFile // kept entries of partly kept folders, per folder
	recompKind []filterKind // the branch filter each of those folders had
	sources    []*baseFolderSource
	copied     int
}

// close releases the decoders of partly kept folders.
func (p *basePlan) close() {
	for _, s := range p.sources {
		if s.fs != nil {
			s.fs.close()
			s.fs = nil
		}
	}
}

// planBase decides which base entries survive and which new items are
// skipped.
func (w *writer) planBase(items []WriteItem, st *WriteStats) (*basePlan, error) {
	p := &basePlan{}
	b := w.opts.Base
	if b == nil {
		return p, nil
	}
	rd := b.rd
	hdr := rd.hdr
	p.keep = make([]bool, len(hdr.files))
	byName := make(map[string]int, len(hdr.files))
	for i, e := range rd.entries {
		if e.Anti {
			continue
		}
		p.keep[i] = w.opts.Keep == nil || w.opts.Keep(e)
		if p.keep[i] {
			byName[hdr.files[i].name] = i
		}
	}
	p.skipItem = make([]bool, len(items))
	for i := range items {
		it := &items[i]
		j, ok := byName[it.Name]
		if !ok {
			continue
		}
		if w.opts.Update && !changed(it, rd.entries[j]) {
			p.skipItem[i] = true
			continue
		}
		p.keep[j] = false
	}
	// Folders: count kept entries with data.
	si := &hdr.main
	keptPerFolder := make([]int, len(si.folders))
	for i := range hdr.files {
		if p.keep[i] && rd.meta[i].folder >= 0 {
			keptPerFolder[rd.meta[i].folder]++
		}
	}
	p.copyFolder = make([]bool, len(si.folders))
	partial := map[int]int{} // folder → index in p.recompress
	for fo := range si.folders {
		f := &si.folders[fo]
		switch {
		case keptPerFolder[fo] == 0:
		case keptPerFolder[fo] == f.numSub:
			p.copyFolder[fo] = true
			p.copied++
		default:
			partial[fo] = len(p.recompress)
			p.recompress = append(p.recompress, nil)
			p.recompKind = append(p.recompKind, folderFilter(f))
		}
	}
	src := map[int]*baseFolderSource{}
	for i := range hdr.files {
		if !p.keep[i] {
			continue
		}
		st.Kept++
		fi := hdr.files[i]
		fi.isAnti = false
		m := rd.meta[i]
		if m.folder < 0 {
			p.empties = append(p.empties, fi)
			continue
		}
		k, ok := partial[m.folder]
		if !ok {
			continue // copied with its folder
		}
		s := src[m.folder]
		if s == nil {
			s = &baseFolderSource{rd: rd, folder: m.folder}
			src[m.folder] = s
			p.sources = append(p.sources, s)
		}
		e := rd.entries[i]
		off, size, sub := m.offset, e.Size, m.sub
		p.recompress[k] = append(p.recompress[k], &srcFile{info: fi, size: size, name: e.Name,
			open: func() (io.ReadCloser, error) { return s.open(off, size, sub, e.Name) }})
	}
	return p, nil
}

// folderFilter returns the branch filter of a base folder, so that its
// recompressed survivors keep it.
func folderFilter(f *folder) filterKind {
	for i := range f.coders {
		switch f.coders[i].id {
		case methodBCJ, methodX86, methodBCJ2:
			return filterX86
		case methodARM64:
			return filterARM64
		}
	}
	return filterNone
}

// changed applies 7-Zip's default update rule: a newer modification time
// or a different size means the item replaces the archived entry.
func changed(it *WriteItem, e *archive.Entry) bool {
	if it.Type == archive.TypeDir && e.Type == archive.TypeDir {
		return false
	}
	if (it.Type == archive.TypeDir) != (e.Type == archive.TypeDir) {
		return true
	}
	size := it.Size
	if it.Type == archive.TypeSymlink {
		size = int64(len(it.LinkTarget))
	}
	if size != e.Size {
		return true
	}
	if e.ModTime.IsZero() {
		return true
	}
	// Compare at FILETIME precision (100 ns), as stored.
	return timeToFiletime(it.ModTime) > timeToFiletime(e.ModTime)
}

// copyBaseFolders copies the packed streams of wholly kept folders and
// their records, and the kept files in their order.
func (w *writer) copyBaseFolders(p *basePlan) error {
	if w.opts.Base == nil {
		return nil
	}
	rd := w.opts.Base.rd
	si := &rd.hdr.main
	// Files of each folder, in order.
	folderFiles := make([][]int, len(si.folders))
	for i := range rd.hdr.files {
		if m := rd.meta[i]; m.folder >= 0 && p.copyFolder[m.folder] {
			folderFiles[m.folder] = append(folderFiles[m.folder], i)
		}
	}
	for fo := range si.folders {
		if !p.copyFolder[fo] {
			continue
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
		f := si.folders[fo]
		var total uint64
		for k := 0; k < len(f.packed); k++ {
			s := si.packSizes[f.firstPack+k]
			total += s
			w.si.packSizes = append(w.si.packSizes, s)
		}
		start := signatureHeaderSize + f.packOffset
		if start+int64(total) > rd.size {
			return fmt.Errorf("base folder %d beyond the end of the archive: %w", fo, archive.ErrFormat)
		}
		sr := io.NewSectionReader(rd.ra, start, int64(total))
		cw := &countWriter{w: w.out}
		n, err := io.CopyBuffer(cw, sr, w.buf)
		w.pos += cw.n
		if err != nil {
			return err
		}
		if n != int64(total) {
			return errShort
		}
		first := len(w.si.subSizes)
		for j := 0; j < f.numSub; j++ {
			w.si.subSizes = append(w.si.subSizes, si.subSizes[f.firstSub+j])
			w.si.subHasCRC = append(w.si.subHasCRC, si.subHasCRC[f.firstSub+j])
			w.si.subCRCs = append(w.si.subCRCs, si.subCRCs[f.firstSub+j])
		}
		for _, i := range folderFiles[fo] {
			fi := rd.hdr.files[i]
			fi.isAnti = false
			w.files = append(w.files, fi)
		}
		f.firstSub = first
		w.si.folders = append(w.si.folders, f)
	}
	return nil
}

// baseFolderSource reads the kept entries of one base folder in order,
// decoding the folder once.
type baseFolderSource struct {
	rd     *Reader
	folder int
	fs     *folderStream
	skip   []byte
}

func (s *baseFolderSource) open(off, size int64, sub int, name string) (io.ReadCloser, error) {
	if s.fs == nil {
		fs, err := s.rd.openFolder(s.folder)
		if err != nil {
			return nil, s.rd.wrap(name, err)
		}
		s.fs = fs
		s.skip = make([]byte, 32<<10)
	}
	if s.fs.pos > off {
		return nil, fmt.Errorf("%s: base entries out of order: %w", name, archive.ErrFormat)
	}
	if err := s.fs.skipTo(off, s.skip); err != nil {
		return nil, s.rd.wrap(name, s.fs.decodeError(err))
	}
	si := &s.rd.hdr.main
	er := &entryReader{fs: s.fs, n: size, hasCRC: si.subHasCRC[sub], want: si.subCRCs[sub]}
	return &baseEntryReader{nr: namedReader{er: er, rd: s.rd, name: name}, src: s, last: off+size == int64(s.fs.f.unpackSize())}, nil
}

// baseEntryReader closes the folder decoder after the folder's last byte.
type baseEntryReader struct {
	nr   namedReader
	src  *baseFolderSource
	last bool
}

func (b *baseEntryReader) Read(p []byte) (int, error) { return b.nr.Read(p) }

func (b *baseEntryReader) Close() error {
	if b.last && b.src.fs != nil {
		b.src.fs.close()
		b.src.fs = nil
	}
	return nil
}
