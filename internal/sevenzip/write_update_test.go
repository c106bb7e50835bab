package sevenzip

import (
	"bytes"
	"context"
	cryptoaes "crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// memTarget is an in-memory Target.
type memTarget struct {
	memOutput
	committed, aborted bool
}

func (m *memTarget) Commit() error { m.committed = true; return nil }
func (m *memTarget) Abort() error  { m.aborted = true; return nil }

// updateArchive applies Update to the archive old: add the files, delete
// the entries del selects.
func updateArchive(t testing.TB, old []byte, add []testFile, del func(*archive.Entry) bool, opts WriteOptions) ([]byte, *WriteStats) {
	t.Helper()
	var out memTarget
	st, err := Update(context.Background(), &out, &Existing{bytes.NewReader(old), int64(len(old))},
		&Changes{Add: items(add), Delete: del}, &opts)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if !out.committed || out.aborted {
		t.Fatalf("update: committed %v, aborted %v", out.committed, out.aborted)
	}
	return out.b, st
}

// packedStreams returns the packed bytes of every folder of an archive.
func packedStreams(t testing.TB, b []byte) [][]byte {
	t.Helper()
	rd, err := newReader(bytes.NewReader(b), int64(len(b)), &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	si := &rd.hdr.main
	for i := range si.folders {
		f := &si.folders[i]
		var n uint64
		for k := 0; k < len(f.packed); k++ {
			n += si.packSizes[f.firstPack()+k]
		}
		start := signatureHeaderSize + f.packOffset
		out = append(out, b[start:start+int64(n)])
	}
	return out
}

func TestUpdateCopiesWholeFolders(t *testing.T) {
	files := sampleTree()
	old := writeArchive(t, files, &WriteOptions{Solid: SolidOptions{Off: true}})
	oldPacks := packedStreams(t, old)
	add := []testFile{{name: "new/one.txt", data: pseudoText(20, 5000), mode: 0o100644, mtime: time.Unix(1e9, 0)}}
	nb, st := updateArchive(t, old, add, nil, WriteOptions{})
	if st.CopiedFolders != len(oldPacks) || st.Added != 1 {
		t.Fatalf("stats %+v, want %d copied folders and 1 added", st, len(oldPacks))
	}
	for i, p := range oldPacks {
		if !bytes.Contains(nb, p) {
			t.Errorf("packed stream of folder %d not copied verbatim", i)
		}
	}
	ents, data := readBack(t, nb, "")
	checkTree(t, append(files, add...), ents, data)
}

func TestUpdateReplacesChanged(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	files := []testFile{
		{name: "a.txt", data: pseudoText(1, 4000), mode: 0o100644, mtime: t0},
		{name: "b.txt", data: pseudoText(2, 4000), mode: 0o100644, mtime: t0},
		{name: "c.txt", data: pseudoText(3, 4000), mode: 0o100644, mtime: t0},
		{name: "d", typ: archive.TypeDir, mode: 0o40755, mtime: t0},
	}
	old := writeArchive(t, files, nil)
	// a unchanged (same size and time, different content: must be kept),
	// b newer, c different size, d an existing directory, e new.
	upd := []testFile{
		{name: "a.txt", data: pseudoText(9, 4000), mode: 0o100644, mtime: t0},
		{name: "b.txt", data: pseudoText(8, 4000), mode: 0o100600, mtime: t0.Add(time.Second)},
		{name: "c.txt", data: pseudoText(7, 10), mode: 0o100644, mtime: t0.Add(-time.Hour)},
		{name: "d", typ: archive.TypeDir, mode: 0o40700, mtime: t0.Add(time.Hour)},
		{name: "e.txt", data: []byte("e"), mode: 0o100644, mtime: t0},
	}
	nb, st := updateArchive(t, old, upd, nil, WriteOptions{})
	if st.Skipped != 2 || st.Added != 3 {
		t.Errorf("stats %+v: want 2 skipped, 3 added", st)
	}
	want := []testFile{files[0], upd[1], upd[2], files[3], upd[4]}
	ents, data := readBack(t, nb, "")
	checkTree(t, want, ents, data)
}

func TestDeleteEntries(t *testing.T) {
	files := sampleTree()
	for name, o := range map[string]WriteOptions{"solid": {}, "nonsolid": {Solid: SolidOptions{Off: true}},
		"aes": {Password: "pw", EncryptHeaders: true, KDFCycles: 4}} {
		t.Run(name, func(t *testing.T) {
			old := writeArchive(t, files, &o)
			del := map[string]bool{"dir/b.txt": true, "rand.bin": true, "dir/empty": true}
			var keep []testFile
			for _, f := range files {
				if !del[f.name] {
					keep = append(keep, f)
				}
			}
			opts := WriteOptions{Password: o.Password, EncryptHeaders: o.EncryptHeaders, KDFCycles: 4}
			nb, _ := updateArchive(t, old, nil, func(e *archive.Entry) bool { return del[e.Name] }, opts)
			ents, data := readBack(t, nb, o.Password)
			checkTree(t, keep, ents, data)
			// Deleting everything leaves an empty archive.
			nb, _ = updateArchive(t, old, nil, func(*archive.Entry) bool { return true }, opts)
			if ents, _ := readBack(t, nb, ""); len(ents) != 0 {
				t.Fatalf("%d entries left", len(ents))
			}
		})
	}
}

// TestUpdate7zzArchive updates archives made by 7-Zip and checks them
// with 7-Zip.
func TestUpdate7zzArchive(t *testing.T) {
	zz := testenv.SevenZip(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "sub", "empty"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "a.txt"), pseudoText(1, 50000), 0o644)
	os.WriteFile(filepath.Join(src, "b.bin"), randomBytes(2, 30000), 0o600)
	os.WriteFile(filepath.Join(src, "c.txt"), pseudoText(3, 500), 0o644)
	for _, sw := range [][]string{{"-mx5"}, {"-ms=off"}, {"-mx1", "-pzz", "-mhe=on"}, {"-mx0"},
		{"-m0=BCJ2", "-m1=LZMA", "-m2=LZMA", "-m3=LZMA", "-mb0:1", "-mb0s1:2", "-mb0s2:3"}} {
		t.Run(strings.Join(sw, ""), func(t *testing.T) {
			arc := filepath.Join(t.TempDir(), "z.7z")
			args := append([]string{"a", arc, "."}, sw...)
			cmd := exec.Command(zz, args...)
			cmd.Dir = src
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz a: %v\n%s", err, out)
			}
			old, err := os.ReadFile(arc)
			if err != nil {
				t.Fatal(err)
			}
			pw := ""
			if strings.HasPrefix(sw[len(sw)-1], "-mhe") {
				pw = "zz"
			}
			add := []testFile{{name: "sub/new.txt", data: pseudoText(5, 7000), mode: 0o100644, mtime: time.Unix(1.5e9, 0)}}
			nb, st := updateArchive(t, old, add, nil, WriteOptions{Password: pw, EncryptHeaders: pw != "", KDFCycles: 4})
			if st.CopiedFolders == 0 && !strings.Contains(sw[0], "mx0") {
				t.Errorf("no folder copied: %+v", st)
			}
			// Delete c.txt as well: its solid block is recompressed.
			pruned, _ := updateArchive(t, nb, nil, func(e *archive.Entry) bool { return e.Name == "c.txt" },
				WriteOptions{Password: pw, EncryptHeaders: pw != "", KDFCycles: 4})
			if err := os.WriteFile(arc, pruned, 0o644); err != nil {
				t.Fatal(err)
			}
			sevenZipTest(t, zz, arc, pw)
			ents, data := readBack(t, pruned, pw)
			if _, ok := ents["c.txt"]; ok {
				t.Error("c.txt not deleted")
			}
			if !bytes.Equal(data["sub/a.txt"], pseudoText(1, 50000)) || !bytes.Equal(data["sub/new.txt"], add[0].data) ||
				!bytes.Equal(data["b.bin"], randomBytes(2, 30000)) {
				t.Error("content differs after update")
			}
			if e := ents["sub/empty"]; e == nil || !e.IsDir() {
				t.Error("empty directory lost")
			}
		})
	}
}

// failWriter fails after n bytes.
type failWriter struct {
	memOutput
	n int
}

var errInjected = errors.New("injected failure")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(f.b)+len(p) > f.n {
		k := max(f.n-len(f.b), 0)
		f.memOutput.Write(p[:k])
		return k, errInjected
	}
	return f.memOutput.Write(p)
}

func TestWriteFailingOutput(t *testing.T) {
	files := sampleTree()
	for _, o := range []WriteOptions{{Password: "x", KDFCycles: 4}, {Threads: 2, Solid: SolidOptions{Off: true}}} {
		full := writeArchive(t, files, &o)
		for _, n := range []int{0, 1, 31, 32, 100, 1000, len(full) / 2, len(full) - 100, len(full) - 200} {
			out := &failWriter{n: n}
			_, err := Write(context.Background(), out, items(files), &o)
			if !errors.Is(err, errInjected) {
				t.Errorf("failing after %d of %d bytes (threads %d): %v", n, len(full), o.Threads, err)
			}
		}
	}
}

// failingReader returns an error after some bytes.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errInjected
	}
	k := min(len(p), f.n)
	f.n -= k
	return k, nil
}

func TestWriteFailingInputAndCancel(t *testing.T) {
	it := []WriteItem{{Name: "f", Size: 100000, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(&failingReader{n: 5000}), nil
	}}}
	var out memOutput
	if _, err := Write(context.Background(), &out, it, &WriteOptions{Password: "p", KDFCycles: 4}); !errors.Is(err, errInjected) {
		t.Errorf("failing input: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	opts := &WriteOptions{Progress: func(done int64, name string) {
		if done > 100000 {
			cancel()
		}
	}}
	files := []testFile{{name: "a", data: pseudoText(1, 1<<20)}, {name: "b", data: pseudoText(2, 1<<20)}}
	if _, err := Write(ctx, &out, items(files), opts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: %v", err)
	}
}

// TestEncryptedFolderMatchesCBC decrypts the packed stream of Copy+7zAES
// archives with crypto/aes directly, for content fed in 1-byte reads,
// unaligned sizes, empty and large files.
func TestEncryptedFolderMatchesCBC(t *testing.T) {
	for _, size := range []int{1, 15, 16, 17, 4095, 32 << 10, 32<<10 + 1, 1<<20 + 3} {
		data := randomBytes(uint64(size), size)
		for _, oneByte := range []bool{false, true} {
			it := []WriteItem{{Name: "f", Size: int64(size), Open: func() (io.ReadCloser, error) {
				var r io.Reader = bytes.NewReader(data)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				return io.NopCloser(r), nil
			}}}
			var out memOutput
			if _, err := Write(context.Background(), &out, it, &WriteOptions{Method: "Copy", Password: "key", KDFCycles: 6}); err != nil {
				t.Fatal(err)
			}
			rd, err := newReader(bytes.NewReader(out.b), int64(len(out.b)), &archive.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := &rd.hdr.main.folders[0]
			var props []byte
			for _, c := range f.coders {
				if c.id == methodAES {
					props = c.props
				}
			}
			p, err := aes.ParseProps7z(props)
			if err != nil || p.CyclesPower != 6 || len(p.Salt) != 16 {
				t.Fatalf("AES props %x: %v", props, err)
			}
			key, _ := aes.Key7z("key", p.Salt, p.CyclesPower)
			packed := packedStreams(t, out.b)[0]
			if len(packed) != (size+15)/16*16 {
				t.Fatalf("size %d: packed %d bytes", size, len(packed))
			}
			blk, _ := cryptoaes.NewCipher(key[:])
			plain := make([]byte, len(packed))
			cipher.NewCBCDecrypter(blk, p.IV[:]).CryptBlocks(plain, packed)
			if !bytes.Equal(plain[:size], data) || !allZero(plain[size:]) {
				t.Fatalf("size %d (1-byte reads %v): decrypted stream differs", size, oneByte)
			}
		}
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func TestEncryptWriterAllocsAndClose(t *testing.T) {
	w := &writer{opts: WriteOptions{KDFCycles: 19}}
	w.key, w.haveKey = [32]byte{1}, true
	var sink countWriter
	sink.w = io.Discard
	allocs := testing.AllocsPerRun(50, func() {
		aw, _, err := w.newAES(&sink)
		if err != nil {
			t.Fatal(err)
		}
		aw.Write([]byte("abc"))
		aw.Close()
	})
	// The cipher state, the writer and the coder properties.
	if allocs > 12 {
		t.Errorf("%.0f allocations per encrypted folder start/stop", allocs)
	}
	aw, _, _ := w.newAES(&sink)
	aw.Close()
	if _, err := aw.Write([]byte{1}); !errors.Is(err, aes.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
	if err := aw.WriteByte(1); !errors.Is(err, aes.ErrClosed) {
		t.Errorf("WriteByte after Close: %v", err)
	}
}

func TestDeleteKeepsFilter(t *testing.T) {
	files := []testFile{
		{name: "p1", data: fakeELF(3000), mode: 0o100755},
		{name: "p2", data: fakeELF(4000), mode: 0o100755},
		{name: "t.txt", data: pseudoText(1, 3000), mode: 0o100644},
	}
	old := writeArchive(t, files, &WriteOptions{Level: 1})
	nb, st := updateArchive(t, old, nil, func(e *archive.Entry) bool { return e.Name == "p1" }, WriteOptions{Level: 1})
	if st.CopiedFolders != 1 {
		t.Errorf("%d folders copied, want 1 (the text block)", st.CopiedFolders)
	}
	rd, err := newReader(bytes.NewReader(nb), int64(len(nb)), &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for i := range rd.hdr.main.folders {
		methods = append(methods, folderMethod(&rd.hdr.main.folders[i]))
	}
	if strings.Join(methods, ",") != "LZMA2:12,BCJ LZMA2:12" {
		t.Errorf("folders after the deletion: %q", methods)
	}
	ents, data := readBack(t, nb, "")
	checkTree(t, files[1:], ents, data)
}

// TestUpdateReleasesPartlyKeptFolder: a base folder whose last entry is
// deleted gives its decoder back once its last kept entry is read, not
// when the update ends: the next partly kept folder, which may need that
// memory, would otherwise wait for it.
func TestUpdateReleasesPartlyKeptFolder(t *testing.T) {
	var files []testFile
	for i := range 6 {
		files = append(files, testFile{name: fmt.Sprintf("f%d.txt", i), data: pseudoText(uint64(i), 100_000), mode: 0o100644})
	}
	old := writeArchive(t, files, &WriteOptions{Solid: SolidOptions{FilesPerBlock: 3}})
	rd, err := newReader(bytes.NewReader(old), int64(len(old)), &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if n := len(rd.hdr.main.folders); n != 2 {
		t.Fatalf("%d folders, want 2", n)
	}
	// Delete the last entry of each folder.
	last := map[int]*archive.Entry{}
	lastOff := map[int]int64{}
	for i, e := range rd.entries {
		if m := rd.meta[i]; m.folder() >= 0 && (last[m.folder()] == nil || m.offset > lastOff[m.folder()]) {
			last[m.folder()], lastOff[m.folder()] = e, m.offset
		}
	}
	w := &writer{base: rd, deleteBase: func(e *archive.Entry) bool { return e == last[0] || e == last[1] }}
	plan, err := w.planBase(nil, nil, &WriteStats{})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.close()
	if len(plan.recompress) != 2 {
		t.Fatalf("%d folders to recompress, want 2", len(plan.recompress))
	}
	for k, group := range plan.recompress {
		for _, sf := range group {
			rc, err := sf.open()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rc); err != nil {
				t.Fatalf("%s: %v", sf.name, err)
			}
			rc.Close()
		}
		rd.pool.mu.Lock()
		active := rd.pool.active
		rd.pool.mu.Unlock()
		if active != 0 {
			t.Errorf("folder %d: %d bytes of decoder memory still held after its kept entries", k, active)
		}
	}
}
