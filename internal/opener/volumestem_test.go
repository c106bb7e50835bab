package opener

import "testing"

func TestVolumeSetStem(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"b.part1.rar", "b"},
		{"dir/b.part01.rar", "b"},
		{"B.PART2.RAR", "B"},
		{"a.7z.001", "a.7z"},
		{"a.7z.002", "a.7z"},
		{"a.zip.0001", "a.zip"},
		{"x.r00", "x"},
		{"x.R17", "x"},
		{"x.s01", "x"},
		{"x.rar", "x"},
		{"x.part.rar", "x.part"},   // no part number
		{"x.partA.rar", "x.partA"}, // not a number
		{"e.tar.rar", "e.tar"},
		{"c.7z", "c.7z"}, // not a volume name
		{"c.tar.gz", "c.tar.gz"},
		{"noext", "noext"},
		{"a.7z.000", "a.7z.000"}, // not a split part (Open does not read it as one)
		{"a.7z.1", "a.7z.1"},
		{".rar", ".rar"},
		{".r00", ".r00"},
		{".part1.rar", ".part1"},
	} {
		if got := VolumeSetStem(tc.path); got != tc.want {
			t.Errorf("VolumeSetStem(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
