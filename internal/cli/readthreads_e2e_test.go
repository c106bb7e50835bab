package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadThreadsSame: x of a compressed tar with --threads 2 (bzip2
// blocks in parallel, every stream decoded ahead of the file writing),
// from a file and from a pipe, writes the tree --threads 1 writes; a
// damaged stream gives the same exit code, message and files left.
func TestReadThreadsSame(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(27, 4))
	files := map[string]string{}
	var big strings.Builder // 1.3 MB of words: a dozen bzip2 -1 blocks, two read-ahead buffers
	for big.Len() < 1300000 {
		fmt.Fprintf(&big, "line %d of %x\n", r.IntN(100000), r.Uint32())
	}
	files["src/big.txt"] = big.String()
	for i := range 40 {
		files[fmt.Sprintf("src/d%d/f%d.txt", i%5, i)] = strings.Repeat(fmt.Sprintf("file %d ", i), 1+i*37)
	}
	writeTree(t, dir, files)
	toolOutput(t, dir, "tar", "cf", "a.tar", "src")
	for name, cmd := range map[string][]string{
		"a.tar.gz": {"gzip", "-c", "a.tar"}, "a.tar.zst": {"zstd", "-q", "-c", "a.tar"},
		"a.tar.xz": {"xz", "-c", "a.tar"}, "a.tar.bz2": {"bzip2", "-1", "-c", "a.tar"},
	} {
		data := toolOutput(t, dir, cmd[0], cmd[1:]...)
		bad := []byte(string(data))
		for i := len(bad) / 2; i < len(bad)/2+16; i++ {
			bad[i] ^= 0xa5
		}
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		os.WriteFile(filepath.Join(dir, "bad-"+name), bad, 0o644)
		for _, in := range []struct {
			what, arg, stdin string
		}{
			{"file", name, ""}, {"pipe", "-", string(data)},
			{"damaged file", "bad-" + name, ""}, {"damaged pipe", "-", string(bad)},
		} {
			var res [2]result
			var trees [2]map[string]string
			for i, threads := range []string{"1", "2"} {
				out := filepath.Join(dir, "out")
				os.RemoveAll(out)
				res[i] = garc(t, dir, in.stdin, "x", "--threads", threads, "-o", out, in.arg)
				trees[i] = readTree(t, out)
			}
			what := name + " from a " + in.what
			if !strings.HasPrefix(in.what, "damaged") {
				res[0].expect(t, ExitOK, what)
				if len(trees[0]) < len(files) || trees[0]["src/big.txt"] != files["src/big.txt"] {
					t.Fatalf("%s: %d files", what, len(trees[0]))
				}
			} else if res[0].code == ExitOK {
				t.Fatalf("%s: exit 0", what)
			}
			if res[1].code != res[0].code || res[1].stderr != res[0].stderr {
				t.Errorf("%s: --threads 2 exit %d:\n%s\n--threads 1 exit %d:\n%s", what, res[1].code, res[1].stderr, res[0].code, res[0].stderr)
			}
			if !reflect.DeepEqual(trees[0], trees[1]) {
				t.Errorf("%s: --threads 2 wrote %v, --threads 1 %v", what, keys(trees[1]), keys(trees[0]))
			}
		}
	}
}
