package listing

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
)

// singleFormatExt returns, for a file name extension, the one format 7-Zip
// registers it for, by 7-Zip's name. 7-Zip first tries that format at the
// start of the file; when the archive is another format, or starts later
// in the file, its listing opens with a warning (openWarning). Extensions
// 7-Zip registers for several formats (rar, r00, apk, img, iso, swf) are
// left out, and so are those of executables (exe, dll, elf, macho),
// whose self-extractor stubs 7-Zip opens as executables first.
func singleFormatExt(ext string) (string, bool) {
	switch ext {
	case "7z":
		return "7z", true
	case "zip", "z01", "zipx", "jar", "xpi", "odt", "ods", "docx", "xlsx", "epub", "ipa", "appx":
		return "zip", true
	case "tar", "ova":
		return "tar", true
	case "gz", "gzip", "tgz", "tpz":
		return "gzip", true
	case "bz2", "bzip2", "tbz2", "tbz":
		return "bzip2", true
	case "xz", "txz":
		return "xz", true
	case "lzma":
		return "lzma", true
	case "zst", "tzst":
		return "zstd", true
	case "cab":
		return "Cab", true
	case "arj":
		return "Arj", true
	case "cpio":
		return "Cpio", true
	case "lzh", "lha":
		return "Lzh", true
	case "rpm":
		return "Rpm", true
	case "dmg":
		return "Dmg", true
	case "wim", "swm", "esd":
		return "wim", true
	case "xar", "pkg":
		return "Xar", true
	case "z", "taz":
		return "Z", true
	case "vhd":
		return "VHD", true
	case "vhdx":
		return "VHDX", true
	case "vmdk":
		return "VMDK", true
	case "vdi":
		return "VDI", true
	case "qcow", "qcow2":
		return "QCOW", true
	case "msi", "doc", "xls", "ppt":
		return "Compound", true
	case "deb", "ar":
		return "Ar", true
	}
	return "", false
}

// outerTypeName is 7-Zip's name of the format it opens first for a garc
// format: the compression of a compressed tar ("tar.gz" is a gzip file
// holding a tar), otherwise the format's own Type.
func outerTypeName(f archive.Format) string {
	switch f {
	case "tar.gz":
		return "gzip"
	case "tar.bz2":
		return "bzip2"
	case "tar.xz":
		return "xz"
	case "tar.zst":
		return "zstd"
	case "tar.lzma":
		return "lzma"
	}
	return sevenZipTypeName(f)
}

// openWarning is the line 7-Zip's listings print after the Path of an
// archive that its name's extension did not open: "Open WARNING: Cannot
// open the file as [7z] archive" for a zip named x.7z, and "Warning: The
// archive is open with offset" for an archive of the extension's format
// whose data starts after a stub (atOffset); "" otherwise.
func openWarning(name string, f archive.Format, atOffset bool) string {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	want, ok := singleFormatExt(ext)
	switch {
	case !ok:
		return ""
	case want != outerTypeName(f):
		return "Open WARNING: Cannot open the file as [" + want + "] archive"
	case atOffset:
		return "Warning: The archive is open with offset"
	}
	return ""
}

// writePathAndType prints the first keys of an archive block: Path, the
// open warning 7-Zip gives (openWarning) and Type.
func writePathAndType(w io.Writer, name string, info *archive.Info, atOffset bool) {
	fmt.Fprintf(w, "Path = %s\n", printable.String(name))
	if s := openWarning(name, info.Format, atOffset); s != "" {
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "Type = %s\n", sevenZipTypeName(info.Format))
}

// appendSLTMultiLine appends a value of an archive block as 7-Zip prints
// it: as it is when it has one line, otherwise (a comment of several
// lines) on the lines after the key between "{" and "}", CRLF read as
// LF, each line escaped for the terminal.
func appendSLTMultiLine(b []byte, s string) []byte {
	if !strings.Contains(s, "\n") {
		return printable.Append(b, s)
	}
	b = append(b, "\n{\n"...)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		b = append(printable.Append(b, line), '\n')
		s = rest
	}
	return append(b, '}')
}

// sltValue renders an entry's text value as 7-Zip's -slt prints it to a
// pipe: line feeds as '_', then escaped for the terminal.
func sltValue(s string) string {
	return printable.String(strings.ReplaceAll(s, "\n", "_"))
}

// rawSplit reports whether the archive was read from a raw split
// (NAME.001, NAME.002 …), which 7-Zip lists as a container of its own.
func rawSplit(info *archive.Info) bool {
	return len(info.Volumes) > 1 && strings.HasSuffix(info.Volumes[0], ".001")
}

// writeSplitBlock prints what 7-Zip's listings give a raw split before
// the archive it holds: the split's block (Path, Type = Split, the first
// part's Physical Size, Volumes, Total Physical Size), then the one item
// of the split (the name without ".001" and its size), and returns that
// name, the Path of the archive's own block. Part sizes that cannot be
// read leave their keys out.
func writeSplitBlock(w io.Writer, name string, info *archive.Info) string {
	stem := strings.TrimSuffix(filepath.Base(info.Volumes[0]), ".001")
	fmt.Fprintf(w, "Path = %s\nType = Split\n", printable.String(name))
	var total int64
	for i, p := range info.Volumes {
		st, err := os.Stat(p)
		if err != nil {
			total = -1
			break
		}
		if i == 0 {
			fmt.Fprintf(w, "Physical Size = %d\n", st.Size())
		}
		total += st.Size()
	}
	fmt.Fprintf(w, "Volumes = %d\n", len(info.Volumes))
	if total >= 0 {
		fmt.Fprintf(w, "Total Physical Size = %d\n", total)
	}
	fmt.Fprintf(w, "----\nPath = %s\n", printable.String(stem))
	if total >= 0 {
		fmt.Fprintf(w, "Size = %d\n", total)
	}
	fmt.Fprintf(w, "--\n")
	return stem
}
