package listing

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// sltTime formats a time as 7-Zip's -slt does, in local time with
// 100-nanosecond digits.
func sltTime(t time.Time) string { return string(appendSLTTime(nil, t)) }

// appendSLTTime appends what sltTime returns.
func appendSLTTime(b []byte, t time.Time) []byte {
	return t.Local().AppendFormat(b, "2006-01-02 15:04:05.0000000")
}

// archiveMethods renders Info.Methods for the header block. 7-Zip names
// 7zAES without its key-derivation cost there ("LZMA2:24 7zAES"), though
// the entries carry it ("7zAES:19").
func archiveMethods(info *archive.Info) string {
	ms := make([]string, len(info.Methods))
	for i, m := range info.Methods {
		fields := strings.Fields(m)
		for j, f := range fields {
			if info.Format == archive.Format7z && strings.HasPrefix(f, "7zAES:") {
				fields[j] = "7zAES"
			}
		}
		ms[i] = strings.Join(fields, " ")
	}
	return strings.Join(ms, " ")
}

// sevenZipTypeName returns 7-Zip's name of a format for the Type key:
// "7z", "Rar5", and "Rar" for every older RAR (the JSON listing keeps
// garc's finer names).
func sevenZipTypeName(f archive.Format) string {
	switch f {
	case archive.FormatRAR5:
		return "Rar5"
	case archive.FormatRAR4, archive.FormatRAR14:
		return "Rar"
	}
	return string(f)
}

// writeArchiveHeader prints the archive block of 7-Zip's listings: Path,
// Type, Physical Size, Headers Size (7z: archive bytes that are not
// packed streams), Method, Solid and Blocks (7z: the number of folders),
// then what garc knows beyond that (SFX offset, volumes, RAR flags,
// comment). all are every entry of the archive, for the 7z counts.
func writeArchiveHeader(w io.Writer, name string, info *archive.Info, all []*archive.Entry) {
	writePathAndType(w, name, info, info.SFXOffset > 0)
	if info.SFXOffset > 0 {
		fmt.Fprintf(w, "Offset = %d\n", info.SFXOffset)
	}
	if info.PhysicalSize > 0 {
		fmt.Fprintf(w, "Physical Size = %d\n", info.PhysicalSize)
	}
	is7z := info.Format == archive.Format7z
	var counts sevenZipCounts
	if is7z {
		counts = countSevenZip(info, all)
		if counts.headersSize >= 0 {
			fmt.Fprintf(w, "Headers Size = %d\n", counts.headersSize)
		}
	}
	if m := sevenZipArchiveMethods(all); is7z && m != "" {
		fmt.Fprintf(w, "Method = %s\n", printable.String(m))
	} else if len(info.Methods) > 0 {
		fmt.Fprintf(w, "Method = %s\n", printable.String(archiveMethods(info)))
	}
	fmt.Fprintf(w, "Solid = %s\n", plusMinus(info.Solid))
	if is7z {
		fmt.Fprintf(w, "Blocks = %d\n", counts.blocks)
	}
	if len(info.Volumes) > 1 {
		fmt.Fprintf(w, "Volumes = %d\n", len(info.Volumes))
	}
	if info.EncryptedHeaders && !is7z {
		// 7-Zip shows encrypted 7z headers only through the method.
		fmt.Fprintf(w, "Encrypted = +\n")
	}
	if info.Locked {
		fmt.Fprintf(w, "Locked = +\n")
	}
	if info.RecoveryRecord {
		fmt.Fprintf(w, "Recovery Record = +\n")
	}
	if info.Comment != "" {
		fmt.Fprintf(w, "Comment = %s\n", appendSLTMultiLine(nil, info.Comment))
	}
}

// sevenZipCounts are the archive figures of a 7z archive that 7-Zip's
// listings show and garc derives from the entries.
type sevenZipCounts struct {
	headersSize int64 // bytes that are not packed streams; -1 when unknown
	blocks      int   // folders holding entries' data
}

// countSevenZip derives a 7z archive's Headers Size (the physical size
// less every entry's packed bytes) and Blocks (the folders) from all, its
// entries.
func countSevenZip(info *archive.Info, all []*archive.Entry) sevenZipCounts {
	c := sevenZipCounts{headersSize: -1}
	var packed int64
	blocks := map[int32]bool{}
	for _, e := range all {
		packed += e.PackedSize
		if e.Block >= 0 {
			blocks[e.Block] = true
		}
	}
	if info.PhysicalSize > 0 && packed <= info.PhysicalSize {
		c.headersSize = info.PhysicalSize - packed
	}
	c.blocks = len(blocks)
	return c
}

// WriteSLT prints 7-Zip's -slt listing. For 7z archives the entry keys
// and their order are 7-Zip's own for 7z (Path, Size, Packed Size,
// Modified, Created, Accessed, Attributes, CRC, Encrypted, Method, Block;
// Packed Size, CRC and Block empty where 7-Zip leaves them empty). RAR
// entries get the keys of 7-Zip's RAR handlers in their order (Path,
// Folder, Size, Packed Size, times, Attributes, Encrypted, Solid, Split
// Before/After, CRC, Host OS, Method, link targets). Keys garc adds
// (BLAKE2sp, User, Group, Anti, Comment) come last. ZIP and tar archives
// (whose Info.Details are *zip.Details and *tar.Details) get 7-Zip's keys
// for those formats, archive block included (writeZipArchiveBlock, writeZipSLTEntries and the tar twins).
// Single-stream files (.gz, .bz2, .xz, .lzma, .zst; Info.Details a
// *stream.Details) get the keys 7-Zip's handler for the format gives
// when it lists without decoding (writeStreamArchiveBlock, writeStreamSLTEntries): gzip Headers Size and
// Path, Size (the trailer's ISIZE), Packed Size, Modified, Host OS, CRC
// (the last trailer's); xz Physical Size, Method ("LZMA2:23 CRC64"),
// Streams, Blocks, Cluster Size, Characteristics and Size, Packed Size,
// Method; .lzma Method ("LZMA:23:lc1") and Size, empty Packed Size;
// zstd 7-Zip's Method summary (with Physical Size, Streams, Blocks, CRC
// and the sizes when a leading skippable frame makes 7-Zip walk every
// frame); bzip2 only empty Size and Packed Size.
func WriteSLT(w io.Writer, name string, info *archive.Info, all []*archive.Entry, want func(*archive.Entry) bool) {
	w = printable.NewWriter(w) // a guard behind the escaping of each value
	fmt.Fprintf(w, "Listing archive: %s\n\n--\n", printable.String(name))
	writeArchiveBlock(w, name, info, all)
	fmt.Fprintf(w, "\n----------\n")
	switch d := info.Details.(type) {
	case *zip.Details:
		writeZipSLTEntries(w, d, all, want)
		return
	case *tar.Details:
		writeTarSLTEntries(w, d, all, want)
		return
	case *stream.Details:
		writeStreamSLTEntries(w, info, d, all, want)
		return
	}
	if info.Format == archive.Format7z {
		write7zSLTEntries(w, all, want)
		return
	}
	for _, e := range all {
		if !want(e) {
			continue
		}
		writeRARSLTEntry(w, info.Format, e)
		writeSLTExtras(w, e)
		fmt.Fprintln(w)
	}
}

// sltSize renders a size, empty when unknown.
func sltSize(n int64) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// writeSLTTimes prints the times that are stored.
func writeSLTTimes(w io.Writer, e *archive.Entry) {
	w.Write(appendSLTTimes(nil, e))
}

// appendSLTTimes appends the lines of the times that are stored.
func appendSLTTimes(b []byte, e *archive.Entry) []byte {
	if !e.ModTime.IsZero() {
		b = append(appendSLTTime(append(b, "Modified = "...), e.ModTime), '\n')
	}
	if e.Extra == nil {
		return b
	}
	if t := e.Extra.CreateTime; !t.IsZero() {
		b = append(appendSLTTime(append(b, "Created = "...), t), '\n')
	}
	if t := e.Extra.AccessTime; !t.IsZero() {
		b = append(appendSLTTime(append(b, "Accessed = "...), t), '\n')
	}
	return b
}

// write7zSLTEntries prints the entries of a 7z archive with 7-Zip's keys.
// 7-Zip lists the keys of the properties the archive stores: no CRC key
// in an archive without any checksum, no Attributes key in one without
// attributes, Created and Accessed only when an entry has them; Modified
// always, empty for an archive made with -mtm=off.
func write7zSLTEntries(w io.Writer, all []*archive.Entry, want func(*archive.Entry) bool) {
	anyCRC, anyAttr, anyCTime, anyATime := false, false, false, false
	for _, e := range all {
		anyCRC = anyCRC || e.HasCRC32
		anyAttr = anyAttr || e.Attributes != 0 || e.HasUnixMode
		anyCTime = anyCTime || !e.CreateTime().IsZero()
		anyATime = anyATime || !e.AccessTime().IsZero()
	}
	// Each entry's lines are appended to one buffer: no allocation per
	// entry.
	b := make([]byte, 0, 512)
	for _, e := range all {
		if !want(e) {
			continue
		}
		b = append(printable.Append(append(b[:0], "Path = "...), e.Name), "\nSize = "...)
		if e.Size >= 0 {
			b = strconv.AppendInt(b, e.Size, 10)
		}
		b = append(b, "\nPacked Size = "...)
		if e.Block < 0 || !e.Solid {
			// Inside a solid block the packed bytes belong to the block
			// and are given with its first entry.
			b = strconv.AppendInt(b, e.PackedSize, 10)
		}
		b = append(b, "\nModified = "...)
		if !e.ModTime.IsZero() {
			b = appendSLTTime(b, e.ModTime)
		}
		if anyCTime {
			b = append(b, "\nCreated = "...)
			if t := e.CreateTime(); !t.IsZero() {
				b = appendSLTTime(b, t)
			}
		}
		if anyATime {
			b = append(b, "\nAccessed = "...)
			if t := e.AccessTime(); !t.IsZero() {
				b = appendSLTTime(b, t)
			}
		}
		b = append(b, '\n')
		if anyAttr {
			b = append(appendSLTAttr(append(b, "Attributes = "...), e), '\n')
		}
		switch {
		case e.HasCRC32:
			b = append(appendHex32(append(b, "CRC = "...), e.CRC32), '\n')
		case anyCRC:
			b = append(b, "CRC = \n"...)
		}
		b = append(append(append(b, "Encrypted = "...), plusMinus(e.Encrypted)...), "\nMethod = "...)
		b = append(printable.Append(b, e.Method), "\nBlock = "...)
		if e.Block >= 0 {
			b = strconv.AppendInt(b, int64(e.Block), 10)
		}
		b = appendSLTExtras(append(b, '\n'), e)
		w.Write(append(b, '\n'))
	}
}

// appendHex32 appends v as eight upper-case hexadecimal digits (%08X).
func appendHex32(b []byte, v uint32) []byte {
	const digits = "0123456789ABCDEF"
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, digits[v>>uint(shift)&0xF])
	}
	return b
}

// rarHostOS names the host system as 7-Zip's RAR handlers do: RAR5
// "Windows"/"Unix", older RAR "Win32"/"Unix" (garc does not tell MS-DOS
// and OS/2 archives from Win32 ones).
func rarHostOS(f archive.Format, h archive.HostOS) string {
	switch h {
	case archive.HostWindows:
		if f == archive.FormatRAR5 {
			return "Windows"
		}
		return "Win32"
	case archive.HostUnix:
		return "Unix"
	}
	return ""
}

// writeRARSLTEntry prints one RAR entry in the key order of 7-Zip's RAR
// handlers.
func writeRARSLTEntry(w io.Writer, f archive.Format, e *archive.Entry) {
	fmt.Fprintf(w, "Path = %s\n", printable.String(e.Name))
	fmt.Fprintf(w, "Folder = %s\n", plusMinus(e.IsDir()))
	fmt.Fprintf(w, "Size = %s\n", sltSize(e.Size))
	fmt.Fprintf(w, "Packed Size = %d\n", e.PackedSize)
	writeSLTTimes(w, e)
	fmt.Fprintf(w, "Attributes = %s\n", sltAttr(e))
	fmt.Fprintf(w, "Encrypted = %s\n", plusMinus(e.Encrypted))
	fmt.Fprintf(w, "Solid = %s\n", plusMinus(e.Solid))
	fmt.Fprintf(w, "Split Before = %s\nSplit After = %s\n", plusMinus(e.SplitBefore), plusMinus(e.SplitAfter))
	if e.HasCRC32 {
		fmt.Fprintf(w, "CRC = %08X\n", e.CRC32)
	} else {
		fmt.Fprintf(w, "CRC = \n")
	}
	fmt.Fprintf(w, "Host OS = %s\n", rarHostOS(f, e.HostOS))
	fmt.Fprintf(w, "Method = %s\n", printable.String(e.Method))
	switch e.Type {
	case archive.TypeSymlink:
		fmt.Fprintf(w, "Symbolic Link = %s\n", printable.String(e.LinkTarget))
	case archive.TypeHardlink:
		fmt.Fprintf(w, "Hard Link = %s\n", printable.String(e.LinkTarget))
	case archive.TypeCopy:
		fmt.Fprintf(w, "Copy Link = %s\n", printable.String(e.LinkTarget))
	}
}

// writeSLTExtras prints what garc knows beyond 7-Zip's keys.
func writeSLTExtras(w io.Writer, e *archive.Entry) {
	if b := appendSLTExtras(nil, e); len(b) > 0 {
		w.Write(b)
	}
}

// appendSLTExtras appends the lines writeSLTExtras prints.
func appendSLTExtras(b []byte, e *archive.Entry) []byte {
	x := e.Extra
	if x != nil && len(x.BLAKE2sp) > 0 {
		b = append(hex.AppendEncode(append(b, "BLAKE2sp = "...), x.BLAKE2sp), '\n')
		for i := len(b) - 1 - 2*len(x.BLAKE2sp); i < len(b)-1; i++ {
			if c := b[i]; c >= 'a' && c <= 'f' {
				b[i] = c - 'a' + 'A' // %X
			}
		}
	}
	if x != nil && x.Owner != "" {
		b = append(printable.Append(append(b, "User = "...), x.Owner), '\n')
	}
	if x != nil && x.Group != "" {
		b = append(printable.Append(append(b, "Group = "...), x.Group), '\n')
	}
	if e.Anti {
		b = append(b, "Anti = +\n"...)
	}
	if x != nil && x.Comment != "" {
		b = append(printable.Append(append(b, "Comment = "...), x.Comment), '\n')
	}
	return b
}

// sevenZipArchiveMethods is the Method line of `l -slt` for a 7z archive.
func sevenZipArchiveMethods(all []*archive.Entry) string { return sevenzip.ArchiveMethods(all) }
