package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestZoneStreamRoundTrip writes and reads a Zone.Identifier stream by
// the calls extraction uses (under Wine, which has no streams, the same
// calls reach a file of that name, which is why the extractor checks the
// volume first: TestMarkOfWebExtracted).
func TestZoneStreamRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readZone(p); err != nil || b != nil {
		t.Fatalf("a file without a mark: %q, %v", b, err)
	}
	zone := []byte("[ZoneTransfer]\r\nZoneId=3\r\n")
	if err := writeZone(p, zone); err != nil {
		t.Fatal(err)
	}
	if b, err := readZone(p); err != nil || !bytes.Equal(b, zone) {
		t.Fatalf("read back %q, %v", b, err)
	}
	if got := ArchiveZone(p); !bytes.Equal(got, zone) {
		t.Errorf("ArchiveZone = %q", got)
	}
}

// TestMarkOfWebExtracted: with Options.ZoneIdentifier every extracted
// file (e's flat files too) gets the stream where the volume keeps named
// streams; where it does not (FAT, Wine) nothing is written, and no file
// named "a.txt:Zone.Identifier" appears in its stead.
func TestMarkOfWebExtracted(t *testing.T) {
	zone := []byte("[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://example.com/a.7z\r\n")
	for _, flat := range []bool{false, true} {
		f := newFixture(t, Options{ZoneIdentifier: zone, Flat: flat})
		if err := f.write(fileEntry("d/a.txt"), "a"); err != nil {
			t.Fatal(err)
		}
		if err := f.x.Finish(); err != nil {
			t.Fatal(err)
		}
		name := "d/a.txt"
		if flat {
			name = "a.txt"
		}
		p := filepath.Join(f.dest, filepath.FromSlash(name))
		got, err := readZone(p)
		if err != nil {
			t.Fatal(err)
		}
		if namedStreams(f.dest) {
			if !bytes.Equal(got, zone) {
				t.Errorf("flat=%v: %s carries %q, want %q", flat, name, got, zone)
			}
			continue
		}
		t.Log("this file system keeps no named streams (FILE_NAMED_STREAMS unset): no Mark of the Web written (Wine)")
		if got != nil {
			t.Errorf("flat=%v: a mark was written where the volume keeps no streams: %q", flat, got)
		}
		entries, _ := os.ReadDir(filepath.Dir(p))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"a.txt"}) {
			t.Errorf("flat=%v: the directory holds %q", flat, names)
		}
	}
}
