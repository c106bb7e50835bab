package sevenzip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// mixedData returns n deterministic bytes mixing text, runs and noise.
func mixedData(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"archive", "folder", "coder", "stream", "the", "of", "7z", "garc", "\n", "func ", "{", "}", "\t"}
	var b bytes.Buffer
	for b.Len() < n {
		switch rng.IntN(8) {
		case 0:
			for range 64 + rng.IntN(512) {
				b.WriteByte(byte(rng.Uint32()))
			}
		case 1:
			b.Write(bytes.Repeat([]byte{byte(rng.IntN(256))}, 1+rng.IntN(300)))
		case 2:
			// x86-like call instructions for the branch filters
			for range 64 {
				b.WriteByte(0xE8)
				v := rng.Uint32() & 0xFFFF
				b.Write([]byte{byte(v), byte(v >> 8), 0, 0})
			}
		default:
			for range 20 + rng.IntN(200) {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
		}
	}
	return b.Bytes()[:n]
}

// makeTree writes a source tree into dir and returns it as the expected
// extraction: path → content ("/" suffix marks directories, "->" links).
func makeTree(t testing.TB, dir string, big int, links bool) map[string]string {
	t.Helper()
	want := map[string]string{}
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = string(data)
	}
	write("a.txt", []byte("hello, 7z\n"))
	write("empty.bin", nil)
	write("sub/big.bin", mixedData(1, big))
	write("sub/deeper/small.txt", bytes.Repeat([]byte("small file "), 300))
	write("sub/deeper/ünïcödé name.txt", []byte("non-ascii name"))
	write("noise.bin", mixedData(2, 70000))
	for i := range 20 {
		write(fmt.Sprintf("many/f%02d.txt", i), mixedData(uint64(100+i), 100+i*37))
	}
	if err := os.MkdirAll(filepath.Join(dir, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	want["emptydir"] = "/"
	want["sub"], want["sub/deeper"], want["many"] = "/", "/", "/"
	if links {
		if err := os.Symlink("a.txt", filepath.Join(dir, "link-to-a")); err != nil {
			t.Fatal(err)
		}
		want["link-to-a"] = "->a.txt"
		if err := os.Symlink("../a.txt", filepath.Join(dir, "sub", "uplink")); err != nil {
			t.Fatal(err)
		}
		want["sub/uplink"] = "->../a.txt"
	}
	return want
}

// run7zz creates archive arc from the contents of src.
func run7zz(t testing.TB, sevenzz, src, arc string, args ...string) {
	t.Helper()
	cmdArgs := append([]string{"a", "-t7z", "-bd", "-bso0", "-bsp0", arc}, args...)
	cmdArgs = append(cmdArgs, ".")
	cmd := exec.Command(sevenzz, cmdArgs...)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz %v: %v\n%s", args, err, out)
	}
}

// extractToMap extracts every entry of an archive into a map in the format
// of makeTree.
func extractToMap(rd archive.Reader) (map[string]string, error) {
	got := map[string]string{}
	err := rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		switch e.Type {
		case archive.TypeDir:
			got[e.Name] = "/"
		case archive.TypeSymlink:
			got[e.Name] = "->" + e.LinkTarget
		default:
			got[e.Name] = string(data)
		}
		return nil
	})
	return got, err
}

func compareTrees(t *testing.T, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	bad := 0
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			t.Errorf("missing %s", k)
		case !wok:
			t.Errorf("extra %s", k)
		case g != w:
			t.Errorf("%s: got %d bytes %.20q, want %d bytes %.20q", k, len(g), g, len(w), w)
		default:
			continue
		}
		if bad++; bad > 10 {
			t.Fatal("too many differences")
		}
	}
}

func openFile(t testing.TB, path string, password string) archive.Reader {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := &archive.Options{Name: filepath.Base(path)}
	if password != "" {
		opts.Password = func() (string, error) { return password, nil }
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

func TestGenerated(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	want := makeTree(t, src, 600<<10, false)
	wantLinks := map[string]string{}
	srcLinks := t.TempDir()
	wantLinks = makeTree(t, srcLinks, 50<<10, true)

	cases := []struct {
		name     string
		args     []string
		links    bool
		password string
		method   string // Entry.Method of sub/big.bin must contain this
	}{
		{"LZMA", []string{"-m0=LZMA"}, false, "", "LZMA:"},
		{"LZMA2", []string{"-m0=LZMA2"}, false, "", "LZMA2:"},
		{"LZMA2-mt", []string{"-m0=LZMA2", "-mmt=2", "-md=64k"}, false, "", "LZMA2:16"},
		{"PPMd", []string{"-m0=PPMd"}, false, "", "PPMD:o6"},
		{"BZip2", []string{"-m0=BZip2"}, false, "", "BZip2"},
		{"BZip2-mt", []string{"-m0=BZip2", "-mmt=2", "-mx=1"}, false, "", "BZip2"},
		{"Deflate", []string{"-m0=Deflate"}, false, "", "Deflate"},
		{"Deflate64", []string{"-m0=Deflate64"}, false, "", "Deflate64"},
		{"Copy", []string{"-m0=Copy"}, false, "", "Copy"},
		{"BCJ", []string{"-mf=BCJ"}, false, "", "BCJ"},
		{"BCJ2", []string{"-mf=BCJ2"}, false, "", "BCJ2"},
		{"ARM64", []string{"-mf=ARM64"}, false, "", "ARM64"},
		{"Delta", []string{"-mf=Delta:4"}, false, "", "Delta:4"},
		{"AES-headers", []string{"-mhe=on", "-psecret"}, false, "secret", "7zAES"},
		{"AES-data", []string{"-psecret"}, false, "secret", "7zAES"},
		{"hc-off", []string{"-mhc=off"}, false, "", "LZMA2"},
		{"solid", []string{"-ms=on"}, false, "", "LZMA2"},
		{"nonsolid", []string{"-ms=off"}, false, "", "LZMA2"},
		{"solid-blocks", []string{"-ms=3f"}, false, "", "LZMA2"},
		{"symlinks", []string{"-snl"}, true, "", "LZMA2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, w := src, want
			if c.links {
				dir, w = srcLinks, wantLinks
			}
			arc := filepath.Join(t.TempDir(), "t.7z")
			run7zz(t, sevenzz, dir, arc, c.args...)
			rd := openFile(t, arc, c.password)
			defer rd.Close()
			got, err := extractToMap(rd)
			if err != nil {
				t.Fatal(err)
			}
			compareTrees(t, got, w)
			// The same with parallel decoding of folders.
			data, _ := os.ReadFile(arc)
			opts := &archive.Options{Threads: 3}
			if c.password != "" {
				opts.Password = func() (string, error) { return c.password, nil }
			}
			prd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
			if err != nil {
				t.Fatal(err)
			}
			pgot, err := extractToMap(prd)
			if err != nil {
				t.Fatalf("threads: %v", err)
			}
			compareTrees(t, pgot, w)
			for _, e := range rd.Entries() {
				if e.Name == "sub/big.bin" {
					if !strings.Contains(e.Method, c.method) {
						t.Errorf("method %q, want it to contain %q", e.Method, c.method)
					}
					if !e.HasCRC32 || e.Size != int64(len(w["sub/big.bin"])) {
						t.Errorf("big.bin: crc %v size %d", e.HasCRC32, e.Size)
					}
					if st, err := os.Stat(filepath.Join(dir, "sub", "big.bin")); err != nil {
						t.Error(err)
					} else if want := st.ModTime().Truncate(100 * time.Nanosecond); !e.ModTime.Equal(want) {
						t.Errorf("modification time %v, want %v", e.ModTime, want)
					}
					if !e.HasUnixMode || e.Mode.Perm() != 0o644 {
						t.Errorf("mode %v (unix %v)", e.Mode, e.HasUnixMode)
					}
				}
			}
			if c.password != "" {
				if (c.name == "AES-headers") != rd.Info().EncryptedHeaders {
					t.Errorf("EncryptedHeaders = %v", rd.Info().EncryptedHeaders)
				}
			}
		})
	}
}

// TestPasswords checks the password errors of encrypted archives.
func TestPasswords(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	makeTree(t, src, 10<<10, false)
	arcH := filepath.Join(t.TempDir(), "h.7z")
	run7zz(t, sevenzz, src, arcH, "-mhe=on", "-psecret")
	arcD := filepath.Join(t.TempDir(), "d.7z")
	run7zz(t, sevenzz, src, arcD, "-psecret")

	open := func(path string, pw *string, asked *int) (archive.Reader, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opts := &archive.Options{Name: "x.7z"}
		if pw != nil {
			opts.Password = func() (string, error) { *asked++; return *pw, nil }
		}
		return NewReader(bytes.NewReader(data), int64(len(data)), opts)
	}
	// Encrypted headers.
	if _, err := open(arcH, nil, nil); !errors.Is(err, archive.ErrPasswordRequired) {
		t.Errorf("headers, no password: %v", err)
	}
	wrong, asked := "wrong", 0
	if _, err := open(arcH, &wrong, &asked); !errors.Is(err, archive.ErrWrongPassword) {
		t.Errorf("headers, wrong password: %v", err)
	}
	if asked != 1 {
		t.Errorf("password asked %d times", asked)
	}
	// Encrypted data.
	rd, err := open(arcD, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extractToMap(rd); !errors.Is(err, archive.ErrPasswordRequired) {
		t.Errorf("data, no password: %v", err)
	}
	asked = 0
	rd, err = open(arcD, &wrong, &asked)
	if err != nil {
		t.Fatal(err)
	}
	_, err = extractToMap(rd)
	if !errors.Is(err, archive.ErrWrongPassword) || !errors.Is(err, archive.ErrChecksum) {
		t.Errorf("data, wrong password: %v", err)
	}
	if asked != 1 {
		t.Errorf("password asked %d times", asked)
	}
	// The first file of the folder fails before it yields any byte.
	first := true
	rd.Extract(context.Background(), func(e *archive.Entry) bool { return e.Size > 0 }, func(e *archive.Entry, r io.Reader) error {
		if first {
			first = false
			n, err := r.Read(make([]byte, 1<<20))
			if n != 0 || !errors.Is(err, archive.ErrWrongPassword) {
				t.Errorf("first read with a wrong password: %d bytes, %v", n, err)
			}
		}
		return nil
	})
	if !rd.Entries()[0].Encrypted && !rd.Entries()[len(rd.Entries())-1].Encrypted {
		t.Error("entries not marked encrypted")
	}
}

// TestSelective checks that extracting one entry from the middle of a solid
// block works and that unread content is skipped.
func TestSelective(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	want := makeTree(t, src, 100<<10, false)
	arc := filepath.Join(t.TempDir(), "s.7z")
	run7zz(t, sevenzz, src, arc, "-ms=on")
	rd := openFile(t, arc, "")
	for _, target := range []string{"many/f07.txt", "sub/deeper/small.txt", "noise.bin"} {
		n := 0
		err := rd.Extract(context.Background(), func(e *archive.Entry) bool { return e.Name == target },
			func(e *archive.Entry, r io.Reader) error {
				n++
				data, err := io.ReadAll(r)
				if err != nil {
					return err
				}
				if string(data) != want[target] {
					t.Errorf("%s: content differs", target)
				}
				return nil
			})
		if err != nil || n != 1 {
			t.Errorf("%s: %v, %d calls", target, err, n)
		}
	}
	// Parallel, selecting every third entry.
	data, _ := os.ReadFile(arc)
	for _, threads := range []int{2, 4} {
		prd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = prd.Extract(context.Background(), func(e *archive.Entry) bool { return e.Index%3 == 1 },
			func(e *archive.Entry, r io.Reader) error {
				n++
				b, err := io.ReadAll(r)
				if err != nil {
					return err
				}
				if w := want[e.Name]; e.Type == archive.TypeFile && string(b) != w {
					t.Errorf("threads %d: %s differs", threads, e.Name)
				}
				return nil
			})
		if err != nil || n == 0 {
			t.Errorf("threads %d: %v (%d entries)", threads, err, n)
		}
	}
	// Partial reads: read 10 bytes of each file; everything must still work.
	err := rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		var b [10]byte
		_, err := io.ReadFull(r, b[:min(10, int(e.Size))])
		return err
	})
	if err != nil {
		t.Error(err)
	}
}

// TestVolumes reads a -v split archive from its concatenated parts.
func TestVolumes(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	want := makeTree(t, src, 300<<10, false)
	dir := t.TempDir()
	run7zz(t, sevenzz, src, filepath.Join(dir, "v.7z"), "-v100k", "-m0=Copy")
	parts, _ := filepath.Glob(filepath.Join(dir, "v.7z.*"))
	sort.Strings(parts)
	if len(parts) < 2 {
		t.Fatalf("%d parts", len(parts))
	}
	var all []byte
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	rd, err := NewReader(bytes.NewReader(all), int64(len(all)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := extractToMap(rd)
	if err != nil {
		t.Fatal(err)
	}
	compareTrees(t, got, want)
}

// TestAntiItems reads a differential archive whose deleted files are
// anti-items.
func TestAntiItems(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for name, data := range map[string]string{"a.txt": "a", "b.txt": "b", "d/c.txt": "c"} {
		p := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(dir, "base.7z")
	run7zz(t, sevenzz, src, base)
	os.Remove(filepath.Join(src, "b.txt"))
	os.RemoveAll(filepath.Join(src, "d"))
	cmd := exec.Command(sevenzz, "u", "-bso0", base, "-u-", "-up0q3r2x2y2z0w2!"+filepath.Join(dir, "diff.7z"), ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rd := openFile(t, filepath.Join(dir, "diff.7z"), "")
	anti := map[string]archive.EntryType{}
	for _, e := range rd.Entries() {
		if e.Anti {
			anti[e.Name] = e.Type
		}
	}
	if len(anti) != 3 || anti["d"] != archive.TypeDir || anti["b.txt"] != archive.TypeFile {
		t.Errorf("anti-items %v", anti)
	}
	n := 0
	err := rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		if e.Anti {
			n++
			if b, err := io.ReadAll(r); err != nil || len(b) != 0 {
				t.Errorf("anti-item %s: %d bytes, %v", e.Name, len(b), err)
			}
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("extract: %v, %d anti-items", err, n)
	}
}
