package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/sevenzip"
)

// TestCreateSummary checks the closing line of a and d: what the run did
// in plain words with nouns in their number (issue 24, point 11: "1
// entries deleted", "1 blocks copied"), what the archive now holds, its
// size, and the share of the content only for content large enough that
// it means something (not "(1875.0 %)" for a tiny input).
func TestCreateSummary(t *testing.T) {
	took := 1500 * time.Millisecond
	for _, tc := range []struct {
		st   sevenzip.WriteStats
		want string
	}{
		{sevenzip.WriteStats{Files: 3, Dirs: 1, Added: 4, BytesIn: 4 << 20, BytesOut: 1 << 20, UnpackedSize: 4 << 20},
			"3 files and 1 folder added (4.0 MiB); archive 1.0 MiB (25 % of the content), written in 1.50 s\n"},
		{sevenzip.WriteStats{Files: 1, Added: 1, BytesIn: 16, BytesOut: 300, UnpackedSize: 16},
			"1 file added (16 B); archive 300 B, written in 1.50 s\n"},
		{sevenzip.WriteStats{Files: 15, Dirs: 1, Added: 2, Kept: 14, Skipped: 13, BytesIn: 112, BytesOut: 334, UnpackedSize: 112, CopiedFolders: 1},
			"2 entries added or replaced (112 B compressed), 13 unchanged, 1 other entry kept; now 15 files and 1 folder (112 B); archive 334 B, written in 1.50 s\n"},
		{sevenzip.WriteStats{Files: 2, Kept: 2, Skipped: 2, BytesOut: 200, UnpackedSize: 20},
			"nothing added or replaced, 2 unchanged; now 2 files (20 B); archive 200 B, written in 1.50 s\n"},
		{sevenzip.WriteStats{Files: 14, Dirs: 1, Kept: 15, Deleted: 1, BytesIn: 97, BytesOut: 326, UnpackedSize: 105, CopiedFolders: 1},
			"1 entry deleted (97 B recompressed); now 14 files and 1 folder (105 B); archive 326 B, written in 1.50 s\n"},
		{sevenzip.WriteStats{Files: 1, Kept: 1, Deleted: 2, BytesOut: 2 << 20, UnpackedSize: 4 << 20, CopiedFolders: 1},
			"2 entries deleted; now 1 file (4.0 MiB); archive 2.0 MiB (50 % of the content), written in 1.50 s\n"},
		{sevenzip.WriteStats{Files: 1, Added: 1, BytesIn: 512 << 10, BytesOut: 339, UnpackedSize: 512 << 10},
			"1 file added (512.0 KiB); archive 339 B (under 1 % of the content), written in 1.50 s\n"},
	} {
		var b bytes.Buffer
		summary(&b, &tc.st, took)
		if b.String() != tc.want {
			t.Errorf("summary %q\nwant    %q", b.String(), tc.want)
		}
	}
}

// TestExtractSummaryWords checks the closing line of x in each case
// (issue 24, points 11 and 12): plurals, existing files kept with -aos
// ("Nothing extracted", not "Everything is Ok: 0 files"), and the advice
// to add -y only when nobody chose to keep them.
func TestExtractSummaryWords(t *testing.T) {
	for _, tc := range []struct {
		s        extractSummary
		ok, hint bool
		want     string
	}{
		{extractSummary{files: 1, folders: 1, size: 1}, true, true, "Everything is Ok: 1 file, 1 folder, 1 byte\n"},
		{extractSummary{files: 2, size: 9}, true, true, "Everything is Ok: 2 files, 0 folders, 9 bytes\n"},
		{extractSummary{files: 2, folders: 3, size: 9, existing: 1}, true, false, "Everything is Ok: 2 files, 3 folders, 9 bytes; 1 existing file kept\n"},
		{extractSummary{folders: 1, existing: 14}, true, false, "Nothing extracted: 14 existing files kept\n"},
		{extractSummary{existing: 1}, false, true, "1 existing file kept: add -y to overwrite it, or --overwrite=rename to keep both\n"},
		{extractSummary{existing: 5}, false, true, "5 existing files kept: add -y to overwrite them, or --overwrite=rename to keep both\n"},
		{extractSummary{existing: 5}, false, false, "5 existing files kept\n"},
		{extractSummary{}, false, true, ""},
	} {
		var b bytes.Buffer
		tc.s.print(&b, tc.ok, tc.hint)
		if b.String() != tc.want {
			t.Errorf("%+v ok %v hint %v: %q\nwant %q", tc.s, tc.ok, tc.hint, b.String(), tc.want)
		}
	}
}
