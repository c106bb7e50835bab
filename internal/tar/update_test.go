package tar

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	stdtar "archive/tar"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
)

// updateSource is a tar with what garc's own writer never writes: a pax
// global header, extended attributes, a GNU long name, a hard link and
// a member whose name is exactly 100 bytes.
func updateSource(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := stdtar.NewWriter(&buf)
	mt := time.Unix(1700000000, 0)
	long := strings.Repeat("d/", 60) + "long.txt"
	members := []struct {
		h    stdtar.Header
		body string
	}{
		{stdtar.Header{Typeflag: stdtar.TypeXGlobalHeader, Name: "global", PAXRecords: map[string]string{"comment": "kept"}, Format: stdtar.FormatPAX}, ""},
		{stdtar.Header{Name: "a.txt", Mode: 0o644, Size: 5, ModTime: mt, PAXRecords: map[string]string{"SCHILY.xattr.user.note": "hello"}, Format: stdtar.FormatPAX}, "alpha"},
		{stdtar.Header{Name: long, Mode: 0o600, Size: 4, ModTime: mt, Format: stdtar.FormatGNU}, "long"},
		{stdtar.Header{Name: "b.txt", Mode: 0o644, Size: 600, ModTime: mt}, strings.Repeat("b", 600)},
		{stdtar.Header{Name: "hard", Typeflag: stdtar.TypeLink, Linkname: "b.txt", ModTime: mt}, ""},
		{stdtar.Header{Name: "dir/", Typeflag: stdtar.TypeDir, Mode: 0o755, ModTime: mt}, ""},
	}
	for _, m := range members {
		if err := tw.WriteHeader(&m.h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll lists a tar with the standard library: name, PAX records and
// content of each member.
func readAll(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	tr := stdtar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("archive/tar: %v", err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.Name+"|"+h.Linkname+"|"+h.PAXRecords["SCHILY.xattr.user.note"]+"|"+string(body))
	}
}

func TestCopyMembers(t *testing.T) {
	src := updateSource(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(src)
	zw.Close()
	all := readAll(t, src)

	tests := []struct {
		name string
		in   []byte
		kind stream.Kind
		drop string // a member keep rejects
		add  bool   // a new member written after the copies
	}{
		{"plain, all kept", src, 0, "", false},
		{"gzip, all kept", gz.Bytes(), stream.Gzip, "", false},
		{"drop first member (after the global header)", src, 0, "a.txt", true},
		{"drop long name", src, 0, strings.Repeat("d/", 60) + "long.txt", false},
		{"gzip, drop and add", gz.Bytes(), stream.Gzip, "b.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tw := NewWriter(&out)
			var seen []string
			err := tw.CopyMembers(context.Background(), bytes.NewReader(tt.in), int64(len(tt.in)), tt.kind, &archive.Options{Name: "t.tar"},
				func(e *archive.Entry) bool {
					seen = append(seen, e.Name)
					return e.Name != tt.drop
				})
			if err != nil {
				t.Fatal(err)
			}
			if tt.add {
				if err := tw.WriteHeader(&WriteHeader{Name: "new.txt", Type: archive.TypeFile, Mode: 0o644, Size: 3}); err != nil {
					t.Fatal(err)
				}
				io.WriteString(tw, "new")
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			if len(seen) != 5 {
				t.Errorf("keep was asked about %q, want the 5 members", seen)
			}
			var want []string
			for _, m := range all {
				if tt.drop == "" || !strings.HasPrefix(m, tt.drop+"|") {
					want = append(want, m)
				}
			}
			if tt.add {
				want = append(want, "new.txt|||new")
			}
			if got := readAll(t, out.Bytes()); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("copied:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if tt.drop == "" && !tt.add {
				// Byte for byte: the source up to its end blocks.
				end := bytes.LastIndex(src, []byte("bbbb")) + 4
				end += -end & (blockSize - 1)
				if !bytes.Equal(out.Bytes()[:end], src[:end]) {
					t.Error("kept members are not copied byte for byte")
				}
			}
			if !bytes.Contains(out.Bytes(), []byte("comment=kept")) {
				t.Error("the pax global header was dropped")
			}
		})
	}
}

func TestCopyMembersTruncated(t *testing.T) {
	src := updateSource(t)
	cut := src[:len(src)/2+100]
	var out bytes.Buffer
	err := NewWriter(&out).CopyMembers(context.Background(), bytes.NewReader(cut), int64(len(cut)), 0, &archive.Options{Name: "t.tar"},
		func(*archive.Entry) bool { return true })
	var ae *archive.Error
	if !errors.As(err, &ae) || ae.Archive != "t.tar" || !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("truncated tar: %v, want a corrupt-data error naming t.tar", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := NewWriter(&out).CopyMembers(ctx, bytes.NewReader(src), int64(len(src)), 0, nil, func(*archive.Entry) bool { return true }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzCopyMembers checks that copying the members of any input never
// panics, that its errors wrap a sentinel, and that a copy keeping every
// member lists as the input does: the same entries, in the same order.
func FuzzCopyMembers(f *testing.F) {
	f.Add(updateSourceBytes())
	f.Add(tarOf(
		rawHeader{name: "G", typeflag: 'g', data: paxRecord("comment", "global")}.bytes(),
		rawHeader{name: "P", typeflag: 'x', data: paxRecord("path", "long/name")}.bytes(),
		rawHeader{name: "f", typeflag: '0', data: "abc"}.bytes(),
		rawHeader{name: "L", typeflag: 'L', data: "longer"}.bytes(),
		rawHeader{name: "g", typeflag: '0', data: "de"}.bytes()))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < blockSize {
			return
		}
		opts := func() *archive.Options {
			return &archive.Options{Name: "f", MaxDict: 1 << 20, Memory: archive.NewMemoryBudget(1 << 20)}
		}
		var out bytes.Buffer
		tw := NewWriter(&out)
		var kept []string
		err := tw.CopyMembers(context.Background(), bytes.NewReader(data), int64(len(data)), 0, opts(),
			func(e *archive.Entry) bool {
				kept = append(kept, e.Name)
				return true
			})
		if err != nil {
			if !archive.HasSentinel(err) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(bytes.NewReader(out.Bytes()), int64(out.Len()), 0, opts())
		if err != nil {
			t.Fatalf("the copy does not open: %v", err)
		}
		var got []string
		for _, e := range r.Entries() {
			got = append(got, e.Name)
		}
		if r.Err() != nil || strings.Join(got, "\x00") != strings.Join(kept, "\x00") {
			t.Fatalf("the copy lists %q (%v), the input %q", got, r.Err(), kept)
		}
	})
}

// updateSourceBytes is updateSource outside a test, for a fuzz seed.
func updateSourceBytes() []byte {
	var buf bytes.Buffer
	tw := stdtar.NewWriter(&buf)
	tw.WriteHeader(&stdtar.Header{Typeflag: stdtar.TypeXGlobalHeader, Name: "global", PAXRecords: map[string]string{"comment": "kept"}, Format: stdtar.FormatPAX})
	tw.WriteHeader(&stdtar.Header{Name: "a.txt", Mode: 0o644, Size: 5, PAXRecords: map[string]string{"SCHILY.xattr.user.note": "hello"}, Format: stdtar.FormatPAX})
	tw.Write([]byte("alpha"))
	tw.WriteHeader(&stdtar.Header{Name: strings.Repeat("d/", 60) + "long.txt", Mode: 0o600, Size: 4, Format: stdtar.FormatGNU})
	tw.Write([]byte("long"))
	tw.Close()
	return buf.Bytes()
}
