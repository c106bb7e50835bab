package rar

import (
	"bytes"
	"encoding/binary"
	"flag"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated fuzz seed corpora under testdata/fuzz")

// rar4Block returns a RAR 1.5–4.x block: CRC16, type, flags, size, then
// body; with data, the long-block flag is set and the data size is the
// first field after the size, as in file headers.
func rar4Block(typ byte, flags uint16, body, data []byte) []byte {
	var h []byte
	h = append(h, typ)
	if data != nil {
		flags |= 0x8000
	}
	h = binary.LittleEndian.AppendUint16(h, flags)
	size := 7 + len(body)
	if data != nil {
		size += 4
	}
	h = binary.LittleEndian.AppendUint16(h, uint16(size))
	if data != nil {
		h = binary.LittleEndian.AppendUint32(h, uint32(len(data)))
	}
	h = append(h, body...)
	out := binary.LittleEndian.AppendUint16(nil, uint16(crc32.ChecksumIEEE(h)))
	out = append(out, h...)
	return append(out, data...)
}

// rar4File returns a file block for name whose content is content and
// whose packed data is packed (content itself for method 0x30).
func rar4File(flags uint16, name string, unpVer, method byte, attr uint32, content, packed []byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(len(content)))
	b = append(b, 3) // host OS: unix
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(content))
	b = binary.LittleEndian.AppendUint32(b, 0x5a210000) // DOS time 2025-01-01
	b = append(b, unpVer, method)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	b = binary.LittleEndian.AppendUint32(b, attr)
	b = append(b, name...)
	if packed == nil {
		packed = []byte{}
	}
	return rar4Block(block4File, flags, b, packed)
}

func rar4Archive(mainFlags uint16, blocks ...[]byte) []byte {
	out := append([]byte(nil), sigRAR4...)
	out = append(out, rar4Block(block4Main, mainFlags, make([]byte, 6), nil)...)
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

// rar14File returns a RAR 1.4 file header followed by its data.
func rar14File(flags byte, name string, method byte, attr byte, content, packed []byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(len(packed)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(content)))
	b = binary.LittleEndian.AppendUint16(b, uint16(rar14Sum(0, content)))
	b = binary.LittleEndian.AppendUint16(b, uint16(21+len(name)))
	b = binary.LittleEndian.AppendUint32(b, 0x5a210000)
	b = append(b, attr, flags, 2, byte(len(name)), method)
	b = append(b, name...)
	return append(b, packed...)
}

func rar14Archive(flags byte, files ...[]byte) []byte {
	out := append([]byte(nil), sigRAR14...)
	out = binary.LittleEndian.AppendUint16(out, 7)
	out = append(out, flags)
	for _, f := range files {
		out = append(out, f...)
	}
	return out
}

// rar5Record returns a RAR5 extra record of type typ.
func rar5Record(typ uint64, body []byte) []byte {
	rec := append(appendVint(nil, typ), body...)
	return append(appendVint(nil, uint64(len(rec))), rec...)
}

// pseudoPacked returns n bytes that look like compressed data.
func pseudoPacked(n int, seed uint32) []byte {
	b := make([]byte, n)
	for i := range b {
		seed = seed*1664525 + 1013904223
		b[i] = byte(seed >> 24)
	}
	return b
}

// fuzzSeeds are the generated seed corpora of the container fuzz targets:
// small archives that reach each kind of header, record and decoder.
func fuzzSeeds() map[string]map[string][]byte {
	hello := []byte("hello, world\n")
	rar5Compressed := func(method, version uint64, solid bool) []byte {
		w := newRAR5Builder().main(0)
		// file with compression info: version, solid, method, 128 KiB dictionary
		ci := version | method<<7
		if solid {
			ci |= 0x40
		}
		var b []byte
		b = appendVint(b, 0x4)
		b = appendVint(b, 200)
		b = appendVint(b, 0)
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = appendVint(b, ci)
		b = appendVint(b, 0)
		b = appendVint(b, 1)
		b = append(b, 'z')
		// one block: table present, last block, one size byte, 8 bits
		// used in its final byte; the checksum covers flags and size
		const flags, size = 0xc7, 60
		packed := append([]byte{flags, 0x5a ^ flags ^ size, size}, pseudoPacked(size, uint32(method))...)
		return w.header(head5File, b, packed).end(false).bytes()
	}
	timeRec := rar5Record(3, append(appendVint(nil, 0x3), binary.LittleEndian.AppendUint32(nil, 1735689600)...))
	hashRec := rar5Record(2, append(appendVint(nil, 0), make([]byte, 32)...))
	linkRec := rar5Record(5, append(appendVint(appendVint(appendVint(nil, 1), 0), 6), "target"...))
	hardRec := rar5Record(5, append(appendVint(appendVint(appendVint(nil, 4), 0), 1), "a"...))
	ownerRec := rar5Record(6, append(appendVint(nil, 0x3), append([]byte{4}, append([]byte("user"), append([]byte{5}, "group"...)...)...)...))
	return map[string]map[string][]byte{
		"FuzzRAR5Headers": {
			"stored":      newRAR5Builder().main(0).file("a", hello, nil).end(false).bytes(),
			"two-files":   newRAR5Builder().main(0).file("a", hello, timeRec).file("b/c", nil, hashRec).end(false).bytes(),
			"records":     newRAR5Builder().main(0).file("a", hello, nil).file("l", nil, linkRec).file("h", nil, hardRec).file("o", hello, ownerRec).end(false).bytes(),
			"encrypted":   newRAR5Builder().main(0).file("e", make([]byte, 16), encryptionRecord(4)).end(false).bytes(),
			"crypt-head":  newRAR5Builder().main(0).crypt(4).bytes(),
			"volume":      newRAR5Builder().main(1).file("v", hello, nil).end(true).bytes(),
			"service-cmt": newRAR5Builder().main(0).service("CMT", []byte("a comment")).file("a", hello, nil).end(false).bytes(),
			"lz":          rar5Compressed(3, 0, false),
			"lz-solid":    rar5Compressed(1, 0, true),
			"lz-v1":       rar5Compressed(5, 1, false),
		},
		"FuzzRAR4Headers": {
			"stored": rar4Archive(0,
				rar4File(0, "a.txt", 20, 0x30, 0o100644, hello, hello),
				rar4Block(block4End, 0, nil, nil)),
			"dir-and-file": rar4Archive(0,
				rar4File(lhdDirectory, "d", 20, 0x30, 0o40755, nil, nil),
				rar4File(0, "d/f", 20, 0x30, 0o100644, hello, hello),
				rar4Block(block4End, 0, nil, nil)),
			"lz29": rar4Archive(mhdSolid,
				rar4File(0, "a", 29, 0x33, 0o100644, make([]byte, 100), append([]byte{0}, pseudoPacked(48, 29)...)),
				rar4File(lhdSolid, "b", 29, 0x33, 0o100644, make([]byte, 100), pseudoPacked(24, 30)),
				rar4Block(block4End, 0, nil, nil)),
			"ppmd": rar4Archive(0,
				rar4File(0, "p", 29, 0x35, 0o100644, make([]byte, 100), append([]byte{0xa0, 0x07}, pseudoPacked(40, 31)...)),
				rar4Block(block4End, 0, nil, nil)),
			"lz20": rar4Archive(0,
				rar4File(0, "a", 20, 0x33, 0o100644, make([]byte, 100), pseudoPacked(48, 20)),
				rar4Block(block4End, 0, nil, nil)),
			"lz15": rar4Archive(0,
				rar4File(0, "a", 15, 0x33, 0o100644, make([]byte, 100), pseudoPacked(48, 15)),
				rar4Block(block4End, 0, nil, nil)),
			"volume": rar4Archive(mhdVolume|mhdFirstVol|mhdNewNumber,
				rar4File(lhdSplitAfter, "v", 20, 0x30, 0o100644, hello, hello[:5]),
				rar4Block(block4End, earcNextVolume, nil, nil)),
			"encrypted": rar4Archive(0,
				rar4File(lhdPassword, "e", 29, 0x30, 0o100644, make([]byte, 16), make([]byte, 16)),
				rar4Block(block4End, 0, nil, nil)),
			"encrypted-headers": append(rar4Archive(mhdPassword), pseudoPacked(48, 4)...),
		},
		"FuzzRAR14Headers": {
			"stored":    rar14Archive(0, rar14File(0, "A.TXT", 0, 0x20, hello, hello)),
			"lz":        rar14Archive(0, rar14File(0, "A", 3, 0x20, make([]byte, 100), pseudoPacked(40, 14))),
			"solid":     rar14Archive(mhd14Solid, rar14File(0, "A", 1, 0x20, hello, pseudoPacked(20, 1)), rar14File(lhd14Solid, "B", 1, 0x20, hello, pseudoPacked(20, 2))),
			"dir":       rar14Archive(0, rar14File(0, "D", 0, 0x10, nil, nil)),
			"encrypted": rar14Archive(0, rar14File(lhd14Password, "E", 0, 0x20, hello, hello)),
		},
	}
}

// TestFuzzSeeds keeps the committed seed corpora in step with
// fuzzSeeds (go test -run TestFuzzSeeds -update-seeds rewrites them) and
// runs each seed through exercise.
func TestFuzzSeeds(t *testing.T) {
	for target, seeds := range fuzzSeeds() {
		args := map[string][]any{}
		for name, data := range seeds {
			exercise(t, data)
			args[name] = []any{data}
		}
		rartest.CheckSeeds(t, target, args, *updateSeeds)
	}
}

// exampleArchive is testdata/example.rar, the archive of Example: a
// directory and two stored files, one with a modification time.
func exampleArchive() []byte {
	mtime := rar5Record(3, append(appendVint(nil, 0x3), binary.LittleEndian.AppendUint32(nil, 1735689600)...))
	return newRAR5Builder().main(0).
		file("docs/readme.txt", []byte("garc reads RAR archives.\n"), mtime).
		file("hello.txt", []byte("hello, world\n"), nil).
		end(false).bytes()
}

// TestExampleArchive keeps testdata/example.rar equal to exampleArchive
// (-update-seeds rewrites it).
func TestExampleArchive(t *testing.T) {
	p := filepath.Join("testdata", "example.rar")
	want := exampleArchive()
	if *updateSeeds {
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is missing or stale: run go test -run TestExampleArchive -update-seeds", p)
	}
}
