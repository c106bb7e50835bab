package listing

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/stream"
)

// streamProp is one key of the archive block of a single-stream file's
// technical listing.
type streamProp struct {
	key, value string
}

// streamArchiveProps returns the archive keys 7-Zip's handler for the
// format gives after Path and Type, in its order, those it does not know
// without decoding left out: gzip Headers Size; xz Physical Size,
// Method, Streams, Blocks, Cluster Size, Characteristics; .lzma Method;
// zstd Physical Size, Streams and Blocks (when the frames were walked),
// Method, CRC.
func streamArchiveProps(info *archive.Info, d *stream.Details) []streamProp {
	var props []streamProp
	add := func(key string, v any) { props = append(props, streamProp{key, fmt.Sprint(v)}) }
	switch d.Kind {
	case stream.Gzip:
		if d.Gzip.HeaderSize != 0 {
			add("Headers Size", d.Gzip.HeaderSize)
		}
	case stream.XZ:
		x := &d.XZ
		if x.Indexed {
			// 7-Zip knows the sizes only from consistent indexes.
			add("Physical Size", info.PhysicalSize)
		}
		if m := xzMethod(x); m != "" {
			add("Method", m)
		}
		if x.Indexed {
			add("Streams", x.Streams)
			add("Blocks", x.Blocks)
			if x.Blocks > 1 {
				add("Cluster Size", x.MaxBlockSize)
			}
		}
		if c := xzCharacteristics(x.FirstBlockFlags); c != "" {
			add("Characteristics", c)
		}
	case stream.LZMA:
		add("Method", lzmaMethod(d.LZMA))
	case stream.Zstd:
		z := &d.Zstd
		if z.Parsed {
			add("Physical Size", z.PhysicalSize)
			add("Streams", z.DataFrames)
			add("Blocks", z.Blocks)
		}
		add("Method", zstdMethod(z))
		if z.ChecksumKnown && z.DataFrames == 1 {
			add("CRC", fmt.Sprintf("%08X", z.Checksum))
		}
	}
	return props
}

// writeStreamArchiveBlock prints the archive block 7-Zip's listings give
// a single-stream file (.gz, .bz2, .xz, .lzma, .zst): the properties
// 7-Zip's handler for the format knows without decoding, only when known
// (streamArchiveProps).
func writeStreamArchiveBlock(w io.Writer, name string, info *archive.Info, d *stream.Details) {
	writePathAndType(w, name, info, false)
	for _, p := range streamArchiveProps(info, d) {
		fmt.Fprintf(w, "%s = %s\n", p.key, p.value)
	}
}

// writeStreamSLTEntries prints the entries of a single-stream file's -slt
// listing with the keys 7-Zip's handler for the format gives when it
// lists the file without decoding it, every key even when its value is
// empty.
func writeStreamSLTEntries(w io.Writer, info *archive.Info, d *stream.Details, all []*archive.Entry, want func(*archive.Entry) bool) {
	for _, e := range all {
		if !want(e) {
			continue
		}
		switch d.Kind {
		case stream.Gzip:
			fmt.Fprintf(w, "Path = %s\n", printable.String(e.Name))
			fmt.Fprintf(w, "Size = %s\n", sltSize(e.Size))
			fmt.Fprintf(w, "Packed Size = %d\n", info.PhysicalSize)
			fmt.Fprintf(w, "Modified = %s\n", sltSeconds(e.ModTime))
			fmt.Fprintf(w, "Host OS = %s\n", gzipHostOS(d.Gzip.HostOS))
			fmt.Fprintf(w, "CRC = %08X\n", d.Gzip.CRC32)
		case stream.XZ:
			packed := ""
			if d.XZ.Indexed {
				packed = strconv.FormatInt(info.PhysicalSize, 10)
			}
			fmt.Fprintf(w, "Size = %s\n", sltSize(e.Size))
			fmt.Fprintf(w, "Packed Size = %s\n", packed)
			fmt.Fprintf(w, "Method = %s\n", xzMethod(&d.XZ))
		case stream.LZMA:
			// 7-Zip knows the packed size of .lzma only once decoded.
			fmt.Fprintf(w, "Size = %s\nPacked Size = \n", sltSize(e.Size))
			fmt.Fprintf(w, "Method = %s\n", lzmaMethod(d.LZMA))
		case stream.Zstd:
			// The sizes are known when the frames were walked.
			size, packed := "", ""
			if z := &d.Zstd; z.Parsed {
				if !z.ContentSizeUnknown {
					size = strconv.FormatUint(z.ContentSizeTotal, 10)
				}
				packed = strconv.FormatInt(z.PhysicalSize, 10)
			}
			fmt.Fprintf(w, "Size = %s\nPacked Size = %s\n", size, packed)
		default:
			// bzip2 records neither size where 7-Zip looks before
			// decoding.
			fmt.Fprintf(w, "Size = \nPacked Size = \n")
		}
		fmt.Fprintln(w)
	}
}

// gzipHostOSNames are 7-Zip's names of the gzip OS byte.
var gzipHostOSNames = [...]string{"FAT", "AMIGA", "VMS", "Unix", "VM/CMS", "Atari", "HPFS", "Macintosh",
	"Z-System", "CP/M", "TOPS-20", "NTFS", "SMS/QDOS", "Acorn", "VFAT", "MVS", "BeOS", "Tandem", "OS/400", "OS/X"}

// gzipHostOS names a gzip OS byte as 7-Zip does, by its number when it
// has no name.
func gzipHostOS(b byte) string {
	if int(b) < len(gzipHostOSNames) {
		return gzipHostOSNames[b]
	}
	return strconv.Itoa(int(b))
}

// xzFilterName returns 7-Zip's name of an xz filter ID.
func xzFilterName(id uint64) (string, bool) {
	switch id {
	case 0x01:
		return "SB", true
	case 0x03:
		return "Delta", true
	case 0x04:
		return "BCJ", true
	case 0x05:
		return "PPC", true
	case 0x06:
		return "IA64", true
	case 0x07:
		return "ARM", true
	case 0x08:
		return "ARMT", true
	case 0x09:
		return "SPARC", true
	case 0x0A:
		return "ARM64", true
	case 0x0B:
		return "RISCV", true
	case 0x21:
		return "LZMA2", true
	}
	return "", false
}

// xzMethod is 7-Zip's Method of an xz file: the first block's filters
// ("LZMA2:23", "Delta:4", "BCJ") and then the check types of all streams
// ("CRC64", "CRC32 SHA256").
func xzMethod(x *stream.XZDetails) string {
	var parts []string
	for _, f := range x.Filters {
		s, ok := xzFilterName(f.ID)
		if !ok {
			s = strconv.FormatUint(f.ID, 10)
		}
		if len(f.Props) > 0 {
			switch {
			case f.ID == 0x21 && len(f.Props) == 1:
				s += ":" + lzma2DictString(f.Props[0])
			case f.ID == 0x03 && len(f.Props) == 1:
				s += ":" + strconv.Itoa(int(f.Props[0])+1)
			case f.ID == 0x0A && len(f.Props) == 1:
				s += ":" + strconv.Itoa(int(f.Props[0])+18)
			default:
				s += fmt.Sprintf(":[%X]", f.Props)
			}
		}
		parts = append(parts, s)
	}
	if x.Indexed {
		for i := 0; i < 16; i++ {
			if x.Checks&(1<<i) == 0 {
				continue
			}
			switch i {
			case 0:
				parts = append(parts, "NoCheck")
			case 1:
				parts = append(parts, "CRC32")
			case 4:
				parts = append(parts, "CRC64")
			case 10:
				parts = append(parts, "SHA256")
			default:
				parts = append(parts, "Check-"+strconv.Itoa(i))
			}
		}
	}
	return strings.Join(parts, " ")
}

// lzma2DictString renders an LZMA2 dictionary property as 7-Zip does:
// the power of two ("23") for even values, else the size with k or m.
func lzma2DictString(p byte) string {
	if p&1 == 0 {
		return strconv.Itoa(int(p)/2 + 12)
	}
	size := uint64(2|p&1) << (p/2 + 1)
	if p > 17 {
		return strconv.FormatUint(size>>10, 10) + "m"
	}
	return strconv.FormatUint(size, 10) + "k"
}

// xzCharacteristics names the optional sizes the first block header
// records.
func xzCharacteristics(flags byte) string {
	var c []string
	if flags&0x40 != 0 {
		c = append(c, "BlockPackSize")
	}
	if flags&0x80 != 0 {
		c = append(c, "BlockUnpackSize")
	}
	return strings.Join(c, " ")
}

// lzmaMethod is 7-Zip's Method of a .lzma file: "LZMA:" and the
// dictionary (the power of two, else a size with b, k or m), then lc,
// lp and pb where they differ from 3, 0 and 2.
func lzmaMethod(l stream.LZMADetails) string {
	s := "LZMA:"
	dict, pow := l.DictSize, -1
	for i := 0; i < 32; i++ {
		if uint32(1)<<i == dict {
			pow = i
		}
	}
	switch {
	case pow >= 0:
		s += strconv.Itoa(pow)
	case dict&(1<<20-1) == 0:
		s += strconv.FormatUint(uint64(dict>>20), 10) + "m"
	case dict&(1<<10-1) == 0:
		s += strconv.FormatUint(uint64(dict>>10), 10) + "k"
	default:
		s += strconv.FormatUint(uint64(dict), 10) + "b"
	}
	lc, lp, pb := l.Props%9, l.Props/9%5, l.Props/45
	if lc != 3 {
		s += ":lc" + strconv.Itoa(int(lc))
	}
	if lp != 0 {
		s += ":lp" + strconv.Itoa(int(lp))
	}
	if pb != 2 {
		s += ":pb" + strconv.Itoa(int(pb))
	}
	return s
}

// zstdMethod is 7-Zip's Method of a zstd file: "header-open-only:"
// (the first frame header read) or "parsed:" (every frame walked), then
// what the frame headers say (dictionary ID, XXH64 or not, single
// segment or the largest window descriptor, window sizes), the frame
// counts and the content sizes.
func zstdMethod(z *stream.ZstdDetails) string {
	parts := []string{"header-open-only:"}
	if z.Parsed {
		parts[0] = "parsed:"
	}
	const checksum, single = 1 << 2, 1 << 5
	or, notOr := z.DescriptorOR, z.DescriptorNOTOR
	if z.DictionaryID != 0 {
		if z.DictionaryIDsDiffer {
			parts = append(parts, "different-dictionary-IDs")
		}
		parts = append(parts, "dictionary-ID:"+strconv.FormatUint(uint64(z.DictionaryID), 10))
	}
	if or&checksum != 0 {
		parts = append(parts, "XXH64")
	}
	if notOr&checksum != 0 {
		parts = append(parts, "NO-XXH64")
	}
	if or&single != 0 {
		parts = append(parts, "single-segments")
	}
	if notOr&single != 0 {
		s := "wnd-desc-log-MAX:" + strconv.Itoa(int(z.WindowDescriptorMax>>3)+10)
		if m := z.WindowDescriptorMax & 7; m != 0 {
			s += "." + strconv.Itoa(int(m))
		}
		parts = append(parts, s)
	}
	contentDefined := or&0xE0 != 0
	if contentDefined || notOr&single != 0 {
		parts = append(parts, "wnd-MAX:"+zstdSize(z.WindowMax))
		if z.WindowAllocMax != z.WindowMax {
			parts = append(parts, "wnd-use-MAX:"+zstdSize(z.WindowAllocMax))
		}
	}
	if z.DataFrames != 1 {
		parts = append(parts, "data-frames:"+strconv.FormatInt(z.DataFrames, 10))
	}
	if z.SkipFrames != 0 {
		parts = append(parts, "skip-frames:"+strconv.FormatInt(z.SkipFrames, 10),
			"skip-frames-size-total:"+strconv.FormatUint(z.SkipBytes, 10))
	}
	if z.ContentSizeUnknown {
		parts = append(parts, "unknown-content-size")
	}
	if contentDefined {
		parts = append(parts, "content-size-frame-max:"+strconv.FormatUint(z.ContentSizeMax, 10),
			"content-size-total:"+strconv.FormatUint(z.ContentSizeTotal, 10))
	}
	return strings.Join(parts, " ")
}

// zstdSize renders a window size as 7-Zip does: in GiB, MiB or KiB when
// it is a whole number of them.
func zstdSize(w uint64) string {
	switch {
	case w&(1<<30-1) == 0:
		return strconv.FormatUint(w>>30, 10) + "GiB"
	case w&(1<<20-1) == 0:
		return strconv.FormatUint(w>>20, 10) + "MiB"
	case w&(1<<10-1) == 0:
		return strconv.FormatUint(w>>10, 10) + "KiB"
	}
	return strconv.FormatUint(w, 10)
}
