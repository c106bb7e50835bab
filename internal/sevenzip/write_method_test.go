package sevenzip

import (
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
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

// TestParallelLimit checks the largest folder compressed beside others:
// for LZMA and LZMA2 the dictionary divided by the threads, so that the
// encoders running at once hold no more than one encoder of the whole
// dictionary (two 50 MB files at -mx6 -ms=off took 1.06 GB with two
// encoders of 50 MB dictionaries, against 7-Zip's 516 MB).
func TestParallelLimit(t *testing.T) {
	for _, tc := range []struct {
		method  writeMethod
		level   int
		threads int
		want    int64
	}{
		{writeLZMA2, 6, 2, 32 << 20},
		{writeLZMA2, 9, 2, 128 << 20},
		{writeLZMA2, 9, 4, 64 << 20},
		{writeLZMA, 5, 2, 16 << 20},
		{writeLZMA2, 5, 1, 32 << 20},
		{writePPMd, 5, 2, 16 << 20},
	} {
		w := &writer{method: tc.method, lopts: lzma.LevelOptions(tc.level), ppmdMem: 16 << 20, opts: WriteOptions{Threads: tc.threads}}
		if got := w.parallelLimit(); got != tc.want {
			t.Errorf("method %v, mx%d, %d threads: %d, want %d", tc.method, tc.level, tc.threads, got, tc.want)
		}
	}
}
