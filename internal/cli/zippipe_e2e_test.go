//go:build linux

package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// modeTree describes the tree under dir: each path's type and permission
// bits and its content or link target.
func modeTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// zipTree makes the tree the ZIP pipe tests archive: modes other than the
// defaults, links, an empty file and directory, a file holding data
// descriptor signatures.
func zipTree(t *testing.T, dir string) {
	t.Helper()
	writeTree(t, dir, map[string]string{
		"p/run.sh":       "#!/bin/sh\necho hi\n",
		"p/secret.txt":   "only for me\n",
		"p/sub/data.txt": strings.Repeat("data line\n", 3000),
		"p/sub/empty":    "",
		"p/sig.bin":      strings.Repeat("PK\x07\x08\x00\x00\x00\x00PK\x03\x04", 500),
	})
	os.Chmod(filepath.Join(dir, "p/run.sh"), 0o755)
	os.Chmod(filepath.Join(dir, "p/secret.txt"), 0o600)
	os.Mkdir(filepath.Join(dir, "p/emptydir"), 0o700)
	os.Symlink("sub/data.txt", filepath.Join(dir, "p/link"))
	os.Symlink("sub", filepath.Join(dir, "p/dirlink"))
}

// runZip runs Info-ZIP's zip in dir and returns its standard output.
func runZip(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, "zip"), args...)
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("zip %q: %v\n%s", args, err, stderr.String())
	}
	return out.Bytes()
}

// TestZIPPipeSameTree: a ZIP piped into x - (Info-ZIP writing into a pipe,
// with data descriptors; -fd forcing them; a plain zip) gives the tree x
// of the file gives, modes and symbolic links included (which only the
// central directory, arriving last, carries), and the tree bsdtar -xf -
// gives; l - and t - print what they print for the file.
func TestZIPPipeSameTree(t *testing.T) {
	dir := t.TempDir()
	zipTree(t, dir)
	runZip(t, dir, "-qry", "plain.zip", "p")
	runZip(t, dir, "-qry", "-fd", "fd.zip", "p")
	os.WriteFile(filepath.Join(dir, "pipe.zip"), runZip(t, dir, "-qry", "-", "p"), 0o644)
	os.WriteFile(filepath.Join(dir, "stored.zip"), runZip(t, dir, "-qry0", "-", "p"), 0o644)
	bsdtar := testenv.Tool(t, "bsdtar")
	for _, name := range []string{"plain.zip", "fd.zip", "pipe.zip", "stored.zip"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			file, pipe, bsd := filepath.Join(dir, "file-"+name), filepath.Join(dir, "pipe-"+name), filepath.Join(dir, "bsd-"+name)
			garc(t, dir, "", "x", name, "-o", file).expect(t, ExitOK, "x "+name)
			garc(t, dir, string(data), "x", "-", "-o", pipe).expect(t, ExitOK, "x - < "+name)
			want := modeTree(t, file)
			if got := modeTree(t, pipe); !reflect.DeepEqual(got, want) {
				t.Errorf("x - < %s:\n%v\nwant\n%v", name, got, want)
			}
			// bsdtar takes the descriptor signature in p/sig.bin's
			// stored data for the entry's end and fails ("ZIP
			// compressed data is wrong size"): not compared.
			if name != "stored.zip" {
				compareBsdtar(t, bsdtar, data, bsd, pipe)
			}
			l, lin := garc(t, dir, "", "l", name), garc(t, dir, string(data), "l", "-")
			l.expect(t, ExitOK, "l "+name)
			lin.expect(t, ExitOK, "l - < "+name)
			if withoutLines(lin.stdout, "Path = ") != withoutLines(l.stdout, "Path = ") {
				t.Errorf("l - < %s:\n%s\nwant:\n%s", name, lin.stdout, l.stdout)
			}
			tf, tin := garc(t, dir, "", "t", name), garc(t, dir, string(data), "t", "-")
			tf.expect(t, ExitOK, "t "+name)
			tin.expect(t, ExitOK, "t - < "+name)
			// Size counts the links' targets from the pipe: they are
			// tested as files before the directory says they are links.
			if withoutLines(withoutLines(tin.stderr, "Testing archive: "), "Size: ") != withoutLines(withoutLines(tf.stderr, "Testing archive: "), "Size: ") {
				t.Errorf("t - < %s:\n%s\nwant:\n%s", name, tin.stderr, tf.stderr)
			}
		})
	}
}

// TestZIPPipeLinkRules: a link whose target leaves the destination is
// refused from a pipe as from the file (exit 1), and nothing is left of
// the file its content was written to first; --links=skip skips it.
func TestZIPPipeLinkRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"p/a.txt": "a\n"})
	os.Symlink("/etc/passwd", filepath.Join(dir, "p/abs"))
	os.Symlink("../../x", filepath.Join(dir, "p/up"))
	data := runZip(t, dir, "-qry", "-", "p")
	os.WriteFile(filepath.Join(dir, "a.zip"), data, 0o644)
	for _, args := range [][]string{nil, {"--links=skip"}} {
		file := garc(t, dir, "", append([]string{"x", "a.zip", "-o", "file"}, args...)...)
		pipe := garc(t, dir, string(data), append([]string{"x", "-", "-o", "pipe"}, args...)...)
		file.expect(t, ExitWarning, "x a.zip")
		pipe.expect(t, ExitWarning, "x - < a.zip")
		want, got := modeTree(t, filepath.Join(dir, "file")), modeTree(t, filepath.Join(dir, "pipe"))
		if !reflect.DeepEqual(got, want) || len(got) != 2 {
			t.Errorf("%q: x - gives %v, x a.zip %v", args, got, want)
		}
		if !strings.Contains(pipe.stderr, "p/abs") || !strings.Contains(pipe.stderr, "p/up") {
			t.Errorf("%q: the links are not named: %s", args, pipe.stderr)
		}
		os.RemoveAll(filepath.Join(dir, "file"))
		os.RemoveAll(filepath.Join(dir, "pipe"))
	}
}

// TestZIPPipeReadsAsItArrives writes the first part of a ZIP into garc's
// standard input and stops: the entries whose data has arrived are
// extracted already, and garc holds no copy of the archive (no temporary
// file open, none in the destination or TMPDIR). Then the rest comes,
// and a large entry (48 MB of content) passes in little memory.
func TestZIPPipeReadsAsItArrives(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 4<<20)
	rand.Read(noise)
	writeTree(t, dir, map[string]string{"p/first.txt": "first\n", "p/noise.bin": string(noise)})
	// 48 MB of zeros, which Deflate makes small.
	big, err := os.Create(filepath.Join(dir, "p/zeros"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(48 << 20)
	big.Close()
	data := runZip(t, dir, "-qr", "-", "p/first.txt", "p/noise.bin", "p/zeros")
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	cmd, w, stderr := startPiped(t, dir, []string{"TMPDIR=" + tmp}, "x", "-", "-o", "out")
	half := len(noise) / 2 // into noise.bin's data
	if _, err := w.Write(data[:half]); err != nil {
		t.Fatal(err)
	}
	// Wait until the first entry is there. The deadline only stops a
	// hung test; it is not a timing assertion.
	first := filepath.Join(dir, "out/p/first.txt")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(first); string(b) == "first\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first entry was not extracted while the pipe was half written\n%s", stderr.String())
		}
	}
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	if copying(fds) {
		t.Error("garc holds a temporary copy of the archive")
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR holds %v", ents)
	}
	if _, err := w.Write(data[half:]); err != nil {
		t.Fatal(err)
	}
	// Peak memory once the large entry is written (garc then waits for
	// the pipe's end): the stream buffers and a decoder's window, not
	// the 48 MB entry.
	for deadline := time.Now().Add(60 * time.Second); !hasFileOfSize(filepath.Join(dir, "out/p"), 48<<20); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("zeros was not written\n%s", stderr.String())
		}
	}
	status, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "status"))
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var hwm int
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			hwm, _ = strconv.Atoi(f[1])
		}
	}
	if hwm == 0 || hwm > 40<<10 {
		t.Errorf("peak RSS %d KiB", hwm)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out/p/noise.bin")); !bytes.Equal(b, noise) {
		t.Error("noise.bin differs")
	}
	if fi, err := os.Stat(filepath.Join(dir, "out/p/zeros")); err != nil || fi.Size() != 48<<20 {
		t.Errorf("zeros: %v", err)
	}
}

// hasFileOfSize reports whether dir holds a file of size bytes.
func hasFileOfSize(dir string, size int64) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Size() == size {
			return true
		}
	}
	return false
}

// TestZIPPipeErrors: a central directory that disagrees with the local
// headers, an archive cut short and a CRC error fail from a pipe with the
// exit code x and t give for the file (corrupt: 2, CRC: 3), naming "-" and the
// entry.
func TestZIPPipeErrors(t *testing.T) {
	dir := t.TempDir()
	zipTree(t, dir)
	good := runZip(t, dir, "-qry", "-", "p")
	le := binary.LittleEndian
	// The central record of p/run.sh, its size changed.
	mismatch := append([]byte(nil), good...)
	cd := bytes.Index(mismatch, []byte("PK\x01\x02"))
	for i := cd; i >= 0; {
		if string(mismatch[i+46:i+46+int(le.Uint16(mismatch[i+28:]))]) == "p/run.sh" {
			le.PutUint32(mismatch[i+24:], 12345)
			break
		}
		k := bytes.Index(mismatch[i+4:], []byte("PK\x01\x02"))
		if k < 0 {
			t.Fatal("no central record of p/run.sh")
		}
		i += 4 + k
	}
	// A stored entry's data changed: a CRC error.
	stored := runZip(t, dir, "-qry0", "-", "p")
	crc := bytes.Replace(stored, []byte("echo hi"), []byte("echo ho"), 1)
	for _, c := range []struct {
		name   string
		data   []byte
		code   int
		stderr string
	}{
		{"directory disagrees", mismatch, ExitFatal, "p/run.sh"},
		{"cut short", good[:len(good)-100], ExitFatal, "cut short"},
		{"CRC", crc, ExitChecksum, "p/run.sh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "c.zip"), c.data, 0o644)
			for _, cmd := range []string{"x", "t"} {
				args := []string{cmd, "-", "-y", "-o", filepath.Join(dir, "o-"+cmd)}
				if cmd == "t" {
					args = args[:2]
				}
				r := garc(t, dir, string(c.data), args...)
				r.expect(t, c.code, cmd+" - < "+c.name)
				if !strings.Contains(r.stderr, "garc: -: ") || !strings.Contains(r.stderr, c.stderr) {
					t.Errorf("%s -: %s does not name - and %q", cmd, r.stderr, c.stderr)
				}
				if c.name == "cut short" {
					continue // the file reader finds no directory at all
				}
				fargs := append([]string{cmd, "c.zip"}, args[2:]...)
				if f := garc(t, dir, "", fargs...); f.code != r.code {
					t.Errorf("%s c.zip exits %d, from the pipe %d", cmd, f.code, r.code)
				}
			}
		})
	}
}

// TestZIPPipePassword: an encrypted ZIP (ZipCrypto as Info-ZIP writes it
// into a pipe, AES as garc writes it) is read from a pipe with -p, and a
// wrong password exits as for the file.
func TestZIPPipePassword(t *testing.T) {
	dir := t.TempDir()
	zipTree(t, dir)
	crypto := runZip(t, dir, "-qry", "-P", "pw", "-", "p")
	garc(t, dir, "", "a", "-ppw", "aes.zip", "p").expect(t, ExitOK, "a aes.zip")
	aes, _ := os.ReadFile(filepath.Join(dir, "aes.zip"))
	os.WriteFile(filepath.Join(dir, "crypto.zip"), crypto, 0o644)
	for name, data := range map[string][]byte{"crypto.zip": crypto, "aes.zip": aes} {
		garc(t, dir, "", "x", "-ppw", name, "-o", "file-"+name).expect(t, ExitOK, "x "+name)
		garc(t, dir, string(data), "x", "-ppw", "-", "-o", "pipe-"+name).expect(t, ExitOK, "x - < "+name)
		if got, want := modeTree(t, filepath.Join(dir, "pipe-"+name)), modeTree(t, filepath.Join(dir, "file-"+name)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		f := garc(t, dir, "", "t", "-pbad", name)
		p := garc(t, dir, string(data), "t", "-pbad", "-")
		if f.code != p.code || p.code == ExitOK {
			t.Errorf("%s with a wrong password: exit %d from the pipe, %d from the file", name, p.code, f.code)
		}
	}
}

// TestZIPPipePasswordFromTerminal pipes an encrypted ZIP into garc whose
// controlling terminal is a pseudo-terminal: the password is read there,
// never from the piped data, and the archive is still read as it
// arrives. A wrong password, which cannot be asked for again (the data is
// gone), ends the run with exit 11 and leaves nothing.
func TestZIPPipePasswordFromTerminal(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"p/a.txt": "secret text\n"})
	data := runZip(t, dir, "-qr", "-P", "topsecret", "-", "p")
	if r := zipPipePTY(t, dir, data, "out", "topsecret"); r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out/p/a.txt")); string(b) != "secret text\n" {
		t.Errorf("extracted %q", b)
	}
	r := zipPipePTY(t, dir, data, "bad", "nope")
	if r.code != ExitPassword || strings.Count(r.out, "Enter password") != 1 {
		t.Errorf("wrong password: exit %d\n%s", r.code, r.out)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "bad")); len(ents) != 0 {
		t.Errorf("a wrong password left %d entries", len(ents))
	}
}

// zipPipePTY runs x - -o out with data on standard input and a
// pseudo-terminal as the controlling terminal, answering the password
// prompt with password.
func zipPipePTY(t *testing.T, dir string, data []byte, out, password string) (res struct {
	code int
	out  string
}) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(garcBin, "x", "-", "-o", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC", "TERM=dumb")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	r := &ptyRun{cmd: cmd, master: master, done: make(chan struct{})}
	go r.collect()
	t.Cleanup(func() { cmd.Process.Kill() })
	r.waitFor(t, "Enter password for -")
	master.Write([]byte(password + "\r"))
	res.code = r.wait(t)
	res.out = r.output()
	return res
}

// compareBsdtar extracts data with bsdtar -xf - into bsd and compares the
// contents with garc's tree pipe. bsdtar reading a pipe makes every entry
// a file with its umask's mode (a link holds its target): the same
// contents, without what the central directory says.
func compareBsdtar(t *testing.T, bsdtar string, data []byte, bsd, pipe string) {
	t.Helper()
	os.Mkdir(bsd, 0o755)
	cmd := exec.Command(bsdtar, "-xf", "-", "-C", bsd)
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bsdtar: %v\n%s", err, out)
	}
	// bsdtar reading a pipe makes every entry a file with its
	// umask's mode (links hold their targets): the same
	// contents, without what the central directory says.
	bt := readTree(t, bsd)
	for k, v := range readTree(t, pipe) {
		if target, ok := strings.CutPrefix(v, "-> "); ok {
			v = target
		}
		if bt[k] != v {
			t.Errorf("%s: %d bytes, bsdtar -xf - %d", k, len(v), len(bt[k]))
		}
	}
}

// TestZIPPipeCorpusUnits: real archives that x reads from the file (a
// directory marked only by its DOS attribute, a local Zip64 field holding
// the compressed size alone, a central record swallowing the end
// record's signature, data descriptors without their signature, PPMd
// with data descriptors) give from a pipe the tree and exit code x of the
// file gives.
func TestZIPPipeCorpusUnits(t *testing.T) {
	root := testenv.MoreCorpusRoot(t)
	dir := t.TempDir()
	for i, unit := range []string{
		"files/libarchive/test_read_format_zip_msdos.zip",
		"files/sharpcompress/Archives__Zip.zip64.compressedonly.zip",
		"files/libarchive/test_read_format_zip_extra_padding.zip",
		"files/libarchive/test_read_format_zip_with_invalid_traditional_eocd.zip",
		"files/sharpcompress/Archives__Zip.ppmd.dd.zip",
	} {
		t.Run(filepath.Base(unit), func(t *testing.T) {
			src := filepath.Join(root, unit)
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			file, pipe := filepath.Join(dir, "file"+strconv.Itoa(i)), filepath.Join(dir, "pipe"+strconv.Itoa(i))
			garc(t, dir, "", "x", src, "-o", file).expect(t, ExitOK, "x "+unit)
			garc(t, dir, string(data), "x", "-", "-o", pipe).expect(t, ExitOK, "x - < "+unit)
			want := modeTree(t, file)
			if got := modeTree(t, pipe); !reflect.DeepEqual(got, want) {
				t.Errorf("x - < %s:\n%v\nwant\n%v", unit, got, want)
			}
		})
	}
}
