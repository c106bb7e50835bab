package sevenzip

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestLZMA2SegmentsThreads: a folder written by 7zz -mx1 -mmt2 (LZMA2
// blocks of 1 MiB, each resetting the dictionary) extracts the same with
// Threads 2 (its segments decoded in parallel) as with one thread, and
// damage in a middle block gives both the same entries and error.
func TestLZMA2SegmentsThreads(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	var data bytes.Buffer
	for i := 0; data.Len() < 3500<<10; i++ {
		fmt.Fprintf(&data, "%d,%x,row %d\n", i, i*i, i%977)
	}
	if err := os.WriteFile(filepath.Join(src, "big.csv"), data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	arc := filepath.Join(t.TempDir(), "t.7z")
	run7zz(t, sevenzz, src, arc, "-mx1", "-mmt2")
	good, err := os.ReadFile(arc)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[32+len(good)/3] ^= 0x40 // inside the packed stream, after the first block
	extract := func(arc []byte, threads int) (map[string]string, error) {
		rd, err := NewReader(bytes.NewReader(arc), int64(len(arc)), &archive.Options{Threads: threads})
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		return extractToMap(rd)
	}
	got, err := extract(good, 2)
	if err != nil {
		t.Fatal(err)
	}
	compareTrees(t, got, map[string]string{"big.csv": data.String()})
	want, wantErr := extract(bad, 1)
	got, err = extract(bad, 2)
	if wantErr == nil {
		t.Fatal("damage not noticed")
	}
	t.Logf("damaged: %v", err)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || len(got) != len(want) {
		t.Errorf("threads 2: %d entries, %v; threads 1: %d entries, %v", len(got), err, len(want), wantErr)
	}
}

// TestSegmentedNotPrefetched: with two threads, a folder whose LZMA2
// stream resets its dictionary every 1 MiB (7zz -mmt2) is decoded by its
// own decoder's threads as it streams, not prefetched whole into memory
// (two such folders of a source tree held 141 MiB); a folder of one
// segment (7zz -mmt1) still is. Both extract as written.
func TestSegmentedNotPrefetched(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	want := map[string]string{}
	for _, name := range []string{"a.csv", "b.csv"} {
		var data bytes.Buffer
		for i := 0; data.Len() < 2500<<10; i++ {
			fmt.Fprintf(&data, "%s %d,%x,row %d\n", name, i, i*i, i%977)
		}
		if err := os.WriteFile(filepath.Join(src, name), data.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = data.String()
	}
	for _, tc := range []struct {
		mt        string
		segmented bool
	}{{"-mmt2", true}, {"-mmt1", false}} {
		arc := filepath.Join(t.TempDir(), "t.7z")
		run7zz(t, sevenzz, src, arc, "-mx1", "-ms=1f", tc.mt)
		b, err := os.ReadFile(arc)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := newReader(bytes.NewReader(b), int64(len(b)), &archive.Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		folders, need := rd.plan(nil)
		if len(folders) != 2 {
			t.Fatalf("%s: %d folders, want 2", tc.mt, len(folders))
		}
		pf := rd.startPrefetch(t.Context(), folders, need, 2)
		pf.stop()
		for _, fo := range folders {
			if got := rd.segmented(fo); got != tc.segmented {
				t.Errorf("%s: folder %d segmented %v, want %v", tc.mt, fo, got, tc.segmented)
			}
		}
		if wantJobs := map[bool]int{true: 0, false: 2}[tc.segmented]; len(pf.order) != wantJobs {
			t.Errorf("%s: %d folders prefetched, want %d", tc.mt, len(pf.order), wantJobs)
		}
		got, err := extractToMap(rd)
		if err != nil {
			t.Fatal(err)
		}
		compareTrees(t, got, want)
		rd.Close()
	}
}
