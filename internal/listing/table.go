package listing

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// WriteTable prints 7-Zip's table listing of the entries want selects:
// the archive block, column titles, a row per entry as it is visited
// (WriteRows) and the totals. Like every listing it writes through a
// printable.Writer: no control or format character reaches w, whatever
// the archive holds.
func WriteTable(w io.Writer, name string, info *archive.Info, all []*archive.Entry, want func(*archive.Entry) bool) {
	w = printable.NewWriter(w)
	writeArchiveBlock(w, name, info, all)
	fmt.Fprintln(w)
	const rule = "------------------- ----- ------------ ------------  ------------------------"
	fmt.Fprintln(w, "   Date      Time    Attr         Size   Compressed  Name")
	fmt.Fprintln(w, rule)
	t := writeRows(w, all, want)
	fmt.Fprintln(w, rule)
	summary := fmt.Sprintf("%d files", t.Files)
	if t.Dirs > 0 {
		summary += fmt.Sprintf(", %d folders", t.Dirs)
	}
	date := strings.Repeat(" ", 19)
	if !t.ModTime.IsZero() {
		date = t.ModTime.Local().Format("2006-01-02 15:04:05")
	}
	size := strings.Repeat(" ", 12)
	if !t.SizeUnknown {
		size = fmt.Sprintf("%12d", t.Size)
	}
	fmt.Fprintf(w, "%s       %s %12d  %s\n", date, size, t.Packed, summary)
}

// writeArchiveBlock prints the archive block that opens both of 7-Zip's
// listings, in the words 7-Zip uses for the archive's format.
func writeArchiveBlock(w io.Writer, name string, info *archive.Info, all []*archive.Entry) {
	if rawSplit(info) {
		// 7-Zip lists the split first, then the archive it holds,
		// named without ".001".
		name = writeSplitBlock(w, name, info)
		inner := *info
		inner.Volumes = nil
		info = &inner
	}
	switch d := info.Details.(type) {
	case *zip.Details:
		writeZipArchiveBlock(w, name, info, d)
	case *tar.Details:
		writeTarArchiveBlock(w, name, info, d, all)
	case *stream.Details:
		writeStreamArchiveBlock(w, name, info, d)
	default:
		writeArchiveHeader(w, name, info, all)
	}
}

// Totals are the sums under the table's rows.
type Totals struct {
	Size, Packed int64 // bytes unpacked and packed
	Files, Dirs  int
	// SizeUnknown is set when a file's size is unknown (a stream
	// without a size record): Size is then only a lower bound and the
	// table leaves the total blank.
	SizeUnknown bool
	// ModTime is the newest modification time, which 7-Zip prints on
	// the totals line.
	ModTime time.Time
}

// WriteRows prints the table row of each entry want selects (7-Zip's
// `l -ba` prints only these), with no allocation per row beyond names
// that need escaping, and returns the totals.
func WriteRows(w io.Writer, all []*archive.Entry, want func(*archive.Entry) bool) Totals {
	return writeRows(printable.NewWriter(w), all, want)
}

// writeRows is WriteRows writing to w, a printable.Writer.
func writeRows(w io.Writer, all []*archive.Entry, want func(*archive.Entry) bool) (t Totals) {
	line := make([]byte, 0, 256)
	for _, e := range all {
		if !want(e) {
			continue
		}
		line = line[:0]
		if e.ModTime.IsZero() {
			line = append(line, "                   "...)
		} else {
			line = e.ModTime.Local().AppendFormat(line, "2006-01-02 15:04:05")
			if e.ModTime.After(t.ModTime) {
				t.ModTime = e.ModTime
			}
		}
		line = append(line, ' ')
		line = appendAttr(line, e)
		line = append(line, ' ')
		if e.Size >= 0 {
			line = appendPadded(line, e.Size, 12)
			t.Size += e.Size
		} else {
			line = append(line, "            "...)
			t.SizeUnknown = t.SizeUnknown || !e.IsDir()
		}
		line = append(line, ' ')
		if e.PackedSize > 0 || e.IsDir() || e.Size == 0 {
			// Entries without data pack to 0, as 7-Zip shows them; a
			// file inside a solid block beyond its first has no size
			// of its own and is left blank.
			line = appendPadded(line, e.PackedSize, 12)
			t.Packed += e.PackedSize
		} else {
			line = append(line, "            "...)
		}
		line = append(line, ' ', ' ')
		line = printable.Append(line, e.Name)
		switch {
		case TargetOmitted(e):
			// A target stored as the link's data (7z, ZIP, RAR 2.9–4.x)
			// that the listing did not decode: marked, not blank.
			line = append(line, " -> ?"...)
		case e.LinkTarget == "":
		case e.Type == archive.TypeSymlink:
			line = append(line, " -> "...)
			line = printable.Append(line, e.LinkTarget)
		case e.Type == archive.TypeHardlink, e.Type == archive.TypeCopy:
			line = append(line, " => "...)
			line = printable.Append(line, e.LinkTarget)
		}
		if e.IsDir() {
			t.Dirs++
		} else {
			t.Files++
		}
		line = append(line, '\n')
		w.Write(line)
	}
	return t
}

// TargetOmitted reports whether e is a symbolic link whose target was not
// decoded for the listing: 7z, ZIP and RAR 1.5–4.x store a link's target
// as its data, which a listing decodes only for links of at most 4 KiB in
// unencrypted data, within 2 MiB of decoding per archive (the data in
// front of a link in a solid block included). Extract fills the others.
func TargetOmitted(e *archive.Entry) bool {
	return e.Type == archive.TypeSymlink && e.LinkTarget == ""
}

// CountTargetsOmitted counts the entries of all that want selects (nil:
// all) whose link targets were not decoded (TargetOmitted).
func CountTargetsOmitted(all []*archive.Entry, want func(*archive.Entry) bool) int {
	n := 0
	for _, e := range all {
		if TargetOmitted(e) && (want == nil || want(e)) {
			n++
		}
	}
	return n
}

// appendPadded appends v right-aligned in a field of width bytes.
func appendPadded(b []byte, v int64, width int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, d...)
}

// WriteNames prints the name of each entry want selects, one a line,
// escaped for the terminal (unrar's lb).
func WriteNames(w io.Writer, all []*archive.Entry, want func(*archive.Entry) bool) {
	w = printable.NewWriter(w)
	line := make([]byte, 0, 256)
	for _, e := range all {
		if want(e) {
			line = append(printable.Append(line[:0], e.Name), '\n')
			w.Write(line)
		}
	}
}
