package cli

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ulikunitz/xz/lzma"

	"github.com/garc-dev/garc/internal/testenv"
)

// streamPayload is compressible text of n bytes that differs along its
// length, so block and frame limits are reached.
func streamPayload(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of the single-stream -slt test: %x\n", i, i*i*2654435761)
	}
	return b.Bytes()[:n]
}

// compressWith runs a compressor on data and returns what it writes to
// stdout; skipped through testenv when the tool is missing.
func compressWith(t *testing.T, data []byte, tool string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, tool), args...)
	cmd.Stdin = bytes.NewReader(data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, errb.String())
	}
	return out.Bytes()
}

// gzipMember builds one gzip member by hand, with the optional header
// fields a test wants (FEXTRA, FNAME, FCOMMENT, FHCRC) and any OS byte.
func gzipMember(data []byte, mtime uint32, osByte byte, extra []byte, name, comment string, hcrc bool) []byte {
	var flags byte
	if extra != nil {
		flags |= 0x04
	}
	if name != "" {
		flags |= 0x08
	}
	if comment != "" {
		flags |= 0x10
	}
	if hcrc {
		flags |= 0x02
	}
	h := []byte{0x1f, 0x8b, 8, flags}
	h = binary.LittleEndian.AppendUint32(h, mtime)
	h = append(h, 0, osByte)
	if extra != nil {
		h = binary.LittleEndian.AppendUint16(h, uint16(len(extra)))
		h = append(h, extra...)
	}
	if name != "" {
		h = append(append(h, name...), 0)
	}
	if comment != "" {
		h = append(append(h, comment...), 0)
	}
	if hcrc {
		h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	}
	var body bytes.Buffer
	fw, _ := flate.NewWriter(&body, 6)
	fw.Write(data)
	fw.Close()
	h = append(h, body.Bytes()...)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(h, uint32(len(data)))
}

// zstdSkippable is a zstd skippable frame (magic 0x184D2A5n) holding p.
func zstdSkippable(n byte, p []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50+uint32(n))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	return append(b, p...)
}

// lzmaAlone encodes data as .lzma with ulikunitz/xz, the size in the
// header.
func lzmaAlone(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w, err := lzma.WriterConfig{SizeInHeader: true, Size: int64(len(data)), DictCap: 1 << 20}.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSLTStreamsMatch7zz compares `garc l -slt` of single-stream files
// with `7zz l -slt` from the "--" line on, key for key and value for
// value: 7-Zip's own keys for gzip (Headers Size; Path, Size, Packed
// Size, Modified, Host OS, CRC), bzip2 (Size and Packed Size, empty
// until decoded), xz (Physical Size, Method with filters and checks,
// Streams, Blocks, Cluster Size, Characteristics; Size, Packed Size,
// Method), .lzma (Method with the dictionary and lc/lp/pb; Size from the
// header) and zstd (Method as 7-Zip's header-open-only or parsed
// summary; Physical Size, Streams, Blocks, CRC and the sizes when the
// frames were walked), not the RAR layout it used to print. No key is
// left out of the comparison: every value 7zz prints without decoding,
// garc computes from the same headers, trailers and indexes.
func TestSLTStreamsMatch7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	dir := t.TempDir()
	small, large := streamPayload(30_000), streamPayload(300_000)
	plain := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(plain, small, 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(plain, mtime, mtime)
	gzipNamed := func(t *testing.T) []byte {
		// gzip records the file's name (FNAME) and mtime.
		cmd := exec.Command(testenv.Tool(t, "gzip"), "-c", "-9", "notes.txt")
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	cases := []struct {
		name string
		make func(t *testing.T) []byte
	}{
		{"named.txt.gz", gzipNamed},
		{"bare.txt.gz", func(t *testing.T) []byte { return compressWith(t, small, "gzip", "-c", "-n") }},
		{"multi.gz", func(t *testing.T) []byte {
			return cat(gzipNamed(t), compressWith(t, large, "gzip", "-c", "-n", "-1"))
		}},
		{"fields.gz", func(t *testing.T) []byte {
			return gzipMember(small, 1_700_000_000, 11, []byte("AB\x02\x00xy"), "named in header.txt", "a comment", true)
		}},
		{"os255.gz", func(t *testing.T) []byte { return gzipMember(small, 0, 255, nil, "", "", false) }},
		{"os25-members.gz", func(t *testing.T) []byte {
			return cat(gzipMember(large, 1, 25, nil, "first", "", false), gzipMember(small, 5, 0, nil, "second", "", false))
		}},
		{"one.bz2", func(t *testing.T) []byte { return compressWith(t, small, "bzip2", "-c") }},
		{"multi.bz2", func(t *testing.T) []byte {
			return cat(compressWith(t, small, "bzip2", "-c"), compressWith(t, large, "bzip2", "-c", "-1"))
		}},
		{"crc32.xz", func(t *testing.T) []byte { return compressWith(t, small, "xz", "-c", "-C", "crc32") }},
		{"crc64.xz", func(t *testing.T) []byte { return compressWith(t, small, "xz", "-c", "-C", "crc64") }},
		{"sha256.xz", func(t *testing.T) []byte { return compressWith(t, small, "xz", "-c", "-C", "sha256") }},
		{"nocheck.xz", func(t *testing.T) []byte { return compressWith(t, small, "xz", "-c", "-C", "none") }},
		{"blocks.xz", func(t *testing.T) []byte { return compressWith(t, large, "xz", "-c", "--block-size=40000") }},
		{"threaded.xz", func(t *testing.T) []byte {
			// Multi-threaded xz records the block sizes in the headers.
			return compressWith(t, large, "xz", "-c", "-T2", "--block-size=100000")
		}},
		{"streams.xz", func(t *testing.T) []byte {
			return cat(compressWith(t, small, "xz", "-c"), make([]byte, 8), compressWith(t, large, "xz", "-c", "-C", "sha256", "--lzma2=dict=3MiB"))
		}},
		{"delta.xz", func(t *testing.T) []byte {
			return compressWith(t, small, "xz", "-c", "--delta=dist=4", "--lzma2=preset=1,dict=100KiB")
		}},
		{"x86.xz", func(t *testing.T) []byte { return compressWith(t, small, "xz", "-c", "--x86", "--lzma2=dict=1MiB") }},
		{"empty.xz", func(t *testing.T) []byte { return compressWith(t, nil, "xz", "-c") }},
		{"xz-utils.lzma", func(t *testing.T) []byte { return compressWith(t, small, "xz", "-c", "--format=lzma") }},
		{"props.lzma", func(t *testing.T) []byte {
			return compressWith(t, small, "xz", "-c", "--format=lzma", "--lzma1=dict=3MiB,lc=1,lp=2,pb=0")
		}},
		{"sized.lzma", func(t *testing.T) []byte { return lzmaAlone(t, small) }},
		{"one.zst", func(t *testing.T) []byte { return compressWith(t, small, "zstd", "-q", "-c") }},
		{"frames.zst", func(t *testing.T) []byte {
			return cat(compressWith(t, small, "zstd", "-q", "-c"), compressWith(t, large, "zstd", "-q", "-c", "--no-check"))
		}},
		{"streamed.zst", func(t *testing.T) []byte {
			// Compressed from a pipe without a size: no content size,
			// a window descriptor instead of a single segment.
			return compressWith(t, large, "zstd", "-q", "-c", "--no-content-size")
		}},
		{"skippable-first.zst", func(t *testing.T) []byte {
			// A skippable frame first makes 7-Zip walk every frame.
			return cat(zstdSkippable(0, []byte("hello")), compressWith(t, small, "zstd", "-q", "-c"),
				zstdSkippable(3, nil), compressWith(t, large, "zstd", "-q", "-c", "-B20000", "--no-content-size"))
		}},
		{"skippable-one-frame.zst", func(t *testing.T) []byte {
			return cat(zstdSkippable(1, []byte("x")), compressWith(t, large, "zstd", "-q", "-c", "-19"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.make(t), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(zz, "l", "-slt", tc.name)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TZ=UTC")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("7zz l -slt %s: %v", tc.name, err)
			}
			want := string(out[bytes.Index(out, []byte("\n--\n"))+1:])
			r := garc(t, dir, "", "l", "-slt", tc.name)
			r.expect(t, ExitOK, "l -slt "+tc.name)
			got := r.stdout[strings.Index(r.stdout, "\n--\n")+1:]
			if got != want {
				t.Errorf("-slt differs from 7zz\n--- 7zz\n%s\n--- garc\n%s", want, got)
			}
		})
	}
}
