package opener

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestIsLaterVolumeCorpus checks every volume set and raw split of the
// corpus: the first member is not a later volume, every other one is.
func TestIsLaterVolumeCorpus(t *testing.T) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, u := range units {
		if u.Kind == "single" {
			if u.Expect == "ok" && strings.HasSuffix(u.Unit, ".rar") || strings.HasSuffix(u.Unit, ".7z") {
				if IsLaterVolume(u.Path(root)) && !strings.Contains(u.Unit, "part") {
					t.Errorf("%s: single archive taken for a later volume", u.Unit)
				}
			}
			continue
		}
		for i, m := range u.Members {
			if strings.Contains(m, "100M.part00002") {
				// The corpus holds only this second volume.
				if !IsLaterVolume(filepath.Join(root, m)) {
					t.Errorf("%s: lone second volume not recognised", m)
				}
				continue
			}
			if got := IsLaterVolume(filepath.Join(root, m)); got != (i > 0) {
				t.Errorf("%s (member %d of %s): IsLaterVolume = %v", m, i, u.Kind, got)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no volume sets in the corpus")
	}
}

// rar5Main builds a RAR5 signature and main header with the given
// archive flags and, when flags&2, volume number.
func rar5Main(aflags, volnum uint64) []byte {
	var body []byte
	body = binary.AppendUvarint(body, 1) // type: main
	body = binary.AppendUvarint(body, 0) // header flags
	body = binary.AppendUvarint(body, aflags)
	if aflags&2 != 0 {
		body = binary.AppendUvarint(body, volnum)
	}
	hdr := binary.AppendUvarint(nil, uint64(len(body)))
	hdr = append(hdr, body...)
	out := []byte("Rar!\x1a\x07\x01\x00")
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(hdr))
	return append(out, hdr...)
}

// rar4Main builds a RAR 1.5–4.x signature and main header with flags.
func rar4Main(flags uint16) []byte {
	out := []byte("Rar!\x1a\x07\x00")
	out = append(out, 0, 0, 0x73)
	out = binary.LittleEndian.AppendUint16(out, flags)
	out = binary.LittleEndian.AppendUint16(out, 13)
	return append(out, 0, 0, 0, 0, 0, 0)
}

func TestIsLaterVolume(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{"single.rar", rar5Main(0, 0), false},
		{"v.part1.rar", rar5Main(1, 0), false},
		{"v.part2.rar", rar5Main(3, 1), true},
		{"renamed.rar", rar5Main(3, 4), true},                                               // header wins over the name
		{"first.part7.rar", rar5Main(1, 0), false},                                          // header wins over the name
		{"enc.part2.rar", []byte("Rar!\x1a\x07\x01\x00\x00\x00\x00\x00\x02\x04\x00"), true}, // encrypted headers: name
		{"enc.part1.rar", []byte("Rar!\x1a\x07\x01\x00\x00\x00\x00\x00\x02\x04\x00"), false},
		{"old.rar", rar4Main(0x0001), false},        // RAR 2.x first volume: no first-volume flag
		{"old.r00", rar4Main(0x0001), true},         // old later volume
		{"new.part01.rar", rar4Main(0x0111), false}, // first-volume flag
		{"new.part02.rar", rar4Main(0x0011), true},
		{"plain4.rar", rar4Main(0), false},
		{"notes.r01", []byte("text, not an archive"), false},
		{"empty.part2.rar", nil, false},
		{"s.7z.001", []byte("7z\xbc\xaf\x27\x1c"), false},
		{"s.7z.002", []byte("more"), true},
	}
	for _, tc := range tests {
		if err := os.WriteFile(filepath.Join(dir, tc.name), tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range tests {
		if got := IsLaterVolume(filepath.Join(dir, tc.name)); got != tc.want {
			t.Errorf("IsLaterVolume(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if IsLaterVolume(filepath.Join(dir, "missing.part2.rar")) || IsLaterVolume(dir) {
		t.Error("a missing file or a directory is a later volume")
	}
}

// TestEntryBlock checks archive.Entry.Block as the readers fill it: the
// 7z folder index for entries with data (non-decreasing, -1 for empty
// entries and directories) and -1 for every RAR entry.
func TestEntryBlock(t *testing.T) {
	root := testenv.CorpusRoot(t)
	tests := []struct {
		path   string
		blocks int // distinct 7z blocks expected; 0 for RAR
	}{
		{"files/rarfile/files__rar5-vols.part1.rar", 0},
		{"files/rarfile/files__rar3-vols.part1.rar", 0},
		{"files/sharpcompress/Archives__7Zip.EmptyStream.7z", 0},
		{"files/sharpcompress/Archives__7Zip.LZMA2.7z", 2}, // 7zz: Blocks = 2
		{"files/libarchive/test_read_format_7zip_bcj_lzma2.7z", 1},
	}
	for _, tc := range tests {
		r, err := Open(filepath.Join(root, tc.path), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		seen := map[int32]bool{}
		last := int32(-1)
		for _, e := range r.Entries() {
			hasData := e.Size > 0 && e.Type == 0
			switch {
			case r.Info().Format != "7z" && e.Block != -1:
				t.Errorf("%s: %s: RAR entry in block %d", tc.path, e.Name, e.Block)
			case r.Info().Format == "7z" && hasData && e.Block < last:
				t.Errorf("%s: %s: block %d after block %d", tc.path, e.Name, e.Block, last)
			case r.Info().Format == "7z" && !hasData && e.Size == 0 && e.Block != -1:
				t.Errorf("%s: %s: empty entry in block %d", tc.path, e.Name, e.Block)
			}
			if e.Block >= 0 {
				seen[e.Block] = true
				last = e.Block
			}
		}
		r.Close()
		if len(seen) != tc.blocks {
			t.Errorf("%s: %d blocks, want %d", tc.path, len(seen), tc.blocks)
		}
	}
}

// FuzzLaterVolumeHeader feeds arbitrary bytes to the main-header parsers
// behind IsLaterVolume: they must never panic, and a RAR5 header is
// "known" only when it is a main header.
func FuzzLaterVolumeHeader(f *testing.F) {
	f.Add(rar5Main(3, 2))
	f.Add(rar5Main(1, 0))
	f.Add(rar4Main(0x0111))
	f.Add([]byte("Rar!\x1a\x07\x01\x00\x00\x00\x00\x00\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		later, known := rar5LaterVolume(b)
		if later && !known {
			t.Fatal("rar5: later without known")
		}
		rar4LaterVolume(b)
		rar4VolumeFlags(b)
	})
}
