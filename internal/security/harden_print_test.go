package security

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// commentFixture is a RAR5 archive of the corpus with a stored
// (uncompressed) archive comment, "This is another comment\n\x00", and an
// entry exe/test.exe.
const commentFixture = "files/sharpcompress/Archives__Rar5.comment.rar"

// terminalAttack is as long as the fixture's comment text: it clears the
// screen, sets the window title and moves the cursor.
const terminalAttack = "\x1b[2J\x1b]0;PWNED\x07\x1b[1;1Hxyz"

// hostileRAR5 writes the comment fixture with the comment replaced by
// terminalAttack and exe/test.exe renamed to a name holding an invalid
// UTF-8 byte and the C1 control NEL (U+0085), under dir/name.
func hostileRAR5(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.CorpusRoot(t), commentFixture))
	if err != nil {
		t.Fatal(err)
	}
	const old = "This is another comment"
	if len(terminalAttack) != len(old) {
		t.Fatalf("attack is %d bytes, comment %d", len(terminalAttack), len(old))
	}
	// The comment's data CRC32 sits before the service header's
	// compression info, host OS and name ("\x80\x00\x01\x03CMT").
	i := strings.Index(string(data), "\x80\x00\x01\x03CMT"+old)
	if i < 4 {
		t.Fatal("fixture layout changed: comment service header not found")
	}
	body := []byte(terminalAttack + "\n\x00")
	binary.LittleEndian.PutUint32(data[i-4:], crc32.ChecksumIEEE(body))
	// The name occurs twice: in the file header and in the quick-open
	// record's copy of it.
	data = []byte(strings.ReplaceAll(string(data), "exe/test.exe", "exe/\xfft\u0085.exe"))
	data = patchRAR5(t, data, [][2]string{{old, terminalAttack}})
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noControls fails t if out holds an escape or other C0 control besides
// newline and tab, or a C1 control.
func noControls(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Errorf("%s prints control U+%04X at byte %d:\n%q", what, r, i, out)
			return
		}
	}
}

// TestTerminalInjection lists and tests archives whose comment, entry
// names and own file names carry terminal escape sequences: nothing from
// the archive or its name reaches the terminal raw, in the table, -slt,
// t, and in error messages.
func TestTerminalInjection(t *testing.T) {
	dir := t.TempDir()
	evilName := "ev\x1b]0;x\x07il\x9b.rar" // OSC title and a raw C1 CSI byte
	hostileRAR5(t, dir, evilName)
	if err := os.WriteFile(filepath.Join(dir, "no\x1b[2Jt.rar"), []byte("not an archive at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"l", evilName},
		{"l", "-slt", evilName},
		{"t", evilName},
		{"l", "no\x1b[2Jt.rar"},
		{"t", "no\x1b[2Jt.rar"},
		{"x", "-so", "no\x1b[2Jt.rar"},
		{"l", "*.rar"},
		{"t", "*.rar"},
	} {
		r := runGarc(t, dir, args...)
		noControls(t, strings.Join(args, " ")+" stdout", r.stdout)
		noControls(t, strings.Join(args, " ")+" stderr", r.stderr)
	}
	r := runGarc(t, dir, "l", evilName)
	if !strings.Contains(r.stdout, `\x1b[2J\x1b]0;PWNED\a\x1b[1;1Hxyz`) {
		t.Errorf("the comment is not shown escaped:\n%s", r.stdout)
	}
}

// TestJSONNames lists names with C1 controls and bytes that are not
// UTF-8: the JSON escapes the controls and writes invalid bytes as lone
// surrogate escapes, so the listing neither reaches the terminal raw nor
// loses the name.
func TestJSONNames(t *testing.T) {
	dir := t.TempDir()
	hostileRAR5(t, dir, "a.rar")
	r := runGarc(t, dir, "l", "--format=json", "a.rar")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	noControls(t, "json", r.stdout)
	if !strings.Contains(r.stdout, `"path":"exe/\udcfft\u0085.exe"`) {
		t.Errorf("the name is not in the lossless escaped form:\n%s", r.stdout)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Errorf("not JSON: %v", err)
	}
}
