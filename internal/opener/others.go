package opener

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// The readers of the formats recognised by their first bytes rather than
// by a signature scan: ZIP, tar and the single-stream compressions.
var (
	newZIP       = zip.NewReader
	newZIPSplit  = zip.NewSplitReader
	openTar      = tar.Open
	openStream   = stream.OpenFile
	zipLocalSig  = []byte("PK\x03\x04")
	zipEmptySig  = []byte("PK\x05\x06")
	zipSpanSig   = []byte("PK\x07\x08PK\x03\x04") // first part of a spanned set
	headSizeMore = 1024
)

// leadingFormat recognises the formats whose mark is at the very start of
// the file: a ZIP local header (or the end record of an empty ZIP), a
// compressed stream, a tar header. It reports ok=false for anything else,
// including 7z and RAR, which Detect handles.
func leadingFormat(head []byte) (f archive.Format, kind stream.Kind, ok bool) {
	switch {
	case bytes.HasPrefix(head, zipLocalSig), bytes.HasPrefix(head, zipSpanSig),
		bytes.HasPrefix(head, zipEmptySig) && len(head) == 22:
		return "zip", 0, true
	}
	if k, ok := stream.Identify(head[:min(len(head), stream.HeadSize)]); ok {
		return archive.Format(k.String()), k, true
	}
	if tar.IsHeader(head) {
		return "tar", 0, true
	}
	return "", 0, false
}

// openLeading opens src (size bytes) as a ZIP, tar or compressed file when
// its first bytes say it is one; ok is false when they do not.
func openLeading(src io.ReaderAt, size int64, o *archive.Options) (r archive.Reader, ok bool, err error) {
	head := make([]byte, min(size, int64(headSizeMore)))
	n, err := src.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, true, err
	}
	head = head[:n]
	if _, at7zOrRAR := detectAtStart(head); at7zOrRAR {
		return nil, false, nil
	}
	format, kind, ok := leadingFormat(head)
	if !ok {
		return nil, false, nil
	}
	switch {
	case format == "zip":
		r, err = newZIP(io.NewSectionReader(src, 0, size), size, o)
	case format == "tar":
		r, err = openTar(src, size, 0, o)
	default:
		// A compressed stream: a tar inside is read as the archive, as
		// bsdtar and GNU tar do; anything else is one compressed file.
		r, err = openCompressed(src, size, kind, o)
	}
	return r, true, err
}

// openCompressed opens a compressed stream, looking into its start to
// tell a compressed tar from a compressed file: a tar header, or an empty
// tar (isEmptyTar), is opened as a tar, read through first when the name
// does not say tar (checkTar, tarinside.go). A stream whose start cannot be
// decoded within the memory limit (a zstd window, an xz dictionary above
// --max-dict) fails here with that limit, whatever it holds: listed as a
// compressed file it would say nothing of what x then refuses.
func openCompressed(src io.ReaderAt, size int64, kind stream.Kind, o *archive.Options) (archive.Reader, error) {
	d, h, err := stream.NewDecoder(kind, io.NewSectionReader(src, 0, size), o.Limit(), 1)
	if err == nil {
		inner := make([]byte, 1024)
		n, rerr := io.ReadFull(d, inner)
		isTar := tar.IsHeader(inner[:n]) || tar.IsEmpty(inner[:n]) && isEmptyTar(d, h, n)
		d.Close()
		if errors.Is(rerr, archive.ErrLimit) {
			return nil, limitError(o.Name, rerr)
		}
		if isTar {
			r, err := openTar(src, size, kind, o)
			if _, once := src.(*onePass); err != nil || once || tarNamed(kind, o.Name, h) {
				return r, err
			}
			return checkTar(src, size, kind, r, o)
		}
	}
	return openStream(src, size, kind, o)
}

// limitError names the archive in err, a limit its stream exceeds.
func limitError(name string, err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) && ae.Archive == "" {
		e := *ae
		e.Archive = name
		return &e
	}
	return &archive.Error{Archive: name, Offset: -1, Err: err}
}

// maxEmptyTar is the largest empty tar recognised inside a compressed
// stream: a record of 128 blocks (tar -b 128). GNU tar, bsdtar and
// Python's tarfile write one record of 20 blocks (10 KiB), Go's
// archive/tar two blocks.
const maxEmptyTar = 128 * 512

// isEmptyTar tells whether the rest of a decoded stream whose first n
// bytes (at least two blocks) are zero keeps them company: an empty tar is
// nothing but whole zero blocks, at most maxEmptyTar bytes, as
// "tar czf e.tar.gz -T /dev/null" writes it, and GNU tar and bsdtar
// extract nothing from it. A longer run of zeros, one that is not whole
// blocks, or one a gzip header names (a file other than a .tar, gzip'd
// by name) is a compressed file. A stream that fails to decode is left to
// the stream reader, which reports the damage.
func isEmptyTar(d io.Reader, h stream.Header, n int) bool {
	if h.Name != "" && !strings.HasSuffix(strings.ToLower(h.Name), ".tar") {
		return false
	}
	buf := make([]byte, 4096)
	for n <= maxEmptyTar {
		k, err := d.Read(buf)
		if !allZero(buf[:k]) {
			return false
		}
		n += k
		if err == io.EOF {
			return n <= maxEmptyTar && n%512 == 0
		}
		if err != nil {
			return false
		}
	}
	return false
}

// openFallback is tried when no format marks the start of src and no 7z or
// RAR signature follows a stub: a ZIP whose local headers do not start the
// file (a self-extractor or other prefix; zip.NewReader finds the end
// record itself), else an empty tar (nothing but zero blocks; checked last,
// since self-extractor stubs can start with zeros too). ok is false when
// src is neither.
func openFallback(src io.ReaderAt, size int64, o *archive.Options) (r archive.Reader, ok bool, err error) {
	tail := make([]byte, min(size, 65536+22))
	n, err := src.ReadAt(tail, size-int64(len(tail)))
	if err != nil && err != io.EOF {
		return nil, true, err
	}
	if bytes.Contains(tail[:n], zipEmptySig) {
		r, err = newZIP(io.NewSectionReader(src, 0, size), size, o)
		return r, true, err
	}
	head := make([]byte, min(size, 1024))
	if n, _ := src.ReadAt(head, 0); tar.IsEmpty(head[:n]) {
		r, err = openTar(src, size, 0, o)
		return r, true, err
	}
	return nil, false, nil
}

// withVolumes records the files an archive was read from when its reader
// did not.
func withVolumes(r archive.Reader, files []string) archive.Reader {
	if info := r.Info(); len(info.Volumes) == 0 {
		info.Volumes = append([]string(nil), files...)
	}
	return r
}

// openZIPSet opens a PKWARE split or spanned set (NAME.z01, NAME.z02, …,
// NAME.zip) when path is one of its parts: NAME.zip whose end record
// names more disks than one, or NAME.zNN beside such a NAME.zip (7-Zip
// opens the set from either). ok is false when path is not part of a set;
// a NAME.zip that opens on its own is returned as it is. A .zNN that
// starts like a ZIP but has no NAME.zip fails naming NAME.zip.
func openZIPSet(path string, o *archive.Options) (r archive.Reader, ok bool, err error) {
	zipPath, partName, ok := zipSetNames(path)
	if !ok {
		return nil, false, nil
	}
	if zipPath != path {
		// A .zNN part: the set is read from NAME.zip.
		if _, err := os.Stat(zipPath); err != nil {
			if startsLikeZIP(path) {
				return nil, true, fmt.Errorf("%s: part of a split ZIP set whose last part %s cannot be read: %w",
					path, filepath.Base(zipPath), err)
			}
			return nil, false, nil
		}
	} else if _, err := os.Stat(partName(1)); err != nil {
		return nil, false, nil // no NAME.z01: an ordinary .zip
	}
	f, err := openFile(zipPath)
	if err != nil {
		return nil, true, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, false, nil
	}
	r, err = newZIP(io.NewSectionReader(f, 0, st.Size()), st.Size(), o)
	var set *zip.SplitSetError
	switch {
	case err == nil && zipPath == path:
		return &fileReader{Reader: withVolumes(r, []string{path}), files: f}, true, nil
	case err == nil:
		r.Close()
		f.Close()
		return nil, false, nil // NAME.zip is complete: the .zNN is not its part
	case !errors.As(err, &set):
		f.Close()
		if zipPath == path {
			return nil, true, err
		}
		return nil, false, nil
	}
	f.Close()
	paths := make([]string, set.Parts)
	for i := 1; i < set.Parts; i++ {
		paths[i-1] = partName(i)
	}
	paths[set.Parts-1] = zipPath
	m, files, err := openParts(paths)
	if err != nil {
		return nil, true, fmt.Errorf("%s: split ZIP set of %d parts: %w", zipPath, set.Parts, err)
	}
	r, err = newZIPSplit(m, files.sizes, o)
	if err != nil {
		files.Close()
		return nil, true, err
	}
	r.Info().Volumes = paths
	return &fileReader{Reader: r, files: files}, true, nil
}

// zipSetNames tells whether path is named as a part of a PKWARE split set
// (NAME.zip or NAME.zNN, any case) and returns the path of NAME.zip and a
// function naming part i (1-based) as Info-ZIP does: NAME.z01 … NAME.z99,
// NAME.z100 …, in the case of the .zip's extension.
func zipSetNames(path string) (zipPath string, partName func(int) string, ok bool) {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	switch {
	case strings.EqualFold(ext, ".zip"):
		zipPath = path
	case len(ext) >= 4 && (ext[1] == 'z' || ext[1] == 'Z') && isDigits(ext[2:]):
		zipPath = base + ext[:2] + "ip"
		if ext[1] == 'Z' {
			zipPath = base + ".ZIP"
		}
		if _, err := os.Stat(zipPath); err != nil && ext[1] == 'z' {
			if _, err := os.Stat(base + ".ZIP"); err == nil {
				zipPath = base + ".ZIP"
			}
		}
	default:
		return "", nil, false
	}
	z := "z"
	if strings.HasSuffix(zipPath, ".ZIP") {
		z = "Z"
	}
	partName = func(i int) string {
		return fmt.Sprintf("%s.%s%02d", base, z, i)
	}
	return zipPath, partName, true
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// startsLikeZIP reports whether the file at path begins with a ZIP local
// header or the spanning marker.
func startsLikeZIP(path string) bool {
	f, err := openFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(zipSpanSig))
	n, _ := io.ReadFull(f, head)
	return bytes.HasPrefix(head[:n], zipLocalSig) || bytes.HasPrefix(head[:n], zipSpanSig)
}

// Streaming passes on the format reader's Streaming (see tar.Reader): true
// while a compressed tar's entry list is unread, so that a caller working
// from Extract's callbacks alone should not call Entries first.
func (r *fileReader) Streaming() bool {
	s, ok := r.Reader.(interface{ Streaming() bool })
	return ok && s.Streaming()
}

// Err passes on the format reader's Err (see tar.Reader): the error that
// ended the reading of the entry list early, which Entries cannot return.
func (r *fileReader) Err() error {
	if e, ok := r.Reader.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// Skipped passes on the format reader's Skipped (see tar.Reader): the
// device and FIFO entries left out of the listing, for a warning.
func (r *fileReader) Skipped() []string {
	if s, ok := r.Reader.(interface{ Skipped() []string }); ok {
		return s.Skipped()
	}
	return nil
}
