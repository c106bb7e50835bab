package sevenzip

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// Target is where Update writes the new archive: an Output that is
// committed once the archive is complete, or aborted, which leaves any
// previous archive as it was. internal/archivefile.File implements it.
type Target interface {
	Output
	// Commit makes the written archive the archive.
	Commit() error
	// Abort discards what was written.
	Abort() error
}

// Existing is an archive being updated: its bytes (the signature header
// at offset 0) and their size.
type Existing struct {
	R    io.ReaderAt
	Size int64
}

// Changes say what Update does to an archive.
type Changes struct {
	// Add are new entries. One whose name the archive has replaces that
	// entry when it differs by 7-Zip's default update rule (a different
	// size or a newer modification time); otherwise the archived entry
	// is kept and the item skipped.
	Add []WriteItem
	// Delete selects the archive's entries to remove; nil removes none.
	Delete func(e *archive.Entry) bool
}

// ErrNoMatch is returned by Update when Changes.Delete selects nothing
// and there is nothing to add: the archive is left as it was.
var ErrNoMatch = errors.New("no entries matched")

// ErrMixedEncryption is wrapped by Update's refusal to add entries to an
// archive with encrypted entries without a password, or with a password
// its entries were not encrypted with (WriteOptions.MixedEncryption
// allows both). The error also wraps archive.ErrPasswordRequired or
// archive.ErrWrongPassword.
var ErrMixedEncryption = errors.New("the archive's entries would not all have the same password")

// Update writes to out the archive base (nil: none, a new archive) with
// changes applied: folders whose entries all survive are copied byte for
// byte, folders that lose entries are decoded once and their survivors
// recompressed, and the new items are compressed with opts. opts.Password
// also decrypts the base archive. Update commits out when the archive is
// complete and aborts it on any error, cancellation included.
func Update(ctx context.Context, out Target, base *Existing, ch *Changes, opts *WriteOptions) (st *WriteStats, err error) {
	defer func() {
		if err != nil {
			out.Abort()
		}
	}()
	if ch == nil {
		ch = &Changes{}
	}
	switch {
	case base != nil:
		st, err = updateBase(ctx, out, base, ch, opts)
	case ch.Delete != nil && len(ch.Add) == 0:
		err = ErrNoMatch
	default:
		st, err = Write(ctx, out, ch.Add, opts)
	}
	if err != nil {
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	return st, nil
}

// updateBase writes base with changes applied.
func updateBase(ctx context.Context, out Output, base *Existing, ch *Changes, opts *WriteOptions) (*WriteStats, error) {
	w, err := newWriter(ctx, out, opts)
	if err != nil {
		return nil, err
	}
	pw := func() (string, error) {
		if w.opts.Password == "" {
			return "", archive.ErrPasswordRequired
		}
		return w.opts.Password, nil
	}
	if w.base, err = newReader(base.R, base.Size, &archive.Options{Name: w.opts.Name, Password: pw, MaxDict: w.opts.MaxDict, Memory: w.opts.Memory}); err != nil {
		return nil, fmt.Errorf("cannot update: %w", err)
	}
	if w.base.info.EncryptedHeaders && w.opts.Password != "" {
		w.opts.EncryptHeaders = true // the names stay hidden
	}
	w.deleteBase = ch.Delete
	if err := w.checkBaseEncryption(len(ch.Add) > 0); err != nil {
		return nil, err
	}
	if ch.Delete != nil && len(ch.Add) == 0 {
		n := 0
		for _, e := range w.base.entries {
			if !e.Anti && ch.Delete(e) {
				n++
			}
		}
		if n == 0 {
			return nil, ErrNoMatch
		}
	}
	return w.run(ch.Add)
}

// checkBaseEncryption refuses to add entries that would be encrypted
// differently from the base archive's encrypted entries.
func (w *writer) checkBaseEncryption(adding bool) error {
	if !adding || w.opts.MixedEncryption {
		return nil
	}
	rd := w.base
	enc := -1 // an encrypted folder whose first entry is the smallest
	var encSize int64
	for i, e := range rd.entries {
		m := rd.meta[i]
		if m.folder() < 0 || rd.local(m) != 0 || !folderEncrypted(&rd.hdr.main.folders[m.folder()]) {
			continue
		}
		if enc < 0 || e.Size < encSize {
			enc, encSize = i, e.Size
		}
	}
	if enc < 0 {
		return nil // nothing encrypted, or only the header (which then decoded with the password)
	}
	if w.opts.Password == "" {
		return fmt.Errorf("%w: it has encrypted entries and no password was given, so the new entries would be stored unencrypted: %w",
			ErrMixedEncryption, archive.ErrPasswordRequired)
	}
	// The header may be plain: check the password on the entry that
	// costs least to decode.
	m := rd.meta[enc]
	e := rd.entries[enc]
	s := &baseFolderSource{rd: rd, folder: m.folder()}
	defer func() {
		if s.fs != nil {
			s.fs.close()
		}
	}()
	rc, err := s.open(0, e.Size, m.sub(), e.Name)
	if err == nil {
		_, err = io.CopyBuffer(io.Discard, rc, w.buf)
		rc.Close()
	}
	if errors.Is(err, archive.ErrWrongPassword) || errors.Is(err, archive.ErrChecksum) {
		return fmt.Errorf("%w: the password given is not the one its entries are encrypted with: %w",
			ErrMixedEncryption, archive.ErrWrongPassword)
	}
	return err
}

// basePlan says what happens to the base archive's entries.
type basePlan struct {
	keep       []bool       // per base entry
	skipItem   []bool       // per new item: the base's entry is kept instead
	dirs       []fileInfo   // kept base entries without data: directories
	emptyFiles []fileInfo   // and empty files
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
// skipped; byName orders items by name (sortByName).
func (w *writer) planBase(items []WriteItem, byName []int32, st *WriteStats) (*basePlan, error) {
	p := &basePlan{}
	rd := w.base
	if rd == nil {
		return p, nil
	}
	hdr := rd.hdr
	p.keep = make([]bool, hdr.files.len())
	p.skipItem = make([]bool, len(items))
	for i, e := range rd.entries {
		if e.Anti {
			continue
		}
		p.keep[i] = w.deleteBase == nil || !w.deleteBase(e)
		if !p.keep[i] {
			st.Deleted++
			continue
		}
		// An item of the same name replaces the entry when it changed;
		// otherwise the entry stays and the item is skipped.
		if j := lookup(items, byName, hdr.files.recs[i].name); j >= 0 {
			if changed(&items[j], e) {
				p.keep[i] = false
			} else {
				p.skipItem[j] = true
			}
		}
	}
	// Folders: count kept entries with data.
	si := &hdr.main
	keptPerFolder := make([]int, len(si.folders))
	for i := range hdr.files.len() {
		if p.keep[i] && rd.meta[i].folder() >= 0 {
			keptPerFolder[rd.meta[i].folder()]++
		}
	}
	p.copyFolder = make([]bool, len(si.folders))
	partial := map[int]int{} // folder → index in p.recompress
	for fo := range si.folders {
		f := &si.folders[fo]
		switch {
		case keptPerFolder[fo] == 0:
		case keptPerFolder[fo] == int(f.numSub):
			p.copyFolder[fo] = true
			p.copied++
		default:
			partial[fo] = len(p.recompress)
			p.recompress = append(p.recompress, nil)
			p.recompKind = append(p.recompKind, folderFilter(f))
		}
	}
	// The kept entries without data, with room for the new items, and in
	// dirs for all of the archive's entries (run appends the rest there).
	kept, keptEmpty := 0, 0
	for i := range hdr.files.len() {
		if p.keep[i] {
			kept++
			if hdr.files.recs[i].flags&fileIsEmptyFile != 0 {
				keptEmpty++
			}
		}
	}
	p.dirs = make([]fileInfo, 0, kept+len(items))
	p.emptyFiles = make([]fileInfo, 0, keptEmpty+len(items))
	src := map[int]*baseFolderSource{}
	for i := range hdr.files.len() {
		if !p.keep[i] {
			continue
		}
		st.Kept++
		fi := hdr.files.info(i)
		fi.isAnti = false
		m := rd.meta[i]
		if m.folder() < 0 {
			if fi.isEmptyFile {
				p.emptyFiles = append(p.emptyFiles, fi)
			} else {
				p.dirs = append(p.dirs, fi)
			}
			continue
		}
		k, ok := partial[m.folder()]
		if !ok {
			continue // copied with its folder
		}
		s := src[m.folder()]
		if s == nil {
			s = &baseFolderSource{rd: rd, folder: m.folder()}
			src[m.folder()] = s
			p.sources = append(p.sources, s)
		}
		e := rd.entries[i]
		off, size, sub := m.offset, e.Size, m.sub()
		s.end = max(s.end, off+size)
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

// changed applies 7-Zip's default update rule (archive.UpdateReplaces)
// at 7z's time precision, 100 ns.
func changed(it *WriteItem, e *archive.Entry) bool {
	size := it.Size
	if it.Type == archive.TypeSymlink {
		size = int64(len(it.LinkTarget))
	}
	return archive.UpdateReplaces(it.Type, size, it.ModTime, e, 100*time.Nanosecond)
}

// copyBaseFolders copies the packed streams of wholly kept folders and
// their records, and the kept files in their order.
func (w *writer) copyBaseFolders(p *basePlan) error {
	rd := w.base
	if rd == nil {
		return nil
	}
	si := &rd.hdr.main
	// Files of each folder, in order.
	folderFiles := make([][]int, len(si.folders))
	for i := range rd.hdr.files.len() {
		if m := rd.meta[i]; m.folder() >= 0 && p.copyFolder[m.folder()] {
			folderFiles[m.folder()] = append(folderFiles[m.folder()], i)
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
			s := si.packSizes[f.firstPack()+k]
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
		for j := range f.numSub {
			w.si.subSizes = append(w.si.subSizes, si.subSizes[f.firstSub+j])
			w.si.subHasCRC = append(w.si.subHasCRC, si.subHasCRC[f.firstSub+j])
			w.si.subCRCs = append(w.si.subCRCs, si.subCRCs[f.firstSub+j])
		}
		for _, i := range folderFiles[fo] {
			fi := rd.hdr.files.info(i)
			fi.isAnti = false
			w.files = append(w.files, fi)
		}
		f.firstSub = int32(first)
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
	// end is where the last kept entry ends: its decoder (and memory)
	// is given back once that is read, not when the next folder is
	// opened (which could then wait for it).
	end int64
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
	return &baseEntryReader{nr: namedReader{er: er, rd: s.rd, name: name}, src: s}, nil
}

// baseEntryReader closes the folder decoder once the source's last kept
// entry has been read.
type baseEntryReader struct {
	nr  namedReader
	src *baseFolderSource
}

func (b *baseEntryReader) Read(p []byte) (int, error) { return b.nr.Read(p) }

func (b *baseEntryReader) Close() error {
	if b.src.fs != nil && b.src.fs.pos >= b.src.end {
		b.src.fs.close()
		b.src.fs = nil
	}
	return nil
}
