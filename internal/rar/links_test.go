package rar

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestListedLinkTargetCorpus: the RAR 2.x symbolic link of the corpus
// lists with its target, before any extraction.
func TestListedLinkTargetCorpus(t *testing.T) {
	r, err := Open(corpusFile(t, "files/libarchive/test_read_format_rar.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var found bool
	for _, e := range r.Entries() {
		if e.Name == "testlink" {
			found = true
			if e.Type != archive.TypeSymlink || e.LinkTarget != "test.txt" {
				t.Errorf("testlink: type %v, target %q; want a symlink to test.txt", e.Type, e.LinkTarget)
			}
		}
	}
	if !found {
		t.Fatal("no entry testlink")
	}
}

// rar4Link returns a RAR 2.9 unix symlink block whose data is target,
// declaring size as its unpacked size.
func rar4Link(name, target string, size uint32, flags uint16, method byte) []byte {
	b := rar4File(flags, name, 29, method, sIFLNK|0o777, []byte(target), []byte(target))
	if size != uint32(len(target)) {
		binary.LittleEndian.PutUint32(b[long4Size:], size) // unpacked size
		fixCRC4(b)
	}
	return b
}

// fixCRC4 recomputes the header CRC of a block.
func fixCRC4(b []byte) {
	hs := binary.LittleEndian.Uint16(b[off4Size:])
	h := b[:hs]
	binary.LittleEndian.PutUint16(h[off4CRC:], uint16(crc32.ChecksumIEEE(h[off4Type:])))
}

// TestListedLinkTargets: Entries fills the target of small unencrypted
// links; a link declaring more than maxListedLinkTarget bytes stays empty
// without anything of its size allocated, and an encrypted link stays
// empty without the password being asked for.
func TestListedLinkTargets(t *testing.T) {
	tests := []struct {
		name   string
		link   []byte
		want   string
		prompt bool // a password callback is set
	}{
		{"stored", rar4Link("l", "dir/target.txt", 14, 0, 0x30), "dir/target.txt", false},
		{"at the limit", rar4Link("l", string(bytes.Repeat([]byte("a"), maxListedLinkTarget)), maxListedLinkTarget, 0, 0x30),
			string(bytes.Repeat([]byte("a"), maxListedLinkTarget)), false},
		{"above the limit", rar4Link("l", string(bytes.Repeat([]byte("a"), maxListedLinkTarget+1)), maxListedLinkTarget+1, 0, 0x30), "", false},
		{"declared above the limit", rar4Link("l", "x", maxListedLinkTarget+1, 0, 0x30), "", false},
		{"declared 1 GiB, compressed", rar4Link("l", "xxxxxxxx", 1<<30, 0, 0x33), "", false},
		{"encrypted", rar4Link("l", "0123456789abcdef", 16, lhdPassword, 0x30), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := rar4Archive(0, tt.link, rar4End())
			calls := 0
			var opts *archive.Options
			if tt.prompt {
				opts = pwOpts("secret", &calls)
			}
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			entries := r.Entries()
			runtime.ReadMemStats(&after)
			if len(entries) != 1 || entries[0].Type != archive.TypeSymlink {
				t.Fatalf("entries %v, want one symlink", entries)
			}
			if got := entries[0].LinkTarget; got != tt.want {
				t.Errorf("LinkTarget %q, want %q", got, tt.want)
			}
			if calls != 0 {
				t.Errorf("the password was asked for %d times", calls)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("Entries allocated %d bytes", n)
			}
		})
	}
}

// TestLinksToList: in a solid stream a link costs its predecessors since
// the last link chosen; links whose stream holds an encrypted predecessor,
// or beyond the work bound, are left for extraction.
func TestLinksToList(t *testing.T) {
	type file struct {
		link, solid, encrypted bool
		size                   int64
	}
	const big = maxLinkListWork / 2
	tests := []struct {
		name  string
		files []file
		want  []int // indexes of the links chosen
	}{
		{"non-solid links", []file{{link: true, size: 10}, {size: big}, {link: true, size: 10}}, []int{0, 2}},
		{"solid link after small files", []file{{size: 100}, {solid: true, size: 100}, {link: true, solid: true, size: 10}}, []int{2}},
		{"solid link after too much", []file{{size: big}, {solid: true, size: big}, {link: true, solid: true, size: 10}}, nil},
		{"a new stream starts", []file{{size: big}, {solid: true, size: big}, {link: true, size: 10}}, []int{2}},
		{"second link pays only the files between", []file{{size: big - 20}, {link: true, solid: true, size: 10},
			{solid: true, size: big - 20}, {link: true, solid: true, size: 10}}, []int{1, 3}},
		{"encrypted predecessor", []file{{size: 100, encrypted: true}, {link: true, solid: true, size: 10}}, nil},
		{"encrypted file before a new stream", []file{{size: 100, encrypted: true}, {link: true, size: 10}}, []int{1}},
		{"unknown size predecessor", []file{{size: -1}, {link: true, solid: true, size: 10}}, nil},
		{"total bound", []file{{link: true, size: maxListedLinkTarget}, {size: maxLinkListWork}, {solid: true, link: true, size: 10}}, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []*fileInfo
			for _, f := range tt.files {
				fi := &fileInfo{algo: algoRAR3, solid: f.solid, linkData: f.link}
				fi.e.Size = f.size
				if f.link {
					fi.e.Type = archive.TypeSymlink
				}
				if f.encrypted {
					fi.enc = encRAR3
				}
				files = append(files, fi)
			}
			chosen := linksToList(files)
			var got []int
			for i, f := range files {
				if chosen[&f.e] {
					got = append(got, i)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("chosen %v, want %v", got, tt.want)
			}
		})
	}
}

// rar5Redirect returns a RAR5 file-system redirection record of type
// typ (4 hard link, 5 file copy) to target.
func rar5Redirect(typ uint64, target string) []byte {
	rec := appendVint(appendVint(appendVint(appendVint(nil, 5), typ), 0), uint64(len(target)))
	rec = append(rec, target...)
	return append(appendVint(nil, uint64(len(rec))), rec...)
}

// TestRAR5BackslashByHost (issue 23, point 15): RAR5 separates with '/';
// a '\' in a name or a hard link's or copy's target written on Windows
// separates too, one written on Unix is a character of the name (as
// systemd's "system-systemd\x2dcryptsetup.slice").
func TestRAR5BackslashByHost(t *testing.T) {
	for _, c := range []struct {
		windows    bool
		name, link string
	}{
		{false, `d\x2dy.slice`, `d\x2dy.slice`},
		{true, "d/x2dy.slice", "d/x2dy.slice"},
	} {
		w := newRAR5Builder().main(0)
		w.windows = c.windows
		data := w.file(`d\x2dy.slice`, []byte("unit"), nil).
			file("h", nil, rar5Redirect(4, `d\x2dy.slice`)).
			file("c", nil, rar5Redirect(5, `d\x2dy.slice`)).end(false).bytes()
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		es := r.Entries()
		if len(es) != 3 || es[0].Name != c.name || es[1].LinkTarget != c.link || es[2].LinkTarget != c.link ||
			es[1].Type != archive.TypeHardlink || es[2].Type != archive.TypeCopy {
			t.Errorf("windows=%v: entries %q, %q -> %q, %q -> %q; want %q and links to %q", c.windows,
				es[0].Name, es[1].Name, es[1].LinkTarget, es[2].Name, es[2].LinkTarget, c.name, c.link)
		}
	}
}
