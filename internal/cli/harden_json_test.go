package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/listing"
)

// TestJSONLines lists several archives, one of them broken, with
// --format=json: one JSON object per line and archive, each with the
// schema version; the broken one carries an "error" field (and its
// diagnostic goes to stderr); attributes come decoded too.
func TestJSONLines(t *testing.T) {
	dir := t.TempDir()
	makeArchive(t, dir, "a.7z")
	makeArchive(t, dir, "c.7z", "-mx=1")
	if err := os.WriteFile(filepath.Join(dir, "b.7z"), []byte("7z\xbc\xaf\x27\x1c broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := garc(t, dir, "", "l", "--format=json", "*.7z")
	r.expect(t, ExitFatal, "l --format=json *.7z with a broken archive")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %d:\n%s", len(lines), r.stdout)
	}
	type entry struct {
		Path              string   `json:"path"`
		Mode              string   `json:"mode"`
		WindowsAttributes []string `json:"windows_attributes"`
	}
	for i, want := range []string{"a.7z", "b.7z", "c.7z"} {
		var doc struct {
			SchemaVersion *int `json:"schema_version"`
			Archive       struct {
				Path string `json:"path"`
			} `json:"archive"`
			Entries []entry `json:"entries"`
			Error   string  `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &doc); err != nil {
			t.Fatalf("line %d is not one JSON object: %v\n%s", i+1, err, lines[i])
		}
		if doc.SchemaVersion == nil || *doc.SchemaVersion != listing.SchemaVersion || doc.Archive.Path != want {
			t.Errorf("line %d: schema %v, path %q; want %d, %q", i+1, doc.SchemaVersion, doc.Archive.Path, listing.SchemaVersion, want)
		}
		if (want == "b.7z") != (doc.Error != "") {
			t.Errorf("line %d: error %q", i+1, doc.Error)
		}
		for _, e := range doc.Entries {
			if e.Path == "src/docs" && (!strings.HasPrefix(e.Mode, "drwx") || strings.Join(e.WindowsAttributes, ",") != "directory") {
				t.Errorf("%s: src/docs decoded as %q %q", want, e.Mode, e.WindowsAttributes)
			}
		}
	}
	if !strings.Contains(r.stderr, "b.7z") {
		t.Errorf("no diagnostic for b.7z on stderr:\n%s", r.stderr)
	}
}
