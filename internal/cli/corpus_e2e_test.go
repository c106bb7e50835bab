package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestDetectionOnCorpus runs the binary on real archives from the shared
// corpus: SFX stubs, RAR volume sets, raw splits and a dictionary above
// the default limit.
func TestDetectionOnCorpus(t *testing.T) {
	root := testenv.CorpusRoot(t)
	f := func(p string) string { return filepath.Join(root, "files", p) }
	dir := t.TempDir()

	type listing struct {
		Archive struct {
			Type      string   `json:"type"`
			Volumes   []string `json:"volumes"`
			SFXOffset int64    `json:"sfx_offset"`
		} `json:"archive"`
		Entries []struct{ Path string } `json:"entries"`
	}
	list := func(path string) listing {
		t.Helper()
		r := garc(t, dir, "", "l", "--format=json", path)
		r.expect(t, ExitOK, "l "+path)
		var l listing
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return l
	}
	tests := []struct {
		path    string
		typ     string
		sfx     int64
		volumes int
	}{
		{f("sharpcompress/Archives__7Zip.LZMA2.exe"), "7z", 214016, 1},
		{f("libarchive/test_read_format_rar5_sfx.exe"), "rar5", 316928, 1},
		{f("sharpcompress/Archives__Rar.jpeg.jpg"), "rar4", 40372, 1},
		{f("sharpcompress/Archives__Rar5.multi.part01.rar"), "rar5", 0, 6},
		{f("sharpcompress/Archives__Rar2.multi.rar"), "rar4", 0, 7},
		{f("libarchive/test_read_splitted_rar_aa"), "rar4", 0, 4},
		{f("sharpcompress/Archives__Original.7z.001"), "7z", 0, 7},
	}
	for _, tc := range tests {
		l := list(tc.path)
		if l.Archive.Type != tc.typ || l.Archive.SFXOffset != tc.sfx || len(l.Archive.Volumes) != tc.volumes || len(l.Entries) == 0 {
			t.Errorf("%s: type %s sfx %d volumes %d entries %d; want %s %d %d", filepath.Base(tc.path),
				l.Archive.Type, l.Archive.SFXOffset, len(l.Archive.Volumes), len(l.Entries), tc.typ, tc.sfx, tc.volumes)
		}
	}
	for _, p := range []string{"sharpcompress/Archives__7Zip.LZMA2.exe", "libarchive/test_read_format_rar5_sfx.exe",
		"sharpcompress/Archives__Rar5.multi.part01.rar", "libarchive/test_read_splitted_rar_aa"} {
		garc(t, dir, "", "t", f(p)).expect(t, ExitOK, "t "+p)
	}
	out := filepath.Join(dir, "sfx")
	garc(t, dir, "", "x", f("sharpcompress/Archives__7Zip.LZMA2.exe"), "-o", out).expect(t, ExitOK, "x SFX")
	if ents, _ := os.ReadDir(out); len(ents) == 0 {
		t.Error("x SFX extracted nothing")
	}

	// A selected RAR5 file copy and hard link bring their targets.
	links := filepath.Join(dir, "links")
	garc(t, dir, "", "x", f("junrar/com__github__junrar__links__rar5-links.rar"), "-o", links, "copy-b.bin", "hard.txt").expect(t, ExitOK, "x copy and hard link")
	for _, n := range []string{"copy-b.bin", "copy-a.bin", "hard.txt", "file.txt"} {
		if _, err := os.Stat(filepath.Join(links, n)); err != nil {
			t.Errorf("x copy-b.bin hard.txt: %v", err)
		}
	}

	// A later volume of a complete set opens the set from its first.
	r := garc(t, dir, "", "l", "--format=json", f("sharpcompress/Archives__Rar5.multi.part03.rar"))
	r.expect(t, ExitOK, "later volume")
	if !strings.Contains(r.stdout, "part01.rar") {
		t.Errorf("later volume: the set is not read from the first volume: %q", r.stdout)
	}

	// A 6 GiB dictionary is above the default limit: exit 8, quickly.
	r = garc(t, dir, "", "t", f("junrar/com__github__junrar__rar7__rar7-md6g.rar"))
	r.expect(t, ExitLimit, "6 GiB dictionary")
	if !strings.Contains(r.stderr, "--max-dict") {
		t.Errorf("limit message does not say how to raise it: %q", r.stderr)
	}
}
