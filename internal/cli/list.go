package cli

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
)

func (a *app) listCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "l ARCHIVE [PATTERNS...]",
		Aliases: []string{"list"},
		Short:   "list the entries of an archive",
		Long: `List the entries of an archive on stdout.

--format=table (default) prints a table like 7-Zip's; --format=slt prints
one "Key = Value" block per entry with 7-Zip's -slt key names;
--format=json prints JSON Lines:

` + jsonSchemaDoc,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runList(args[0], args[1:], format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, slt or json")
	return cmd
}

func (a *app) runList(name string, patterns []string, format string) error {
	switch format {
	case "table", "slt", "json":
	default:
		return usagef("--format must be table, slt or json, not %q", format)
	}
	sel, err := a.selection(patterns)
	if err != nil {
		return err
	}
	first := true
	_, err = a.forEachArchive(name, func(name string) error {
		if !first && format != "json" {
			fmt.Fprintln(a.stdout)
		}
		first = false
		return a.listArchive(name, sel, format)
	})
	return err
}

// listArchive lists one archive, writing each entry as it is visited.
func (a *app) listArchive(name string, sel *selector, format string) error {
	r, err := a.openArchive(name)
	if err != nil {
		if format == "json" {
			newJSONWriter(a.stdout).archiveError(name, err)
		}
		return err
	}
	defer r.Close()
	if n, _ := wanted(r, sel); n == 0 && sel.filtered() {
		return sel.noMatch(name, r.Entries(), false)
	}
	info, all := r.Info(), r.Entries()
	// An interrupt ends the listing at the next entry.
	want := func(e *archive.Entry) bool { return a.ctx.Err() == nil && sel.want(e) }
	if format == "json" {
		j := newJSONWriter(a.stdout)
		j.beginArchive(name, info)
		for _, e := range all {
			if want(e) {
				if err := j.entry(e); err != nil {
					return err
				}
			}
		}
		err = j.endArchive()
	} else {
		w := bufio.NewWriterSize(a.stdout, 64<<10)
		if format == "slt" {
			writeSLT(w, name, info, all, want)
		} else {
			writeTable(w, name, info, all, want)
		}
		err = w.Flush()
	}
	if a.ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

func hostName(h archive.HostOS) string {
	switch h {
	case archive.HostWindows:
		return "windows"
	case archive.HostUnix:
		return "unix"
	}
	return "unknown"
}

// unixPerm returns the permission and special bits of a Go mode in the
// unix octal layout.
func unixPerm(m fs.FileMode) uint32 {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return v
}

// attrString renders attributes as 7-Zip does: the letters D, R, H, S, A
// for the Windows bits ("." when clear).
func attrString(e *archive.Entry) string {
	attr := windowsAttrs(e)
	b := []byte(".....")
	for i, bit := range []uint32{archive.AttrDirectory, archive.AttrReadOnly, archive.AttrHidden, archive.AttrSystem, archive.AttrArchive} {
		if attr&bit != 0 {
			b[i] = "DRHSA"[i]
		}
	}
	return string(b)
}

// winAttrLetters are 7-Zip's letters for the Windows attribute bits 0–15
// in bit order ('.' for bits it does not name).
const winAttrLetters = "RHS.DAdNTsLCOIE."

// windowsAttrs returns the Windows attribute bits of an entry: the low
// bits for Windows hosts and 7-Zip's unix extension, the read-only and
// directory bits derived for a RAR unix mode.
func windowsAttrs(e *archive.Entry) uint32 {
	var attr uint32
	switch {
	case e.HostOS != archive.HostUnix || e.Attributes&archive.AttrUnixExtension != 0 && e.Attributes>>16 != 0:
		attr = e.Attributes & 0xffff &^ archive.AttrUnixExtension
	case e.HasUnixMode && e.Mode&0o200 == 0:
		attr = archive.AttrReadOnly
	}
	if e.IsDir() {
		attr |= archive.AttrDirectory
	}
	return attr
}

// sltAttr renders attributes for -slt as 7-Zip does: the letters of the
// set Windows bits in bit order ("RHSDA…", so "HD" for a hidden
// directory), then the unix mode when one is stored ("A -rw-r--r--").
func sltAttr(e *archive.Entry) string {
	attr := windowsAttrs(e)
	var b strings.Builder
	for i := 0; i < 16; i++ {
		if attr&(1<<i) != 0 && winAttrLetters[i] != '.' {
			b.WriteByte(winAttrLetters[i])
		}
	}
	s := b.String()
	if e.HasUnixMode {
		if s != "" {
			s += " "
		}
		s += modeString(e)
	}
	return s
}

// modeString renders a unix mode like ls -l.
func modeString(e *archive.Entry) string {
	m := e.Mode
	b := []byte("----------")
	switch {
	case e.Type == archive.TypeDir:
		b[0] = 'd'
	case e.Type == archive.TypeSymlink:
		b[0] = 'l'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		}
	}
	if m&fs.ModeSetuid != 0 {
		b[3] = "Ss"[b2i(b[3] == 'x')]
	}
	if m&fs.ModeSetgid != 0 {
		b[6] = "Ss"[b2i(b[6] == 'x')]
	}
	if m&fs.ModeSticky != 0 {
		b[9] = "Tt"[b2i(b[9] == 'x')]
	}
	return string(b)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func plusMinus(b bool) string {
	if b {
		return "+"
	}
	return "-"
}

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
	blocks := map[int]bool{}
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

// writeSLT prints 7-Zip's -slt listing. For 7z archives the entry keys
// and their order are 7-Zip's own for 7z (Path, Size, Packed Size,
// Modified, Created, Accessed, Attributes, CRC, Encrypted, Method, Block;
// Packed Size, CRC and Block empty where 7-Zip leaves them empty). RAR
// entries get the keys of 7-Zip's RAR handlers in their order (Path,
// Folder, Size, Packed Size, times, Attributes, Encrypted, Solid, Split
// Before/After, CRC, Host OS, Method, link targets). Keys garc adds
// (BLAKE2sp, User, Group, Anti, Comment) come last.
func writeSLT(w io.Writer, name string, info *archive.Info, all []*archive.Entry, want func(*archive.Entry) bool) {
	fmt.Fprintf(w, "Listing archive: %s\n\n--\n", printable.String(name))
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
	if !e.CreateTime.IsZero() {
		fmt.Fprintf(w, "Created = %s\n", sltTime(e.CreateTime))
	}
	if !e.AccessTime.IsZero() {
		fmt.Fprintf(w, "Accessed = %s\n", sltTime(e.AccessTime))
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
	if len(e.BLAKE2sp) > 0 {
		fmt.Fprintf(w, "BLAKE2sp = %X\n", e.BLAKE2sp)
	}
	if e.Owner != "" {
		fmt.Fprintf(w, "User = %s\n", printable.String(e.Owner))
	}
	if e.Group != "" {
		fmt.Fprintf(w, "Group = %s\n", printable.String(e.Group))
	}
	if e.Anti {
		fmt.Fprintf(w, "Anti = +\n")
	}
	if e.Comment != "" {
		fmt.Fprintf(w, "Comment = %s\n", printable.String(e.Comment))
	}
}

// writeTable prints 7-Zip's table listing of the entries want selects:
// the archive block, column titles, a row per entry as it is visited
// (writeTableRows) and the totals.
func writeTable(w io.Writer, name string, info *archive.Info, all []*archive.Entry, want func(*archive.Entry) bool) {
	writeArchiveHeader(w, name, info, all)
	fmt.Fprintln(w)
	const rule = "------------------- ----- ------------ ------------  ------------------------"
	fmt.Fprintln(w, "   Date      Time    Attr         Size   Compressed  Name")
	fmt.Fprintln(w, rule)
	t := writeTableRows(w, all, want)
	fmt.Fprintln(w, rule)
	summary := fmt.Sprintf("%d files", t.files)
	if t.dirs > 0 {
		summary += fmt.Sprintf(", %d folders", t.dirs)
	}
	fmt.Fprintf(w, "%s       %12d %12d  %s\n", strings.Repeat(" ", 19), t.size, t.packed, summary)
}

// tableTotals are the sums under the table's rows.
type tableTotals struct {
	size, packed int64
	files, dirs  int
}

// writeTableRows prints the table row of each entry want selects (7-Zip's
// `l -ba` prints only these), with no allocation per row beyond names
// that need escaping, and returns the totals.
func writeTableRows(w io.Writer, all []*archive.Entry, want func(*archive.Entry) bool) (t tableTotals) {
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
		}
		line = append(line, ' ')
		line = append(line, attrString(e)...)
		line = append(line, ' ')
		if e.Size >= 0 {
			line = appendPadded(line, e.Size, 12)
			t.size += e.Size
		} else {
			line = append(line, "            "...)
		}
		line = append(line, ' ')
		if e.PackedSize > 0 {
			line = appendPadded(line, e.PackedSize, 12)
			t.packed += e.PackedSize
		} else {
			line = append(line, "            "...)
		}
		line = append(line, ' ', ' ')
		line = printable.Append(line, e.Name)
		switch e.Type {
		case archive.TypeSymlink:
			line = append(line, " -> "...)
			line = printable.Append(line, e.LinkTarget)
		case archive.TypeHardlink, archive.TypeCopy:
			line = append(line, " => "...)
			line = printable.Append(line, e.LinkTarget)
		}
		if e.IsDir() {
			t.dirs++
		} else {
			t.files++
		}
		line = append(line, '\n')
		w.Write(line)
	}
	return t
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
