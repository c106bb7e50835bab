package sevenzip

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestMethodParams checks that 7-Zip's method parameters reach the coder
// settings, and that archives written with them round-trip through our
// reader and pass 7zz t.
func TestMethodParams(t *testing.T) {
	zz := ""
	if _, err := exec.LookPath("7zz"); err == nil {
		zz = testenv.SevenZip(t)
	}
	files := []testFile{{name: "a.txt", data: pseudoText(7, 300000), mode: 0o100644}}
	for _, c := range []struct {
		spec  string
		level int
		check func(w *writer) bool
	}{
		{"LZMA2:d=1m:fb=64", 0, func(w *writer) bool { return w.lopts.DictSize == 1<<20 && w.lopts.FastBytes == 64 }},
		{"lzma2:d20:fb64", 0, func(w *writer) bool { return w.lopts.DictSize == 1<<20 && w.lopts.FastBytes == 64 }},
		{"LZMA2:x=9", 0, func(w *writer) bool { return w.opts.Level == 9 && w.lopts.DictSize == 256<<20 }}, // 7-Zip 23+ on 64-bit systems
		{"LZMA2:mc=8:mf=hc4", 5, func(w *writer) bool { return w.lopts.MatchFinder == "hc4" && w.lopts.Cycles == 8 }},
		{"LZMA2:mf=bt4", 1, func(w *writer) bool { return w.lopts.MatchFinder == "bt4" && w.lopts.Cycles == 0 }},
		{"LZMA2:lc=0:lp=2:pb=1", 0, func(w *writer) bool { return w.lopts.LC == 0 && w.lopts.LP == 2 && w.lopts.PB == 1 }},
		{"LZMA2:c=1m:d=256k", 0, func(w *writer) bool { return w.lopts.BlockSize == 1<<20 && w.lopts.DictSize == 256<<10 }},
		{"LZMA2:a=0", 9, func(w *writer) bool { return w.lopts.Algorithm == lzma.AlgorithmFast }},
		{"LZMA2:a=1", 1, func(w *writer) bool { return w.lopts.Algorithm == lzma.AlgorithmOptimal }},
		{"LZMA2:mt=2", 0, func(w *writer) bool { return w.lopts.Threads == 2 }},
		{"LZMA:lc=4:lp=0:pb=0:d=64k", 0, func(w *writer) bool { return w.lopts.LC == 4 && w.lopts.DictSize == 64<<10 }},
		{"PPMd:o=8:mem=16m", 0, func(w *writer) bool { return w.ppmdOrder == 8 && w.ppmdMem == 16<<20 }},
		{"PPMd:o32:mem24", 0, func(w *writer) bool { return w.ppmdOrder == 32 && w.ppmdMem == 16<<20 }},
		{"BZip2:d=300k", 0, func(w *writer) bool { return w.bzLevel == 4 }},
		{"BZip2:d=100000:pass=2", 0, func(w *writer) bool { return w.bzLevel == 1 }},
		{"Deflate:x=1", 0, func(w *writer) bool { return w.flateLevel == deflateLevel(1) }},
	} {
		t.Run(c.spec, func(t *testing.T) {
			o := WriteOptions{Method: c.spec, Level: c.level}
			w := &writer{opts: o}
			if err := w.setupMethod(); err != nil {
				t.Fatal(err)
			}
			if !c.check(w) {
				t.Fatalf("settings not applied: %+v, ppmd o%d mem%d, bzip2 %d", w.lopts, w.ppmdOrder, w.ppmdMem, w.bzLevel)
			}
			b := writeArchive(t, files, &o)
			ents, data := readBack(t, b, "")
			checkTree(t, files, ents, data)
			if zz != "" {
				f := filepath.Join(t.TempDir(), "p.7z")
				os.WriteFile(f, b, 0o644)
				if out, err := exec.Command(zz, "t", f).CombinedOutput(); err != nil {
					t.Fatalf("7zz t: %v\n%s", err, out)
				}
			}
		})
	}
}

// TestMethodParamErrors: unknown or out-of-range parameters are
// ErrMethodParam, unknown methods ErrUnsupported.
func TestMethodParamErrors(t *testing.T) {
	for _, c := range []struct {
		spec string
		want error
	}{
		{"LZMA2:fb=999", ErrMethodParam},
		{"LZMA2:fb=4", ErrMethodParam},
		{"LZMA2:zz=1", ErrMethodParam},
		{"LZMA2:mf=bt2", ErrMethodParam},
		{"LZMA2:lc=4:lp=1", ErrMethodParam}, // LZMA2 needs lc+lp <= 4
		{"LZMA2:d=1k", ErrMethodParam},
		{"LZMA2:d=2g", ErrMethodParam},
		{"LZMA:c=1m", ErrMethodParam},
		{"LZMA2:x=0", ErrMethodParam},
		{"LZMA2:", ErrMethodParam},
		{"PPMd:o=1", ErrMethodParam},
		{"PPMd:mem=1k", ErrMethodParam},
		{"PPMd:fb=32", ErrMethodParam},
		{"BZip2:d=1m", ErrMethodParam},
		{"Deflate:fb=64", ErrMethodParam},
		{"Copy:x=5", nil},
		{"Copy:d=1m", ErrMethodParam},
		{"Zstd", archive.ErrUnsupported},
	} {
		err := CheckOptions(&WriteOptions{Method: c.spec, Level: 5})
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.spec, err)
			}
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.spec, err, c.want)
		}
	}
}

func TestParseMethodSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"24", 16 << 20, true}, {"0", 1, true}, {"40", 1 << 40, true}, {"41", 41, true},
		{"64m", 64 << 20, true}, {"300k", 300 << 10, true}, {"1g", 1 << 30, true}, {"100000", 100000, true},
		{"7b", 7, true}, {"", 0, false}, {"x", 0, false}, {"-1", 0, false}, {"99999999g", 0, false},
	} {
		got, err := ParseMethodSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseMethodSize(%q) = %d, %v", c.in, got, err)
		}
	}
}

// FuzzCheckMethod: any method spec is accepted or refused with
// ErrMethodParam or ErrUnsupported, never a panic.
func FuzzCheckMethod(f *testing.F) {
	for _, s := range []string{"LZMA2:d=64m:fb=64", "PPMd:o8:mem24", "BZip2:d=900k:pass=2", "LZMA:lc=4:a=0:mf=hc4:mc=9", "Deflate", "x:", "LZMA2::", "LZMA2:c=4g:d=1536m:mt=off"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, spec string, level int) {
		err := CheckOptions(&WriteOptions{Method: spec, Level: level})
		if err != nil && !errors.Is(err, ErrMethodParam) && !errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("%q: %v", spec, err)
		}
	})
}
