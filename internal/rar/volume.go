package rar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// volResult is what parsing one volume tells the volume walker.
type volResult struct {
	volume    bool // archive flag: part of a volume set
	first     bool // this is known to be the first volume
	notFirst  bool // this is known not to be the first volume
	more      bool // another volume follows
	newNaming bool // name.partN.rar naming
	hasEnd    bool // an end-of-archive block was seen
}

type volumeOpener func(path string) (io.ReaderAt, int64, io.Closer, error)

// openVolumes parses the volume at ra (signature at off) and, when path and
// open are set, the volumes following it.
func (r *reader) openVolumes(ra io.ReaderAt, size, off int64, path string, open volumeOpener) error {
	var sig [8]byte
	n, _ := ra.ReadAt(sig[:], off)
	var format archive.Format
	switch {
	case n >= 8 && bytes.Equal(sig[:8], sigRAR5):
		format = archive.FormatRAR5
	case n >= 7 && bytes.Equal(sig[:7], sigRAR4):
		format = archive.FormatRAR4
	case n >= 4 && bytes.Equal(sig[:4], sigRAR14):
		format = archive.FormatRAR14
	case n >= 7 && bytes.Equal(sig[:6], sigRAR4[:6]):
		return r.errf("", off, &archive.UnsupportedError{What: fmt.Sprintf("RAR format version %d", sig[6])})
	default:
		return r.errf("", off, archive.ErrNotArchive)
	}
	r.info.Format = format
	r.info.SFXOffset = off
	cur := path
	for vol := 0; ; vol++ {
		if vol >= maxVolumes {
			return r.errf("", -1, fmt.Errorf("%w: more than %d volumes", archive.ErrFormat, maxVolumes))
		}
		r.vols = append(r.vols, ra)
		r.sizes = append(r.sizes, size)
		if cur != "" {
			r.info.Volumes = append(r.info.Volumes, cur)
		} else if vol == 0 && r.name != "" {
			r.info.Volumes = append(r.info.Volumes, r.name)
		}
		r.info.PhysicalSize += size - off
		var res volResult
		var err error
		switch format {
		case archive.FormatRAR5:
			res, err = r.parseRAR5(vol, off)
		case archive.FormatRAR4:
			res, err = r.parseRAR4(vol, off)
		default:
			res, err = r.parseRAR14(vol, off)
		}
		if err != nil {
			if vol > 0 {
				return r.errf("", -1, fmt.Errorf("volume %s: %w", cur, err))
			}
			return err
		}
		if vol == 0 && res.volume && cur != "" && !res.first && (res.notFirst || looksLikeLaterVolume(cur, res.newNaming)) {
			first := firstVolumeName(cur, res.newNaming)
			if first != cur && isRegularFile(first) {
				return &laterVolumeError{path: cur, first: first}
			}
			return r.errf("", -1, fmt.Errorf("%w: %s is not the first volume, and the first volume %s is missing", archive.ErrFormat,
				filepath.Base(cur), filepath.Base(first)))
		}
		more := res.more
		if !res.hasEnd {
			// Old archives without an end block: continue while the last
			// entry is split.
			more = len(r.files) > 0 && r.files[len(r.files)-1].e.SplitAfter
		}
		if res.volume && more && r.seq != nil && r.missing == nil {
			// A volume read from a stream: the next one cannot follow.
			r.missing = r.streamNextVolume(res.first)
		}
		if !res.volume || open == nil || cur == "" || !more {
			break
		}
		next, f, nsize, closer, err := r.findNextVolume(cur, res.newNaming, open)
		if err != nil {
			// The set announces another volume that is not there: the
			// entries of the volumes read are listed, tested and
			// extracted as unrar does, an entry cut at the end fails
			// naming the volume, and so do Err and Extract.
			r.missing = err
			break
		}
		r.closers = append(r.closers, closer)
		cur, ra, size, off = next, f, nsize, 0
		// A later volume may carry an SFX stub only in theory; find the
		// signature at 0.
		var s [8]byte
		if n, _ := ra.ReadAt(s[:], 0); n < 4 {
			return r.errf("", -1, fmt.Errorf("%w: volume %s is truncated", archive.ErrFormat, next))
		}
	}
	r.hdr, r.hdrPlain, r.hdrCipher = volWindow{}, nil, headerCipher{}
	r.finish()
	return nil
}

// laterVolumeError says that path is a later volume of a set whose first
// volume exists; OpenFile restarts from the first volume.
type laterVolumeError struct {
	path, first string
}

func (e *laterVolumeError) Error() string {
	return fmt.Sprintf("%s is not the first volume; open %s", filepath.Base(e.path), filepath.Base(e.first))
}

func (e *laterVolumeError) Unwrap() error { return archive.ErrFormat }

func isRegularFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// ErrMissingVolume is wrapped (with archive.ErrFormat) by the errors
// about a volume set whose next volume is missing or cannot be opened:
// Err and Extract's result, and the error of reading an entry that
// continues in that volume.
var ErrMissingVolume = errors.New("missing volume")

// missingVolumeError names the volume a set continues in that is missing
// or cannot be opened.
type missingVolumeError struct {
	volume string // base name of the volume
	msg    string
}

func (e *missingVolumeError) Error() string { return e.msg }

// Unwrap returns ErrMissingVolume and archive.ErrFormat.
func (e *missingVolumeError) Unwrap() []error { return []error{ErrMissingVolume, archive.ErrFormat} }

// cutEntryError is the error of reading an entry whose data continues in
// the volume that r.missing names.
func (r *reader) cutEntryError(name string) error {
	var mv *missingVolumeError
	if !errors.As(r.missing, &mv) {
		return nil
	}
	msg := fmt.Sprintf("continues in volume %s, which is missing", mv.volume)
	if r.seq != nil {
		msg = fmt.Sprintf("continues in %s, which cannot come through a pipe", mv.volume)
	}
	return r.errf(name, -1, &missingVolumeError{volume: mv.volume, msg: msg})
}

// findNextVolume opens the volume after cur, trying the naming scheme the
// archive announces first and the other one second. When neither exists it
// returns a *missingVolumeError (wrapping ErrMissingVolume and
// archive.ErrFormat) that names the expected volume file.
func (r *reader) findNextVolume(cur string, newNaming bool, open volumeOpener) (string, io.ReaderAt, int64, io.Closer, error) {
	cands := []string{nextVolumeName(cur, newNaming), nextVolumeName(cur, !newNaming)}
	var openErr error
	for _, c := range cands {
		if c == "" || c == cur {
			continue
		}
		ra, size, closer, err := open(c)
		if err == nil {
			return c, ra, size, closer, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && openErr == nil {
			openErr = err
		}
	}
	want := cands[0]
	if want == "" {
		want = cands[1]
	}
	mv := &missingVolumeError{volume: filepath.Base(want)}
	if openErr != nil {
		mv.msg = fmt.Sprintf("cannot open volume %s after %s: %v", mv.volume, filepath.Base(cur), openErr)
	} else {
		mv.msg = fmt.Sprintf("volume %s is missing (the set continues after %s)", mv.volume, filepath.Base(cur))
	}
	return "", nil, 0, nil, r.errf("", -1, mv)
}

// lastDigits returns the start and end of the last run of digits in s.
func lastDigits(s string) (int, int) {
	end := -1
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c >= '0' && c <= '9' {
			if end < 0 {
				end = i + 1
			}
		} else if end >= 0 {
			return i + 1, end
		}
	}
	if end >= 0 {
		return 0, end
	}
	return -1, -1
}

// incDigits increments the decimal number in s[i:j], widening it on
// overflow.
func incDigits(s string, i, j int) string {
	b := []byte(s[i:j])
	k := len(b) - 1
	for ; k >= 0; k-- {
		if b[k] == '9' {
			b[k] = '0'
			continue
		}
		b[k]++
		break
	}
	if k < 0 {
		b = append([]byte{'1'}, b...)
	}
	return s[:i] + string(b) + s[j:]
}

// nextVolumeName returns the name of the volume following path.
//
// New naming: the last group of digits before the extension is
// incremented (name.part01.rar → name.part02.rar, name.000.rar →
// name.001.rar). Old naming: name.rar → name.r00 → … → name.r99 → name.s00,
// and a numeric extension is incremented (name.001 → name.002).
func nextVolumeName(path string, newNaming bool) string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if newNaming {
		if !strings.EqualFold(ext, ".rar") && ext != "" && !isDigits(ext[1:]) {
			stem, ext = base, ""
		}
		if isDigits(strings.TrimPrefix(ext, ".")) && ext != "" {
			// name.001 style
			return dir + stem + incDigits(ext, 1, len(ext))
		}
		i, j := lastDigits(stem)
		if i < 0 {
			return ""
		}
		return dir + incDigits(stem, i, j) + ext
	}
	switch {
	case strings.EqualFold(ext, ".rar") || ext == "" || strings.EqualFold(ext, ".exe") || strings.EqualFold(ext, ".sfx"):
		r := "r"
		if ext != "" && ext[1] == 'R' {
			r = "R"
		}
		return dir + stem + "." + r + "00"
	case len(ext) == 4 && isDigits(ext[2:]):
		n := int(ext[2]-'0')*10 + int(ext[3]-'0') + 1
		letter := ext[1]
		if n == 100 {
			n = 0
			letter++
		}
		return fmt.Sprintf("%s%s.%c%02d", dir, stem, letter, n)
	case isDigits(ext[1:]):
		return dir + stem + incDigits(ext, 1, len(ext))
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// looksLikeLaterVolume guesses from the name whether path is a later
// volume, for archives that do not flag the first volume.
func looksLikeLaterVolume(path string, newNaming bool) bool {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	if len(ext) == 4 && isDigits(ext[2:]) && (ext[1]|0x20) >= 'r' && (ext[1]|0x20) <= 'z' {
		return true
	}
	if newNaming {
		stem := strings.TrimSuffix(base, ext)
		i, j := lastDigits(stem)
		if i >= 0 {
			d := strings.TrimLeft(stem[i:j], "0")
			return d != "" && d != "1"
		}
	}
	return false
}

// firstVolumeName returns the likely name of the first volume of the set
// path belongs to.
func firstVolumeName(path string, newNaming bool) string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if len(ext) == 4 && isDigits(ext[2:]) && (ext[1]|0x20) >= 'r' && (ext[1]|0x20) <= 'z' {
		return dir + stem + ".rar"
	}
	i, j := lastDigits(stem)
	if i < 0 {
		return path
	}
	for _, first := range []string{"1", "0"} {
		num := strings.Repeat("0", max(0, j-i-1)) + first
		cand := dir + stem[:i] + num + stem[j:] + ext
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
	}
	return dir + stem[:i] + strings.Repeat("0", max(0, j-i-1)) + "1" + stem[j:] + ext
}

// addPiece records an entry header read from volume vol, merging it with the
// previous entry when it continues a split file.
func (r *reader) addPiece(f *fileInfo) error {
	if err := r.entryMem.charge(entryCost(f)); err != nil {
		return err
	}
	if f.e.SplitBefore && len(r.files) > 0 && r.yield == nil {
		prev := r.files[len(r.files)-1]
		if prev.e.SplitAfter && prev.e.Name == f.e.Name {
			prev.parts = append(prev.parts, f.parts...)
			prev.e.PackedSize += f.e.PackedSize
			prev.e.SplitAfter = f.e.SplitAfter
			// The last piece's checksum covers the whole file.
			prev.e.HasCRC32, prev.e.CRC32 = f.e.HasCRC32, f.e.CRC32
			if prev.e.BLAKE2sp() != nil || f.e.BLAKE2sp() != nil {
				prev.e.MutableExtra().BLAKE2sp = f.e.BLAKE2sp()
			}
			if f.sizeKnown {
				prev.e.Size, prev.sizeKnown = f.e.Size, true
			}
			return nil
		}
	}
	if len(r.files) >= maxEntries {
		return fmt.Errorf("%w: more than %d entries", archive.ErrFormat, maxEntries)
	}
	r.files = append(r.files, f)
	if r.yield != nil {
		return r.yieldEntry(f)
	}
	return nil
}

// finish builds the entry list and the summary.
func (r *reader) finish() {
	if cap(r.files) > len(r.files)+len(r.files)/16 {
		// The list grew by appending: keep it without the spare room
		// (up to a quarter of it, 8 bytes per entry).
		r.files = slices.Clone(r.files)
	}
	r.entries = make([]*archive.Entry, len(r.files))
	r.info.Methods = nil // a Stream finishes twice
	seen := map[string]bool{}
	for i, f := range r.files {
		f.e.Index = int32(i)
		f.e.Block = -1 // RAR has no 7z-style blocks
		r.entries[i] = &f.e
		if f.e.Type == archive.TypeFile && f.e.Method != "" && !seen[f.e.Method] {
			seen[f.e.Method] = true
			r.info.Methods = append(r.info.Methods, f.e.Method)
		}
	}
}
