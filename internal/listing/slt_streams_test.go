package listing

import (
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
)

// TestStreamSLTStrings checks 7-Zip's renderings that the single-stream
// -slt builds (values taken from 7zz 26.02 l -slt): xz methods with
// filters and checks, .lzma dictionaries and lc/lp/pb, zstd summaries
// and gzip host names.
func TestStreamSLTStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{xzMethod(&stream.XZDetails{Indexed: true, Checks: 1 << 4, Filters: []stream.XZFilter{{ID: 0x21, Props: []byte{22}}}}), "LZMA2:23 CRC64"},
		{xzMethod(&stream.XZDetails{Indexed: true, Checks: 1<<1 | 1<<10 | 1<<0, Filters: []stream.XZFilter{{ID: 0x21, Props: []byte{19}}}}), "LZMA2:3m NoCheck CRC32 SHA256"},
		{xzMethod(&stream.XZDetails{Filters: []stream.XZFilter{{ID: 3, Props: []byte{3}}, {ID: 0x21, Props: []byte{7}}}}), "Delta:4 LZMA2:48k"},
		{xzMethod(&stream.XZDetails{Indexed: true, Checks: 1 << 7, Filters: []stream.XZFilter{{ID: 4}, {ID: 0x0A, Props: []byte{2}}, {ID: 0x99, Props: []byte{1, 0xAB}}}}), "BCJ ARM64:20 153:[01AB] Check-7"},
		{xzMethod(&stream.XZDetails{Indexed: true, Checks: 1 << 4}), "CRC64"},
		{lzmaMethod(stream.LZMADetails{Props: 0x5D, DictSize: 1 << 23}), "LZMA:23"},
		{lzmaMethod(stream.LZMADetails{Props: 2*45 + 2*9 + 1, DictSize: 3 << 20}), "LZMA:3m:lc1:lp2"},
		{lzmaMethod(stream.LZMADetails{Props: 3, DictSize: 100000}), "LZMA:100000b:pb0"},
		{lzmaMethod(stream.LZMADetails{Props: 0x5D, DictSize: 96 << 10}), "LZMA:96k"},
		{zstdMethod(&stream.ZstdDetails{DataFrames: 1, DescriptorOR: 0x24, DescriptorNOTOR: ^byte(0x24), WindowMax: 22637, WindowAllocMax: 22637, ContentSizeMax: 22637, ContentSizeTotal: 22637}),
			"header-open-only: XXH64 single-segments wnd-MAX:22637 content-size-frame-max:22637 content-size-total:22637"},
		{zstdMethod(&stream.ZstdDetails{DataFrames: 1, DescriptorOR: 0x04, DescriptorNOTOR: ^byte(0x04), WindowDescriptorMax: 0x58, WindowMax: 8 << 20, WindowAllocMax: 8 << 20, ContentSizeUnknown: true}),
			"header-open-only: XXH64 wnd-desc-log-MAX:21 wnd-MAX:8MiB unknown-content-size"},
		{zstdMethod(&stream.ZstdDetails{Parsed: true, DataFrames: 2, SkipFrames: 2, SkipBytes: 5, DictionaryID: 7, DictionaryIDsDiffer: true,
			DescriptorOR: 0x65, DescriptorNOTOR: 0xFF, WindowDescriptorMax: 0x51, WindowMax: 9 << 17, WindowAllocMax: 1 << 10, ContentSizeMax: 9, ContentSizeTotal: 10}),
			"parsed: different-dictionary-IDs dictionary-ID:7 XXH64 NO-XXH64 single-segments wnd-desc-log-MAX:20.1 wnd-MAX:1152KiB wnd-use-MAX:1KiB data-frames:2 skip-frames:2 skip-frames-size-total:5 content-size-frame-max:9 content-size-total:10"},
		{zstdMethod(&stream.ZstdDetails{SkipFrames: 1, SkipBytes: 3}), "header-open-only: data-frames:0 skip-frames:1 skip-frames-size-total:3"},
		{gzipHostOS(3), "Unix"},
		{gzipHostOS(19), "OS/X"},
		{gzipHostOS(255), "255"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestWriteStreamSLT checks the layout of a single-stream -slt: 7-Zip's
// archive keys for the format, then its entry keys, empty where 7-Zip
// leaves them empty, not the RAR keys.
func TestWriteStreamSLT(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	all := func(*archive.Entry) bool { return true }
	for _, tc := range []struct {
		name  string
		info  archive.Info
		entry archive.Entry
		want  string
	}{
		{"a.gz", archive.Info{Format: "gzip", PhysicalSize: 100, Details: &stream.Details{Kind: stream.Gzip, Gzip: stream.GzipDetails{HeaderSize: 12, HostOS: 3, CRC32: 0xABCDEF01}}},
			archive.Entry{Name: "a", Size: 300, ModTime: mtime},
			"Path = a.gz\nType = gzip\nHeaders Size = 12\n\n----------\nPath = a\nSize = 300\nPacked Size = 100\nModified = 2024-05-06 07:08:09\nHost OS = Unix\nCRC = ABCDEF01\n\n"},
		{"b.gz", archive.Info{Format: "gzip", PhysicalSize: 100, Details: &stream.Details{Kind: stream.Gzip, Gzip: stream.GzipDetails{HeaderSize: 10, HostOS: 11}}},
			archive.Entry{Name: "b", Size: 300},
			"Path = b.gz\nType = gzip\nHeaders Size = 10\n\n----------\nPath = b\nSize = 300\nPacked Size = 100\nModified = \nHost OS = NTFS\nCRC = 00000000\n\n"},
		{"a.bz2", archive.Info{Format: "bzip2", PhysicalSize: 100, Details: &stream.Details{Kind: stream.Bzip2}},
			archive.Entry{Name: "a", Size: -1},
			"Path = a.bz2\nType = bzip2\n\n----------\nSize = \nPacked Size = \n\n"},
		{"a.xz", archive.Info{Format: "xz", PhysicalSize: 100, Details: &stream.Details{Kind: stream.XZ, XZ: stream.XZDetails{Indexed: true, Streams: 2, Blocks: 3, MaxBlockSize: 4096, Checks: 1 << 4, FirstBlockFlags: 0xC0, Filters: []stream.XZFilter{{ID: 0x21, Props: []byte{22}}}}}},
			archive.Entry{Name: "a", Size: 5000},
			"Path = a.xz\nType = xz\nPhysical Size = 100\nMethod = LZMA2:23 CRC64\nStreams = 2\nBlocks = 3\nCluster Size = 4096\nCharacteristics = BlockPackSize BlockUnpackSize\n\n----------\nSize = 5000\nPacked Size = 100\nMethod = LZMA2:23 CRC64\n\n"},
		{"bad.xz", archive.Info{Format: "xz", PhysicalSize: 100, Details: &stream.Details{Kind: stream.XZ, XZ: stream.XZDetails{Filters: []stream.XZFilter{{ID: 0x21, Props: []byte{8}}}}}},
			archive.Entry{Name: "bad", Size: -1},
			// Without consistent indexes 7-Zip knows neither size nor check.
			"Path = bad.xz\nType = xz\nMethod = LZMA2:16\n\n----------\nSize = \nPacked Size = \nMethod = LZMA2:16\n\n"},
		{"a.lzma", archive.Info{Format: "lzma", PhysicalSize: 100, Details: &stream.Details{Kind: stream.LZMA, LZMA: stream.LZMADetails{Props: 0x5D, DictSize: 1 << 16}}},
			archive.Entry{Name: "a", Size: -1},
			"Path = a.lzma\nType = lzma\nMethod = LZMA:16\n\n----------\nSize = \nPacked Size = \nMethod = LZMA:16\n\n"},
		{"a.zst", archive.Info{Format: "zstd", PhysicalSize: 100, Details: &stream.Details{Kind: stream.Zstd, Zstd: stream.ZstdDetails{Parsed: true, DataFrames: 1, SkipFrames: 1, Blocks: 2, PhysicalSize: 90,
			DescriptorOR: 0x24, DescriptorNOTOR: ^byte(0x24), WindowMax: 50, WindowAllocMax: 50, ContentSizeMax: 50, ContentSizeTotal: 50, Checksum: 0x1234, ChecksumKnown: true}}},
			archive.Entry{Name: "a", Size: -1},
			"Path = a.zst\nType = zstd\nPhysical Size = 90\nStreams = 1\nBlocks = 2\nMethod = parsed: XXH64 single-segments wnd-MAX:50 skip-frames:1 skip-frames-size-total:0 content-size-frame-max:50 content-size-total:50\nCRC = 00001234\n\n----------\nSize = 50\nPacked Size = 90\n\n"},
	} {
		var b strings.Builder
		WriteSLT(&b, tc.name, &tc.info, []*archive.Entry{&tc.entry}, all)
		got := b.String()
		got = got[strings.Index(got, "\n--\n")+4:]
		if got != tc.want {
			t.Errorf("%s:\n--- got\n%s--- want\n%s", tc.name, got, tc.want)
		}
	}
}
