package sevenzip

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/ppmd"
	"github.com/garc-dev/garc/internal/testenv"
)

// Tests of the PPMd and Deflate write methods beyond the option matrix
// (which round-trips them through our reader and 7zz).

// folderMethods returns folderMethod for every folder of an archive.
func folderMethods(t *testing.T, b []byte) []string {
	t.Helper()
	rd, err := newReader(bytes.NewReader(b), int64(len(b)), &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range rd.hdr.main.folders {
		out = append(out, folderMethod(&rd.hdr.main.folders[i]))
	}
	return out
}

// TestWriteMethodCoders checks the coder records: IDs, properties by
// level with 7-Zip's reduction to the folder size, and the BCJ filter in
// front of PPMd and Deflate for executables, as 7-Zip chains them.
func TestWriteMethodCoders(t *testing.T) {
	text := testFile{name: "a.txt", data: pseudoText(1, 100000), mode: 0o100644}
	big := testFile{name: "big.txt", data: pseudoText(2, 3<<20), mode: 0o100644}
	prog := testFile{name: "prog", data: fakeELF(20000), mode: 0o100755}
	for _, c := range []struct {
		name  string
		files []testFile
		opts  WriteOptions
		want  []string
	}{
		// 100000 bytes: the arena is cut to 2 MiB (16 times the size,
		// rounded up to a power of two).
		{"ppmd-mx5-small", []testFile{text}, WriteOptions{Method: "PPMd"}, []string{"PPMD:o6:mem21"}},
		{"ppmd-mx1-small", []testFile{text}, WriteOptions{Method: "PPMd", Level: 1}, []string{"PPMD:o4:mem20"}},
		{"ppmd-mx9-small", []testFile{text}, WriteOptions{Method: "PPMd", Level: 9}, []string{"PPMD:o32:mem21"}},
		{"ppmd-mx5-big", []testFile{big}, WriteOptions{Method: "PPMd"}, []string{"PPMD:o6:mem24"}},
		{"ppmd-mx7-big", []testFile{big}, WriteOptions{Method: "PPMd", Level: 7}, []string{"PPMD:o16:mem26"}},
		{"ppmd-mem", []testFile{big}, WriteOptions{Method: "PPMd", DictSize: 3 << 20}, []string{"PPMD:o6:mem3m"}},
		{"ppmd-bcj", []testFile{text, prog}, WriteOptions{Method: "PPMd"}, []string{"PPMD:o6:mem21", "BCJ PPMD:o6:mem19"}},
		{"deflate", []testFile{text, prog}, WriteOptions{Method: "Deflate"}, []string{"Deflate", "BCJ Deflate"}},
		{"deflate-aes", []testFile{text}, WriteOptions{Method: "Deflate", Password: "p", KDFCycles: 4}, []string{"Deflate 7zAES:4"}},
		{"ppmd-aes", []testFile{text}, WriteOptions{Method: "PPMd", Password: "p", KDFCycles: 4}, []string{"PPMD:o6:mem21 7zAES:4"}},
		{"bzip2", []testFile{text, prog}, WriteOptions{Method: "BZip2"}, []string{"BZip2", "BCJ BZip2"}},
		{"bzip2-big-mx1", []testFile{big}, WriteOptions{Method: "bzip2", Level: 1, Threads: 2}, []string{"BZip2"}},
		{"bzip2-aes", []testFile{text}, WriteOptions{Method: "BZip2", Password: "p", KDFCycles: 4}, []string{"BZip2 7zAES:4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := writeArchive(t, c.files, &c.opts)
			got := folderMethods(t, b)
			if len(got) != len(c.want) {
				t.Fatalf("folders %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("folder %d: %q, want %q", i, got[i], c.want[i])
				}
			}
			ents, data := readBack(t, b, c.opts.Password)
			checkTree(t, c.files, ents, data)
		})
	}
}

func TestWriteMethodOptionErrors(t *testing.T) {
	for _, o := range []WriteOptions{
		{Method: "PPMd", DictSize: 1 << 15},
		{Method: "PPMd", DictSize: 1<<20 + 2},
		{Method: "Deflate64"},
	} {
		var out memOutput
		_, err := Write(context.Background(), &out, nil, &o)
		if err == nil {
			t.Errorf("%+v accepted", o)
		}
		if o.Method == "Deflate64" && !errors.Is(err, archive.ErrUnsupported) {
			t.Errorf("Deflate64: %v, want ErrUnsupported", err)
		}
	}
}

// TestWriteMethodSolidLimit: 7-Zip's solid block size is 128 times the
// PPMd memory (at least 16 MiB) and 16 MiB for Deflate (128 times its 32
// KiB window, raised to the minimum).
func TestWriteMethodSolidLimit(t *testing.T) {
	for _, c := range []struct {
		opts WriteOptions
		want int64
	}{
		{WriteOptions{Method: "PPMd"}, 2 << 30},
		{WriteOptions{Method: "PPMd", Level: 1}, 128 << 20},
		{WriteOptions{Method: "PPMd", Level: 9}, 4 << 30},
		{WriteOptions{Method: "PPMd", DictSize: 1 << 16}, 16 << 20},
		{WriteOptions{Method: "Deflate", Level: 9}, 16 << 20},
		{WriteOptions{Method: "BZip2"}, 900000 << 7},
		{WriteOptions{Method: "BZip2", Level: 1}, 16 << 20},
	} {
		w := &writer{opts: c.opts}
		if err := w.setup(); err != nil {
			t.Fatal(err)
		}
		if got := w.solidLimit(); got != c.want {
			t.Errorf("%s level %d: solid limit %d, want %d", c.opts.Method, c.opts.Level, got, c.want)
		}
	}
	if deflateLevel(1) != 4 || deflateLevel(4) != 5 || deflateLevel(5) != 7 || deflateLevel(9) != 9 {
		t.Error("deflate level mapping changed")
	}
	// 7-Zip's BZip2 block sizes: 100, 300, 500, 700 kB, then 900 kB.
	for level, want := range []int{1, 1, 3, 5, 7, 9, 9, 9, 9, 9} {
		if got := bzip2Level(level); got != want {
			t.Errorf("bzip2Level(%d) = %d, want %d", level, got, want)
		}
	}
}

// TestWriteMethodThreads: the bytes do not depend on the thread count,
// with folders compressed in parallel.
func TestWriteMethodThreads(t *testing.T) {
	var files []testFile
	for i := range 9 {
		files = append(files, testFile{name: "f" + strconv.Itoa(i) + ".txt", data: pseudoText(uint64(i), 2000+i*30000), mode: 0o100644})
	}
	for _, m := range []string{"PPMd", "Deflate", "BZip2"} {
		var first []byte
		for _, threads := range []int{1, 2, 3} {
			o := WriteOptions{Method: m, Threads: threads, Solid: SolidOptions{FilesPerBlock: 2}}
			b := writeArchive(t, files, &o)
			if first == nil {
				first = b
				ents, data := readBack(t, b, "")
				checkTree(t, files, ents, data)
			} else if !bytes.Equal(first, b) {
				t.Fatalf("%s with %d threads: output differs from 1 thread", m, threads)
			}
		}
	}
}

// TestWritePPMdMatches7zz: a single text file written with PPMd at a
// level gets the same coder properties and the same packed bytes as
// 7zz a -m0=PPMd -mxN.
func TestWritePPMdMatches7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	dir := t.TempDir()
	data := pseudoText(4, 600000)
	in := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, level := range []int{1, 5, 9} {
		arc := filepath.Join(dir, "z"+strconv.Itoa(level)+".7z")
		out, err := exec.Command(zz, "a", "-m0=PPMd", "-mx="+strconv.Itoa(level), "-mhc=off", "-bd", arc, in).CombinedOutput()
		if err != nil {
			t.Fatalf("7zz a: %v\n%s", err, out)
		}
		ref, err := os.ReadFile(arc)
		if err != nil {
			t.Fatal(err)
		}
		ours := writeArchive(t, []testFile{{name: "t.txt", data: data, mode: 0o100644}}, &WriteOptions{Method: "PPMd", Level: level})
		if a, b := folderMethods(t, ref), folderMethods(t, ours); len(a) != 1 || len(b) != 1 || a[0] != b[0] {
			t.Errorf("mx%d: 7zz %q, garc %q", level, a, b)
		}
		if a, b := packedStreams(t, ref), packedStreams(t, ours); len(a) != 1 || len(b) != 1 || !bytes.Equal(a[0], b[0]) {
			t.Errorf("mx%d: packed stream differs from 7zz's", level)
		}
		o, m := ppmd.LevelProps7z(level)
		if got, want := folderMethods(t, ours)[0], describeCoder(&coder{id: methodPPMd, props: func() []byte {
			p := ppmd.Props7z(o, ppmd.ReduceMem7z(m, int64(len(data))))
			return p[:]
		}()}); got != want {
			t.Errorf("mx%d: %s, want %s", level, got, want)
		}
	}
}

// TestWriteMethodUpdateDelete updates and prunes PPMd and Deflate
// archives (whole folders copied, a partly deleted solid folder
// recompressed with the method), checked by our reader and 7zz.
func TestWriteMethodUpdateDelete(t *testing.T) {
	zz := ""
	if _, err := exec.LookPath("7zz"); err == nil {
		zz = testenv.SevenZip(t)
	}
	t0 := time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC)
	files := sampleTree()
	for _, o := range []WriteOptions{
		{Method: "PPMd"},
		{Method: "PPMd", Level: 3, Password: "pw", EncryptHeaders: true, KDFCycles: 4},
		{Method: "Deflate"},
		{Method: "Deflate", Level: 9, Solid: SolidOptions{Off: true}, Password: "pw", KDFCycles: 4},
		{Method: "BZip2", Level: 2},
	} {
		t.Run(o.Method+strconv.Itoa(o.Level), func(t *testing.T) {
			old := writeArchive(t, files, &o)
			add := []testFile{{name: "dir/a.txt", data: pseudoText(30, 120000), mode: 0o100644, mtime: t0.AddDate(1, 0, 0)},
				{name: "new.txt", data: pseudoText(31, 9000), mode: 0o100644, mtime: t0}}
			nb, st := updateArchive(t, old, add, nil, o)
			if st.Added != 2 {
				t.Errorf("update stats %+v", st)
			}
			want := []testFile{}
			for _, f := range files {
				if f.name != "dir/a.txt" {
					want = append(want, f)
				}
			}
			want = append(want, add...)
			ents, data := readBack(t, nb, o.Password)
			checkTree(t, want, ents, data)

			// Delete b.txt: its solid block loses a member and is
			// recompressed with the method.
			pruned, _ := updateArchive(t, nb, nil, func(e *archive.Entry) bool { return e.Name == "dir/b.txt" }, o)
			var keep []testFile
			for _, f := range want {
				if f.name != "dir/b.txt" {
					keep = append(keep, f)
				}
			}
			ents, data = readBack(t, pruned, o.Password)
			checkTree(t, keep, ents, data)
			if zz == "" {
				return
			}
			arc := filepath.Join(t.TempDir(), "u.7z")
			if err := os.WriteFile(arc, pruned, 0o644); err != nil {
				t.Fatal(err)
			}
			sevenZipTest(t, zz, arc, o.Password)
			x := filepath.Join(filepath.Dir(arc), "x")
			if out, err := exec.Command(zz, "x", "-snl", "-p"+o.Password, "-o"+x, arc).CombinedOutput(); err != nil {
				t.Fatalf("7zz x: %v\n%s", err, out)
			}
			compareDisk(t, keep, x)
		})
	}
}
