package listing

import (
	stdtar "archive/tar"
	stdzip "archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/testenv"
	"github.com/garc-dev/garc/internal/zip"
)

// sltTree makes a directory of a file, a read-only file, a subdirectory
// with a file, a symlink and an empty file, all with one modification
// time.
func sltTree(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	files := map[string]string{"h": "hello", "ro": "read only", "d/k": strings.Repeat("k", 1000), "empty": ""}
	if err := os.Mkdir(filepath.Join(src, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(src, "ro"), 0o444)
	if err := os.Symlink("h", filepath.Join(src, "l")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"h", "ro", "d/k", "empty", "d", "."} {
		if err := os.Chtimes(filepath.Join(src, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// run runs a command in dir and returns the file it wrote.
func run(t *testing.T, dir, out string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSLTZipTarMatch7zz compares l -slt of ZIP and tar archives with
// 7zz l -slt from the "--" line on, key for key and value for value:
// 7-Zip's ZIP keys (Characteristics, Host OS, Version, Volume Index,
// Offset …) and tar keys (Mode, User, Group, Symbolic Link, Hard Link,
// Characteristics, Comment …), not the RAR layout.
func TestSLTZipTarMatch7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	src := sltTree(t)
	work := t.TempDir()
	names := []string{"h", "ro", "d", "d/k", "l", "empty"}
	arc := func(name string) string { return filepath.Join(work, name) }

	cases := map[string]func(t *testing.T) []byte{
		"info-zip.zip": func(t *testing.T) []byte {
			return run(t, src, arc("info-zip.zip"), testenv.Tool(t, "zip"), append([]string{"-qy", "-9", arc("info-zip.zip")}, names...)...)
		},
		"7zz.zip": func(t *testing.T) []byte {
			return run(t, src, arc("7zz.zip"), zz, append([]string{"a", "-tzip", "-snl", "-bso0", arc("7zz.zip")}, names...)...)
		},
		"7zz-aes.zip": func(t *testing.T) []byte {
			return run(t, src, arc("7zz-aes.zip"), zz, append([]string{"a", "-tzip", "-snl", "-bso0", "-ppw", "-mem=AES256", arc("7zz-aes.zip")}, names...)...)
		},
		"7zz-zipcrypto.zip": func(t *testing.T) []byte {
			return run(t, src, arc("7zz-zipcrypto.zip"), zz, append([]string{"a", "-tzip", "-bso0", "-ppw", "-mx9", arc("7zz-zipcrypto.zip")}, names...)...)
		},
		"info-zip-zip64.zip": func(t *testing.T) []byte {
			return run(t, src, arc("info-zip-zip64.zip"), testenv.Tool(t, "zip"), append([]string{"-qy", "-fz", arc("info-zip-zip64.zip")}, names...)...)
		},
		"info-zip-stdin.zip": func(t *testing.T) []byte {
			// Streamed: a data descriptor and Zip64 records.
			cmd := exec.Command(testenv.Tool(t, "zip"), "-q", "-", "-")
			cmd.Stdin = strings.NewReader(strings.Repeat("streamed\n", 100))
			b, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		"info-zip-crypt-comment.zip": func(t *testing.T) []byte {
			zipTool := testenv.Tool(t, "zip")
			cmd := exec.Command(zipTool, append([]string{"-qy", "-P", "pw", "-z", arc("info-zip-crypt-comment.zip")}, names...)...)
			cmd.Dir = src
			cmd.Stdin = strings.NewReader("first line\nsecond line\n\nlast line\n")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("zip: %v\n%s", err, b)
			}
			b, err := os.ReadFile(arc("info-zip-crypt-comment.zip"))
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		"info-zip-sfx.zip": func(t *testing.T) []byte {
			// A self-extractor: a stub, then offsets adjusted by zip -A.
			inner := run(t, src, arc("inner.zip"), testenv.Tool(t, "zip"), append([]string{"-qy", arc("inner.zip")}, names...)...)
			stub := bytes.Repeat([]byte("#!/bin/sh\nexit 1\n"), 200)
			if err := os.WriteFile(arc("info-zip-sfx.zip"), append(stub, inner...), 0o644); err != nil {
				t.Fatal(err)
			}
			return run(t, src, arc("info-zip-sfx.zip"), testenv.Tool(t, "zip"), "-qA", arc("info-zip-sfx.zip"))
		},
		"go-sfx64.zip":    func(t *testing.T) []byte { return sfxZip64File(t, []byte(strings.Repeat("data ", 100))) },
		"go-sfx64.jar":    func(t *testing.T) []byte { return sfxZip64File(t, []byte("other extension of zip")) },
		"go-zip.7z":       func(t *testing.T) []byte { return sfxZip64File(t, []byte("the name says 7z")) },
		"go-modes.zip":    func(t *testing.T) []byte { return unixModesZip(t) },
		"go-unsorted.zip": func(t *testing.T) []byte { return reversedCentral(t, unixModesZip(t)) },
		"go-tail.zip": func(t *testing.T) []byte {
			// Block padding after the archive, as bsdtar writes to a pipe.
			return append(unixModesZip(t), make([]byte, 7000)...)
		},
		"go.zip": func(t *testing.T) []byte {
			var buf bytes.Buffer
			w := stdzip.NewWriter(&buf)
			mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
			for _, f := range []struct {
				name, data, comment string
				method              uint16
			}{{"dir/", "", "", stdzip.Store}, {"dir/a.txt", strings.Repeat("a", 3000), "entry comment", stdzip.Deflate}, {"b", "b", "", stdzip.Store}} {
				fw, err := w.CreateHeader(&stdzip.FileHeader{Name: f.name, Method: f.method, Comment: f.comment, Modified: mtime})
				if err != nil {
					t.Fatal(err)
				}
				fw.Write([]byte(f.data))
			}
			w.SetComment("archive comment")
			w.Close()
			return buf.Bytes()
		},
	}
	for _, format := range []string{"gnu", "oldgnu", "ustar", "v7", "pax"} {
		name := format + ".tar"
		cases[name] = func(t *testing.T) []byte {
			return run(t, src, arc(name), testenv.Tool(t, "tar"), append([]string{"--format=" + format, "--owner=user:1000", "--group=group:1001", "-cf", arc(name)}, names...)...)
		}
	}
	cases["go.tar"] = func(t *testing.T) []byte {
		var buf bytes.Buffer
		w := stdtar.NewWriter(&buf)
		mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
		for _, h := range []stdtar.Header{
			{Name: "f", Typeflag: stdtar.TypeReg, Size: 5, Mode: 0o644, Uname: "u", Gname: "g", Uid: 7, Gid: 8},
			{Name: "dir/", Typeflag: stdtar.TypeDir, Mode: 0o755},
			{Name: "hard", Typeflag: stdtar.TypeLink, Linkname: "f", Mode: 0o644},
			{Name: "sym", Typeflag: stdtar.TypeSymlink, Linkname: "dir/../f", Mode: 0o777},
		} {
			h.ModTime = mtime
			w.WriteHeader(&h)
			w.Write(make([]byte, h.Size))
		}
		w.Close()
		return buf.Bytes()
	}

	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			data := mk(t)
			path := arc(name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(zz, "l", "-slt", "-ppw", path)
			cmd.Env = append(os.Environ(), "TZ=UTC")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("7zz l -slt: %v", err)
			}
			want := withoutWarningCount(string(out[bytes.Index(out, []byte("\n--\n"))+4:]))

			opts := &archive.Options{Name: path, Password: func() (string, error) { return "pw", nil }}
			var rd archive.Reader
			if strings.HasSuffix(name, ".zip") || strings.HasSuffix(name, ".jar") || strings.HasSuffix(name, ".7z") {
				rd, err = zip.NewReader(bytes.NewReader(data), int64(len(data)), opts)
			} else {
				rd, err = tar.Open(bytes.NewReader(data), int64(len(data)), 0, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var b strings.Builder
			WriteSLT(&b, path, rd.Info(), rd.Entries(), func(*archive.Entry) bool { return true })
			got := b.String()
			got = got[strings.Index(got, "\n--\n")+4:]
			if got != want {
				t.Errorf("-slt differs from 7zz\n--- 7zz\n%s\n--- garc\n%s", want, got)
			}
		})
	}
}

// unixModesZip has entries made on Unix whose modes 7-Zip renders in
// its own ways: without file type bits ("V 01800000 0rw-------"), a FIFO,
// devices, a socket, set-id and sticky bits, a directory without type,
// and Windows bits beside a mode.
func unixModesZip(t *testing.T) []byte {
	var b bytes.Buffer
	w := stdzip.NewWriter(&b)
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for _, f := range []struct {
		name  string
		attrs uint32
	}{
		{"notype", 0o600 << 16}, {"notype-readonly", 0o400<<16 | archive.AttrReadOnly}, {"fifo", 0o010644 << 16},
		{"chr", 0o020620 << 16}, {"blk", 0o060660 << 16}, {"sock", 0o140755 << 16}, {"suid", 0o104755 << 16},
		{"sgid-sticky", 0o103674 << 16}, {"dir-notype/", 0o755<<16 | archive.AttrDirectory}, {"sticky-notype", 0o1777 << 16},
		{"reg-archive", 0o100644<<16 | archive.AttrArchive}, {"mode-marker", 0o644<<16 | archive.AttrUnixExtension},
	} {
		h := &stdzip.FileHeader{Name: f.name, Method: stdzip.Store, Modified: mtime, CreatorVersion: 3<<8 | 20, ExternalAttrs: f.attrs}
		if f.name == "fifo" {
			h.Comment = "a comment\nof two lines" // 7-Zip shows "a comment_of two lines"
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f.name, "/") {
			fw.Write([]byte(f.name))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// warningCount is the count 7-Zip prints after a listing whose archive
// block holds a warning; garc's command line prints it (internal/cli).
var warningCount = regexp.MustCompile(`\n\nWarnings: \d+\n+$`)

// withoutWarningCount drops 7-Zip's closing warning count.
func withoutWarningCount(s string) string { return warningCount.ReplaceAllString(s, "\n") }
