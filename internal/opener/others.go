package opener

import (
	"bytes"
	"io"

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
	if tar.IsHeader(head) || tar.IsEmpty(head) {
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

// openCompressed opens a compressed stream, looking into its first
// kilobyte to tell a compressed tar from a compressed file. Only a real
// header counts: compressed zeros are a file, not an empty tar.
func openCompressed(src io.ReaderAt, size int64, kind stream.Kind, o *archive.Options) (archive.Reader, error) {
	d, _, err := stream.NewDecoder(kind, io.NewSectionReader(src, 0, size), o.Limit(), 1)
	if err == nil {
		inner := make([]byte, 1024)
		n, _ := io.ReadFull(d, inner)
		d.Close()
		if tar.IsHeader(inner[:n]) {
			return openTar(src, size, kind, o)
		}
	}
	return openStream(src, size, kind, o)
}

// openZIPByEnd opens src as a ZIP whose local headers do not start the file
// (a self-extractor or other prefix): zip.NewReader finds the end record
// itself. ok is false when there is no end record in the last 64 KiB.
func openZIPByEnd(src io.ReaderAt, size int64, o *archive.Options) (r archive.Reader, ok bool, err error) {
	tail := make([]byte, min(size, 65536+22))
	n, err := src.ReadAt(tail, size-int64(len(tail)))
	if err != nil && err != io.EOF {
		return nil, true, err
	}
	if !bytes.Contains(tail[:n], zipEmptySig) {
		return nil, false, nil
	}
	r, err = newZIP(io.NewSectionReader(src, 0, size), size, o)
	return r, true, err
}

// withVolumes records the files an archive was read from when its reader
// did not.
func withVolumes(r archive.Reader, files []string) archive.Reader {
	if info := r.Info(); len(info.Volumes) == 0 {
		info.Volumes = append([]string(nil), files...)
	}
	return r
}
