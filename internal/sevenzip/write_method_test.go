package sevenzip

import (
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func TestArchiveMethods(t *testing.T) {
	tests := []struct {
		methods []string
		want    string
	}{
		{[]string{"LZMA2:12"}, "LZMA2:12"},
		{[]string{"ARMT LZMA2:17", "ARMT LZMA2:17"}, "LZMA2:17 ARMT"},
		{[]string{"BCJ2 LZMA:16 LZMA:16:lc0:lp2", "LZMA2:16"}, "LZMA2:16 LZMA:16 BCJ2"},
		{[]string{"LZMA:16", "LZMA:24", "LZMA:1536k"}, "LZMA:24"},
		{[]string{"LZMA:3m", "LZMA:21"}, "LZMA:3m"},
		{[]string{"PPMD:o6:mem24 BCJ", "Delta:4 LZMA2:17"}, "Delta LZMA2:17 PPMD BCJ"}, // by ID: PPMD 030401 < BCJ 03030103
		{[]string{"LZMA2:17 7zAES:19", "BCJ LZMA2:17 7zAES:19"}, "LZMA2:17 BCJ 7zAES"},
		{[]string{"Copy", "BZip2", "Deflate"}, "Copy Deflate BZip2"},
		{[]string{"Mystery", "Copy"}, "Copy Mystery"},
		{[]string{"020302 LZMA:16", "ZSTD"}, "020302 LZMA:16 ZSTD"}, // an unknown ID by its digits (SWAP2)
		{[]string{""}, ""},
	}
	for _, tc := range tests {
		var all []*archive.Entry
		for _, m := range tc.methods {
			all = append(all, &archive.Entry{Method: m})
		}
		if got := ArchiveMethods(all); got != tc.want {
			t.Errorf("methods %q: got %q, want %q", tc.methods, got, tc.want)
		}
	}
}
