package opener

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
)

// A compressed file whose content starts with a tar header is read as a
// tar. When the name says so (x.tar.gz, x.tgz, x.tar.zst, or a gzip
// header naming x.tar) the tar is what the file is meant to hold, and a
// tar that breaks off inside it is a damaged tar: the error GNU tar and
// bsdtar report too. Any other name (data.xz, a blob without extension)
// says only that the file is compressed, as 7-Zip reads it: its content
// may begin like a tar and go on with something else (a tar followed by
// other data, a tar cut short). Such a tar's headers are therefore read
// through when it is opened; where they break off while the compressed
// stream itself is whole, the file is read as one compressed file, as
// 7-Zip does, with a warning that names where the tar ended
// (OpenWarnings). The price is a second decoding of the stream for x and
// t of a compressed tar so named. A stream from a pipe, read once, is
// read as a tar.

// tarNamed tells whether the name of a compressed file of kind k (the
// archive's name, or the name its gzip header records) says that it holds
// a tar: its content's default name ends in .tar (x.tar.gz, x.tgz,
// x.tbz2, x.txz, x.tzst, x.apk), also behind a split's .001.
func tarNamed(k stream.Kind, name string, h stream.Header) bool {
	base := filepath.Base(name)
	if stem, _, ok := numericSuffix(base); ok {
		base = strings.TrimSuffix(stem, ".")
	}
	isTar := func(s string) bool { return strings.HasSuffix(strings.ToLower(s), ".tar") }
	return isTar(stream.StoredName(k, base, stream.Header{})) || h.Name != "" && isTar(h.Name)
}

// checkTar reads the headers of r, a compressed tar in src whose name
// does not say tar, and on to the end of the stream (tar.Reader's
// ReadToEnd: one decoding), and returns the reader to use: r when they
// read through to an end followed by nothing but zeros (or fail for
// another reason than their format, or in a damaged stream), else, when
// the compressed stream decodes whole, the stream as one file with the
// warning that it is not a tar.
func checkTar(src io.ReaderAt, size int64, kind stream.Kind, r *tar.Reader, o *archive.Options) (archive.Reader, error) {
	r.ReadToEnd()
	r.Entries()
	terr := r.Err()
	after, rerr := r.Trailing()
	var why string
	switch {
	case terr == nil && (after < 0 || rerr != nil):
		return r, nil // a whole tar, or a damaged stream after it: as a .tar.* is read
	case terr == nil:
		why = fmt.Sprintf("the tar ends before offset %d of the decompressed data, where other data follows", after)
	case !errors.Is(terr, archive.ErrFormat) || rerr != nil:
		return r, nil // a limit, or the stream is damaged: the tar's error says where
	default:
		why = terr.Error()
		var ae *archive.Error
		if errors.As(terr, &ae) {
			why = ae.Err.Error()
		}
		why = strings.TrimSuffix(why, ": "+archive.ErrFormat.Error())
	}
	f, err := openStream(src, size, kind, o)
	if err != nil {
		return r, nil
	}
	return &notTar{File: f, warning: fmt.Errorf("its content begins like a tar but is not one (%s): read as one %s file", why, kind)}, nil
}

// notTar is a compressed file read as one file after the tar its content
// begins with broke off.
type notTar struct {
	*stream.File
	warning error
}

// OpenWarnings returns what opening r found worth a warning that does not
// stop the reading: a compressed file whose content began like a tar but
// was not one, read as one compressed file.
func OpenWarnings(r archive.Reader) []error {
	if fr, ok := r.(*fileReader); ok {
		r = fr.Reader
	}
	if nt, ok := r.(*notTar); ok {
		return []error{nt.warning}
	}
	return nil
}
