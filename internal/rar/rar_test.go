package rar

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

func TestVint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		rest int
		ok   bool
	}{
		{[]byte{0}, 0, 0, true},
		{[]byte{0x7f, 1}, 127, 1, true},
		{[]byte{0x80, 1}, 128, 0, true},
		{[]byte{0xff, 0xff, 0x03}, 0xffff, 0, true},
		{[]byte{0x80}, 0, 0, false},
		{bytes.Repeat([]byte{0x80}, 11), 0, 0, false},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 1<<64 - 1, 0, true},
	}
	for _, tt := range tests {
		h := hbuf{b: tt.in}
		got := h.vint()
		if (h.err == nil) != tt.ok || (tt.ok && (got != tt.want || h.len() != tt.rest)) {
			t.Errorf("vint(%x) = %d, rest %d, err %v; want %d, rest %d, ok %v", tt.in, got, h.len(), h.err, tt.want, tt.rest, tt.ok)
		}
	}
}

func TestNextVolumeName(t *testing.T) {
	tests := []struct {
		in        string
		newNaming bool
		want      string
	}{
		{"a/x.part1.rar", true, "a/x.part2.rar"},
		{"x.part09.rar", true, "x.part10.rar"},
		{"x.part99.rar", true, "x.part100.rar"},
		{"docs.000.rar", true, "docs.001.rar"},
		{"x.rar", false, "x.r00"},
		{"x.r00", false, "x.r01"},
		{"x.r99", false, "x.s00"},
		{"x.RAR", false, "x.R00"},
		{"x.001", false, "x.002"},
		{"x.001", true, "x.002"},
	}
	for _, tt := range tests {
		if got := nextVolumeName(tt.in, tt.newNaming); got != tt.want {
			t.Errorf("nextVolumeName(%q, %v) = %q, want %q", tt.in, tt.newNaming, got, tt.want)
		}
	}
}

func TestDecodeRARName(t *testing.T) {
	// "ab" + U+0416 (Ж) + "c": OEM name "ab?c", then high byte 0x04,
	// flags 0b11_01_00_00: a run of 2 copied from the OEM name, then one
	// char with the high byte (0x16), then one low byte ('c').
	name := append([]byte("ab?c\x00"), 0x04, 0b11_01_00_00, 0x00, 0x16, 'c')
	if got := decodeRARName(name, false); got != "abЖc" {
		t.Errorf("decodeRARName = %q", got)
	}
	// No zero byte: the name is UTF-8.
	if got := decodeRARName([]byte("naïve"), false); got != "naïve" {
		t.Errorf("utf-8 name = %q", got)
	}
	// Truncated encodings must not panic.
	for i := range name {
		decodeRARName(name[:i], false)
	}
}

func TestLegacyText(t *testing.T) {
	if got := legacyText([]byte{'c', 'a', 'f', 0x82}); got != "café" {
		t.Errorf("cp437 = %q", got)
	}
	if got := legacyName([]byte{'c', 'a', 'f', 0xe9}, true); got != "café" {
		t.Errorf("ansi = %q", got)
	}
}

func corpusFile(t testing.TB, rel string) string {
	return filepath.Join(testenv.CorpusRoot(t), rel)
}

func pwOpts(pw string, calls *int) *archive.Options {
	return &archive.Options{Password: func() (string, error) {
		*calls++
		return pw, nil
	}}
}

// extractErrors extracts everything and returns how many bytes were
// delivered in total and the first entry error.
func extractErrors(t *testing.T, r archive.Reader) (int64, error) {
	var first error
	var total int64
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		n, err := io.Copy(io.Discard, rd)
		total += n
		if err != nil && first == nil {
			first = err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, first
}

func TestRAR5WrongPassword(t *testing.T) {
	// Data-only encryption: the check value rejects the password before
	// any byte is produced.
	p := corpusFile(t, "files/junrar/com__github__junrar__rar5unpack__m3-enc-p.rar")
	calls := 0
	r, err := Open(p, pwOpts("nope", &calls))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, err := extractErrors(t, r)
	if !errors.Is(err, archive.ErrWrongPassword) || n != 0 {
		t.Errorf("err %v, %d bytes; want ErrWrongPassword and no output", err, n)
	}
	if calls != 1 {
		t.Errorf("password asked %d times", calls)
	}
	// Encrypted headers: Open fails.
	p = corpusFile(t, "files/junrar/com__github__junrar__rar5unpack__m3-enc-hp.rar")
	if _, err := Open(p, pwOpts("nope", &calls)); !errors.Is(err, archive.ErrWrongPassword) {
		t.Errorf("-hp wrong password: %v", err)
	}
	if _, err := Open(p, nil); !errors.Is(err, archive.ErrPasswordRequired) {
		t.Errorf("-hp no password: %v", err)
	}
}

func TestRAR3WrongPassword(t *testing.T) {
	calls := 0
	p := corpusFile(t, "files/sharpcompress/Archives__Rar.encrypted_filesAndHeader.rar")
	if _, err := Open(p, pwOpts("nope", &calls)); !errors.Is(err, archive.ErrWrongPassword) {
		t.Errorf("encrypted headers, wrong password: %v", err)
	}
	if _, err := Open(p, nil); !errors.Is(err, archive.ErrPasswordRequired) {
		t.Errorf("encrypted headers, no password: %v", err)
	}
	// RAR 2.0 cipher, stored: no check value; the CRC failure is reported
	// as both a checksum error and a probable wrong password.
	p = corpusFile(t, "files/junrar/com__github__junrar__rar20-password-stored.rar")
	r, err := Open(p, pwOpts("nope", &calls))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = extractErrors(t, r)
	if !errors.Is(err, archive.ErrWrongPassword) || !errors.Is(err, archive.ErrChecksum) {
		t.Errorf("wrong password on stored RAR 2.0 data: %v", err)
	}
	// AES-128 compressed data with a wrong password: every encrypted
	// entry fails as a probable wrong password.
	r3, err := Open(corpusFile(t, "files/sharpcompress/Archives__Rar.encrypted_filesOnly.rar"), pwOpts("nope", &calls))
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Close()
	failed := 0
	err = r3.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		_, err := io.Copy(io.Discard, rd)
		if e.Encrypted && e.Size > 0 {
			if !errors.Is(err, archive.ErrWrongPassword) {
				t.Errorf("%s: %v", e.Name, err)
			}
			failed++
		}
		return nil
	})
	if err != nil || failed == 0 {
		t.Errorf("extract: %v, %d encrypted entries", err, failed)
	}
	r2, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := extractErrors(t, r2); !errors.Is(err, archive.ErrPasswordRequired) {
		t.Errorf("no password: %v", err)
	}
}

func TestDictionaryLimit(t *testing.T) {
	p := corpusFile(t, "files/junrar/com__github__junrar__rar5unpack__m3-plain-32m.rar")
	r, err := Open(p, &archive.Options{MaxDict: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = extractErrors(t, r)
	var le *archive.LimitError
	if !errors.As(err, &le) || !errors.Is(err, archive.ErrLimit) {
		t.Errorf("want a LimitError, got %v", err)
	}
}

func TestInfo(t *testing.T) {
	r, err := Open(corpusFile(t, "files/sharpcompress/Archives__Rar5.comment.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if in := r.Info(); in.Format != archive.FormatRAR5 || strings.TrimSpace(in.Comment) != "This is another comment" {
		t.Errorf("info %+v", in)
	}
	// RAR 2.9 archive comment in a compressed CMT sub-block.
	r6, err := Open(corpusFile(t, "files/sharpcompress/Archives__Rar.comment.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r6.Close()
	if c := r6.Info().Comment; c != "This is a comment\n" {
		t.Errorf("RAR4 comment %q", c)
	}
	// RAR 1.5 compressed archive comment in the archive header, and a
	// stored file comment inside a file header.
	r7, err := Open(corpusFile(t, "files/rarfile/files__rar15-comment.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r7.Close()
	if c := r7.Info().Comment; !strings.HasPrefix(c, "RARcomment") {
		t.Errorf("RAR 1.5 comment %q", c)
	}
	if c := r7.Entries()[0].Comment(); !strings.HasPrefix(c, "file1comment") {
		t.Errorf("RAR 1.5 file comment %q", c)
	}
	r2, err := Open(corpusFile(t, "files/libarchive/test_read_format_rar5_sfx.exe"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if in := r2.Info(); in.SFXOffset != 316928 {
		t.Errorf("SFX offset %d", in.SFXOffset)
	}
	r3, err := Open(corpusFile(t, "files/unrar-rs/locked.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Close()
	if !r3.Info().Locked {
		t.Errorf("locked archive not reported")
	}
	r4, err := Open(corpusFile(t, "files/libarchive/test_read_format_rar5_owner.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r4.Close()
	found := false
	for _, e := range r4.Entries() {
		if e.Owner() != "" || e.UID() >= 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no owner recorded")
	}
	r5, err := Open(corpusFile(t, "files/sharpcompress/Archives__Rar5.multi.part01.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r5.Close()
	if n := len(r5.Info().Volumes); n != 6 {
		t.Errorf("%d volumes, want 6", n)
	}
}

// TestSelectiveSolid extracts only the last entry of a solid archive: the
// entries before it are decoded and discarded.
func TestSelectiveSolid(t *testing.T) {
	root := testenv.CorpusRoot(t)
	rel := "files/junrar/com__github__junrar__rar5unpack__m5-solid-128k.rar"
	want, err := corpus.Listing(root, "expected/junrar/com__github__junrar__rar5unpack__m5-solid-128k.rar.tsv")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(filepath.Join(root, rel), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ents := r.Entries()
	last := ents[len(ents)-1]
	if !last.Solid {
		t.Fatalf("last entry not solid")
	}
	var sum string
	calls := 0
	err = r.Extract(context.Background(), func(e *archive.Entry) bool { return e == last }, func(e *archive.Entry, rd io.Reader) error {
		calls++
		h := sha256.New()
		if _, err := io.Copy(h, rd); err != nil {
			return err
		}
		sum = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil || calls != 1 {
		t.Fatalf("err %v, calls %d", err, calls)
	}
	for _, w := range want {
		if w.Path == last.Name && w.SHA256 != sum {
			t.Errorf("sha256 mismatch for %s", last.Name)
		}
	}
}

func TestCipher20RoundTrip(t *testing.T) {
	var enc cipher20
	enc.setPassword([]byte("secret"))
	plain := []byte("0123456789abcdefTHE SECOND BLOCKthird block.......")
	plain = plain[:48]
	buf := bytes.Clone(plain)
	for i := 0; i < len(buf); i += 16 {
		enc.crypt(buf[i:i+16], true)
	}
	if bytes.Equal(buf, plain) {
		t.Fatal("encryption changed nothing")
	}
	r := newReader20(bytes.NewReader(buf), []byte("secret"))
	got, err := io.ReadAll(iotestOneByte{r})
	if err != nil || !bytes.Equal(got, plain) {
		t.Errorf("decrypt = %q, %v", got, err)
	}
}

// iotestOneByte reads one byte at a time.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func TestCipher15And13Stream(t *testing.T) {
	// The stream ciphers must give the same output whatever the read sizes.
	data := bytes.Repeat([]byte("rar legacy cipher "), 50)
	whole := func(mk func(io.Reader) io.Reader, rd func(io.Reader) io.Reader) []byte {
		b, _ := io.ReadAll(rd(mk(bytes.NewReader(data))))
		return b
	}
	mk15 := func(src io.Reader) io.Reader {
		d := &reader15{src: src}
		d.c.setPassword([]byte("pw"))
		return d
	}
	mk13 := func(src io.Reader) io.Reader {
		d := &reader13{src: src}
		d.c.setPassword([]byte("pw"))
		return d
	}
	id := func(r io.Reader) io.Reader { return r }
	one := func(r io.Reader) io.Reader { return iotestOneByte{r} }
	for name, mk := range map[string]func(io.Reader) io.Reader{"1.5": mk15, "1.3": mk13} {
		a, b := whole(mk, id), whole(mk, one)
		if !bytes.Equal(a, b) || bytes.Equal(a, data) {
			t.Errorf("%s: chunking changes the output or nothing is encrypted", name)
		}
	}
}

func TestPlanSolid(t *testing.T) {
	mk := func(a algo, solid bool) *fileInfo {
		return &fileInfo{algo: a, solid: solid, e: archive.Entry{Type: archive.TypeFile}}
	}
	dir := &fileInfo{e: archive.Entry{Type: archive.TypeDir}}
	files := []*fileInfo{
		mk(algoRAR5, false),  // 0: start of the solid stream
		mk(algoRAR5, true),   // 1
		mk(algoStored, true), // 2: stored, not part of the stream
		dir,                  // 3
		mk(algoRAR5, true),   // 4: wanted
		mk(algoRAR5, true),   // 5: after the last wanted one
		mk(algoRAR5, false),  // 6: new stream, wanted
	}
	wanted := []bool{false, false, false, false, true, false, true}
	decode, drain := planSolid(files, wanted)
	wantDecode := []bool{true, true, false, false, true, false, true}
	wantDrain := []bool{true, true, false, false, false, false, false}
	for i := range files {
		if decode[i] != wantDecode[i] || drain[i] != wantDrain[i] {
			t.Errorf("entry %d: decode %v drain %v, want %v %v", i, decode[i], drain[i], wantDecode[i], wantDrain[i])
		}
	}
	// Wanting entry 5 too: entry 4 must be drained after its callback.
	wanted[5] = true
	_, drain = planSolid(files, wanted)
	if !drain[4] {
		t.Errorf("entry 4 not drained before the wanted solid entry 5")
	}
}

func TestExtractCancel(t *testing.T) {
	r, err := Open(corpusFile(t, "files/junrar/com__github__junrar__rar5unpack__m3-plain-32m.rar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var readErr error
	err = r.Extract(ctx, nil, func(e *archive.Entry, rd io.Reader) error {
		buf := make([]byte, 100)
		if _, err := io.ReadFull(rd, buf); err != nil {
			return err
		}
		cancel()
		_, readErr = io.Copy(io.Discard, rd)
		return nil
	})
	if !errors.Is(readErr, context.Canceled) {
		t.Errorf("read after cancel: %v", readErr)
	}
	if !errors.Is(err, context.Canceled) && err != nil {
		t.Errorf("extract: %v", err)
	}
}

func TestPasswordAskedOnce(t *testing.T) {
	for _, tc := range []struct{ path, pw string }{
		{"files/sharpcompress/Archives__Rar.encrypted_filesAndHeader.rar", "test"},
		{"files/junrar/com__github__junrar__rar5unpack__m3-enc-hp.rar", "junrar"},
		{"files/sharpcompress/Archives__Rar.EncryptedParts.part01.rar", "test"},
	} {
		calls := 0
		r, err := Open(corpusFile(t, tc.path), pwOpts(tc.pw, &calls))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if !r.Info().EncryptedHeaders {
			t.Errorf("%s: encrypted headers not reported", tc.path)
		}
		if _, err := extractErrors(t, r); err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		r.Close()
		if calls != 1 {
			t.Errorf("%s: password asked %d times", tc.path, calls)
		}
	}
}
