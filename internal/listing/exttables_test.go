package listing

import "testing"

// TestSingleFormatExt checks the extension table, a switch statement
// rather than a map every garc process would build at start-up, against
// the map it replaced, and that other extensions have no single format.
func TestSingleFormatExt(t *testing.T) {
	want := map[string]string{
		"7z":  "7z",
		"zip": "zip", "z01": "zip", "zipx": "zip", "jar": "zip", "xpi": "zip", "odt": "zip", "ods": "zip",
		"docx": "zip", "xlsx": "zip", "epub": "zip", "ipa": "zip", "appx": "zip",
		"tar": "tar", "ova": "tar",
		"gz": "gzip", "gzip": "gzip", "tgz": "gzip", "tpz": "gzip",
		"bz2": "bzip2", "bzip2": "bzip2", "tbz2": "bzip2", "tbz": "bzip2",
		"xz": "xz", "txz": "xz",
		"lzma": "lzma",
		"zst":  "zstd", "tzst": "zstd",
		"cab": "Cab", "arj": "Arj", "cpio": "Cpio", "lzh": "Lzh", "lha": "Lzh", "rpm": "Rpm", "dmg": "Dmg",
		"wim": "wim", "swm": "wim", "esd": "wim", "xar": "Xar", "pkg": "Xar", "z": "Z", "taz": "Z",
		"vhd": "VHD", "vhdx": "VHDX", "vmdk": "VMDK", "vdi": "VDI", "qcow": "QCOW", "qcow2": "QCOW",
		"msi": "Compound", "doc": "Compound", "xls": "Compound", "ppt": "Compound", "deb": "Ar", "ar": "Ar",
	}
	for ext, format := range want {
		if got, ok := singleFormatExt(ext); !ok || got != format {
			t.Errorf("singleFormatExt(%q) = %q, %v; want %q", ext, got, ok, format)
		}
	}
	for _, ext := range []string{"", "rar", "r00", "exe", "iso", "ZIP", "7Z", "001", "tar.gz"} {
		if got, ok := singleFormatExt(ext); ok {
			t.Errorf("singleFormatExt(%q) = %q, want none", ext, got)
		}
	}
}

// TestXZFilterName checks 7-Zip's xz filter names, a switch statement
// rather than a map built at start-up, against the map it replaced.
func TestXZFilterName(t *testing.T) {
	want := map[uint64]string{
		0x01: "SB", 0x03: "Delta", 0x04: "BCJ", 0x05: "PPC", 0x06: "IA64", 0x07: "ARM",
		0x08: "ARMT", 0x09: "SPARC", 0x0A: "ARM64", 0x0B: "RISCV", 0x21: "LZMA2",
	}
	for id := range uint64(0x100) {
		w, known := want[id]
		if got, ok := xzFilterName(id); ok != known || got != w {
			t.Errorf("xzFilterName(%#x) = %q, %v; want %q, %v", id, got, ok, w, known)
		}
	}
}
