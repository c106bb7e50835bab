package listing

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// sltTime formats a time as 7-Zip's -slt does, in local time with
// 100-nanosecond digits.
func sltTime(t time.Time) string {
	return t.Local().Format("2006-01-02 15:04:05.0000000")
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
	fmt.Fprintf(w, "Path = %s\n", printable.String(name))
	fmt.Fprintf(w, "Type = %s\n", sevenZipTypeName(info.Format))
	if info.SFXOffset > 0 {
		fmt.Fprintf(w, "Offset = %d\n", info.SFXOffset)
	}
	if info.PhysicalSize > 0 {
		fmt.Fprintf(w, "Physical Size = %d\n", info.PhysicalSize)
	}
	is7z := info.Format == archive.Format7z
	blocks := map[int32]bool{}
	if is7z {
		var packed int64
		for _, e := range all {
			packed += e.PackedSize
			if e.Block >= 0 {
				blocks[e.Block] = true
			}
		}
		if info.PhysicalSize > 0 && packed <= info.PhysicalSize {
			fmt.Fprintf(w, "Headers Size = %d\n", info.PhysicalSize-packed)
		}
	}
	if m := sevenZipArchiveMethods(all); is7z && m != "" {
		fmt.Fprintf(w, "Method = %s\n", m)
	} else if len(info.Methods) > 0 {
		fmt.Fprintf(w, "Method = %s\n", printable.String(archiveMethods(info)))
	}
	fmt.Fprintf(w, "Solid = %s\n", plusMinus(info.Solid))
	if is7z {
		fmt.Fprintf(w, "Blocks = %d\n", len(blocks))
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
		fmt.Fprintf(w, "Comment = %s\n", printable.Lines(info.Comment))
	}
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
// for those formats, archive block included (writeZipSLT, writeTarSLT).
func WriteSLT(w io.Writer, name string, info *archive.Info, all []*archive.Entry, want func(*archive.Entry) bool) {
	fmt.Fprintf(w, "Listing archive: %s\n\n--\n", printable.String(name))
	switch d := info.Details.(type) {
	case *zip.Details:
		writeZipSLT(w, name, info, d, all, want)
		return
	case *tar.Details:
		writeTarSLT(w, name, info, d, all, want)
		return
	}
	writeArchiveHeader(w, name, info, all)
	fmt.Fprintf(w, "\n----------\n")
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
	if !e.ModTime.IsZero() {
		fmt.Fprintf(w, "Modified = %s\n", sltTime(e.ModTime))
	}
	if !e.CreateTime().IsZero() {
		fmt.Fprintf(w, "Created = %s\n", sltTime(e.CreateTime()))
	}
	if !e.AccessTime().IsZero() {
		fmt.Fprintf(w, "Accessed = %s\n", sltTime(e.AccessTime()))
	}
}

// write7zSLTEntries prints the entries of a 7z archive with 7-Zip's keys.
// 7-Zip lists the keys of the properties the archive stores: no CRC key
// in an archive without any checksum, no Attributes key in one without
// attributes.
func write7zSLTEntries(w io.Writer, all []*archive.Entry, want func(*archive.Entry) bool) {
	anyCRC, anyAttr := false, false
	for _, e := range all {
		anyCRC = anyCRC || e.HasCRC32
		anyAttr = anyAttr || e.Attributes != 0 || e.HasUnixMode
	}
	for _, e := range all {
		if !want(e) {
			continue
		}
		fmt.Fprintf(w, "Path = %s\n", printable.String(e.Name))
		fmt.Fprintf(w, "Size = %s\n", sltSize(e.Size))
		if e.Block >= 0 && e.Solid {
			// Inside a solid block the packed bytes belong to the block
			// and are given with its first entry.
			fmt.Fprintf(w, "Packed Size = \n")
		} else {
			fmt.Fprintf(w, "Packed Size = %d\n", e.PackedSize)
		}
		writeSLTTimes(w, e)
		if anyAttr {
			fmt.Fprintf(w, "Attributes = %s\n", sltAttr(e))
		}
		switch {
		case e.HasCRC32:
			fmt.Fprintf(w, "CRC = %08X\n", e.CRC32)
		case anyCRC:
			fmt.Fprintf(w, "CRC = \n")
		}
		fmt.Fprintf(w, "Encrypted = %s\n", plusMinus(e.Encrypted))
		fmt.Fprintf(w, "Method = %s\n", printable.String(e.Method))
		if e.Block >= 0 {
			fmt.Fprintf(w, "Block = %d\n", e.Block)
		} else {
			fmt.Fprintf(w, "Block = \n")
		}
		writeSLTExtras(w, e)
		fmt.Fprintln(w)
	}
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
	if len(e.BLAKE2sp()) > 0 {
		fmt.Fprintf(w, "BLAKE2sp = %X\n", e.BLAKE2sp())
	}
	if e.Owner() != "" {
		fmt.Fprintf(w, "User = %s\n", printable.String(e.Owner()))
	}
	if e.Group() != "" {
		fmt.Fprintf(w, "Group = %s\n", printable.String(e.Group()))
	}
	if e.Anti {
		fmt.Fprintf(w, "Anti = +\n")
	}
	if e.Comment() != "" {
		fmt.Fprintf(w, "Comment = %s\n", printable.String(e.Comment()))
	}
}

// sevenZipArchiveMethods is the Method line of `l -slt` for a 7z archive.
func sevenZipArchiveMethods(all []*archive.Entry) string { return sevenzip.ArchiveMethods(all) }
