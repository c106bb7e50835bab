package opener

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// Open opens the archive at path, whatever its format, and returns a
// Reader whose Close also closes the files opened here. A raw split
// (NAME.001, NAME.002 …, or NAME_aa, NAME_ab …) is opened as one archive.
// When opts.Name is empty the path is used as the display name.
func Open(path string, opts *archive.Options) (archive.Reader, error) {
	o := archive.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = path
	}
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	if r, ok, err := openZIPSet(path, &o); ok {
		return r, err
	}
	if parts := SplitParts(path); parts != nil {
		return openSplit(path, parts, &o)
	}
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory: %w", path, archive.ErrNotArchive)
	}
	size := st.Size()
	if size == 0 {
		f.Close()
		return nil, fmt.Errorf("%s: %w (empty file)", path, archive.ErrNotArchive)
	}
	if r, ok, err := openLeading(f, size, &o); ok {
		if err != nil {
			f.Close()
			return nil, err
		}
		return &fileReader{Reader: withVolumes(r, []string{path}), files: f}, nil
	}
	d, ok, err := Detect(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !ok {
		if r, ok, err := openFallback(f, size, &o); ok {
			if err != nil {
				f.Close()
				return nil, err
			}
			return &fileReader{Reader: withVolumes(r, []string{path}), files: f}, nil
		}
		err := notArchive(path, f, size)
		f.Close()
		return nil, err
	}
	switch d.Format {
	case archive.Format7z:
		r, err := newSevenZip(io.NewSectionReader(f, d.Offset, size-d.Offset), size-d.Offset, &o)
		if err != nil {
			f.Close()
			return nil, err
		}
		info := r.Info()
		info.SFXOffset = d.Offset
		if len(info.Volumes) == 0 {
			info.Volumes = []string{path}
		}
		return &fileReader{Reader: r, files: f}, nil
	default:
		// The RAR reader takes the file over (it closes it, also when it
		// fails), finds the signature again (trying later candidates in
		// an SFX stub) and opens the other volumes by name.
		return openRAR(f, size, path, &o)
	}
}

// openSplit opens a raw split as one archive.
func openSplit(path string, parts []string, o *archive.Options) (archive.Reader, error) {
	m, files, err := openParts(parts)
	if err != nil {
		return nil, err
	}
	return openJoined(path, m, m.Size(), files, parts, o)
}

// openJoined opens the archive in src (size bytes), read from the files
// volumes (a raw split's parts, or the temporary copy of a stream) that
// files closes: the returned Reader owns files, which is closed here when
// opening fails. path names the archive in errors.
func openJoined(path string, src io.ReaderAt, size int64, files io.Closer, volumes []string, o *archive.Options) (archive.Reader, error) {
	defer func() {
		if files != nil {
			files.Close()
		}
	}()
	if r, ok, err := openLeading(src, size, o); ok {
		if err != nil {
			return nil, err
		}
		fr := &fileReader{Reader: withVolumes(r, volumes), files: files}
		files = nil // owned by fr now
		return fr, nil
	}
	d, ok, err := Detect(src, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !ok {
		if r, ok, err := openFallback(src, size, o); ok {
			if err != nil {
				return nil, err
			}
			fr := &fileReader{Reader: withVolumes(r, volumes), files: files}
			files = nil
			return fr, nil
		}
		return nil, notArchive(volumes[0], src, size)
	}
	sec := io.NewSectionReader(src, d.Offset, size-d.Offset)
	var r archive.Reader
	if d.Format == archive.Format7z {
		r, err = newSevenZip(sec, size-d.Offset, o)
	} else {
		r, err = newRAR(sec, size-d.Offset, o)
	}
	if err != nil {
		return nil, err
	}
	info := r.Info()
	info.SFXOffset = d.Offset
	info.Volumes = append([]string(nil), volumes...)
	fr := &fileReader{Reader: r, files: files}
	files = nil // owned by fr now
	return fr, nil
}

// fileReader is a format Reader that also owns the files it reads.
type fileReader struct {
	archive.Reader
	files io.Closer // the archive file, or the parts of a split
}

// Close closes the format reader and then the files.
func (r *fileReader) Close() error {
	err := r.Reader.Close()
	if cerr := r.files.Close(); err == nil {
		err = cerr
	}
	return err
}

// SplitParts returns the parts of the raw split that path belongs to, in
// order, or nil when path is not part of one. NAME.NNN (three or more
// digits) is a split when NAME.001 (with the same number of digits)
// exists; NAME_aa … NAME_zz is one when NAME_aa and NAME_ab exist. The
// parts run from the first one up to the first missing number.
func SplitParts(path string) []string {
	dir, base := filepath.Split(path)
	if stem, digits, ok := numericSuffix(base); ok {
		first := filepath.Join(dir, stem+fmt.Sprintf("%0*d", digits, 1))
		if !isFile(first) && digits > 3 && base[len(stem)] != '0' {
			// Part 1000 and later of a split numbered from .001: the
			// numbers grow beyond three digits.
			digits = 3
			first = filepath.Join(dir, stem+"001")
		}
		if !isFile(first) {
			return nil
		}
		parts := []string{first}
		for i := 2; ; i++ {
			p := filepath.Join(dir, stem+fmt.Sprintf("%0*d", digits, i))
			if !isFile(p) {
				break
			}
			parts = append(parts, p)
		}
		return parts
	}
	if stem, ok := alphaSuffix(base); ok {
		first := filepath.Join(dir, stem+"aa")
		if !isFile(first) || !isFile(filepath.Join(dir, stem+"ab")) {
			return nil
		}
		parts := []string{first}
		for i := 1; i < 26*26; i++ {
			p := filepath.Join(dir, stem+string(rune('a'+i/26))+string(rune('a'+i%26)))
			if !isFile(p) {
				break
			}
			parts = append(parts, p)
		}
		return parts
	}
	return nil
}

// numericSuffix splits "name.7z.002" into "name.7z.", 3. The number must
// have at least three digits and be at least 1.
func numericSuffix(base string) (stem string, digits int, ok bool) {
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return "", 0, false
	}
	num := base[dot+1:]
	if len(num) < 3 || len(num) > 6 {
		return "", 0, false
	}
	allZero := true
	for _, c := range num {
		if c < '0' || c > '9' {
			return "", 0, false
		}
		if c != '0' {
			allZero = false
		}
	}
	if allZero {
		return "", 0, false
	}
	return base[:dot+1], len(num), true
}

// alphaSuffix splits "name_ab" into "name_".
func alphaSuffix(base string) (string, bool) {
	if len(base) < 4 || base[len(base)-3] != '_' {
		return "", false
	}
	a, b := base[len(base)-2], base[len(base)-1]
	if a < 'a' || a > 'z' || b < 'a' || b > 'z' {
		return "", false
	}
	return base[:len(base)-2], true
}

// checkRegular refuses anything but a regular file (or a directory, which
// Open reports itself) before it is opened: opening a FIFO or a device
// could block forever or read without end.
func checkRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return fmt.Errorf("%s: not a regular file (%s): %w", path, st.Mode().Type(), archive.ErrNotArchive)
	}
	return nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
