package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestLinkTargetsLeftOut lists a solid 7z archive whose symbolic links
// follow 3 MiB of data in their block (issue 24, point 14): the listing
// decodes at most 2 MiB to show link targets, so it leaves theirs out,
// and says so: "link_target_omitted" on each and "link_targets_omitted"
// in the JSON, "-> ?" in the table, a note on stderr (exit 0); with
// --link-targets=all every target is there and there is no note.
func TestLinkTargetsLeftOut(t *testing.T) {
	testenv.SevenZip(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/big": strings.Repeat("0123456789abcdef", 3<<16)})
	os.Mkdir(filepath.Join(dir, "src/links"), 0o755)
	const links = 20
	for i := 1; i <= links; i++ {
		if err := os.Symlink(fmt.Sprintf("../target%d", i), filepath.Join(dir, fmt.Sprintf("src/links/l%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	sevenZip(t, dir, "a", "-bd", "-snl", "-ms=on", "-mx1", "l.7z", "src")

	type listed struct {
		Archive struct {
			Omitted int `json:"link_targets_omitted"`
		} `json:"archive"`
		Entries []struct {
			Path, Type string
			Target     *string `json:"link_target"`
			Omitted    bool    `json:"link_target_omitted"`
		} `json:"entries"`
	}
	list := func(args ...string) (listed, result) {
		r := garc(t, dir, "", append([]string{"l", "--format=json"}, args...)...)
		r.expect(t, ExitOK, fmt.Sprint("l --format=json ", args))
		var doc listed
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, r.stdout)
		}
		return doc, r
	}

	doc, r := list("l.7z")
	omitted, shown := 0, 0
	for _, e := range doc.Entries {
		switch {
		case e.Type != "symlink":
		case e.Omitted && e.Target == nil:
			omitted++
		case !e.Omitted && e.Target != nil:
			shown++
		default:
			t.Errorf("%s: target %v, omitted %v", e.Path, e.Target, e.Omitted)
		}
	}
	if omitted == 0 || omitted+shown != links || doc.Archive.Omitted != omitted {
		t.Errorf("%d links omitted, %d shown, the archive says %d omitted", omitted, shown, doc.Archive.Omitted)
	}
	note := fmt.Sprintf("garc: l.7z: %d symbolic link targets not shown (\"link_target_omitted\": true): ", omitted)
	if !strings.HasPrefix(r.stderr, note) || !strings.Contains(r.stderr, "--link-targets=all decodes them\n") {
		t.Errorf("stderr %q, want the note %q", r.stderr, note)
	}
	table := garc(t, dir, "", "l", "l.7z")
	table.expect(t, ExitOK, "l")
	if n := strings.Count(table.stdout, " -> ?\n"); n != omitted || !strings.Contains(table.stderr, `not shown ("-> ?")`) {
		t.Errorf("the table marks %d links \"-> ?\", want %d; stderr %q", n, omitted, table.stderr)
	}

	doc, r = list("--link-targets=all", "l.7z")
	for _, e := range doc.Entries {
		if e.Type != "symlink" {
			continue
		}
		want := "../target" + strings.TrimPrefix(e.Path, "src/links/l")
		if e.Omitted || e.Target == nil || *e.Target != want {
			t.Errorf("--link-targets=all: %s: target %v, omitted %v, want %s", e.Path, e.Target, e.Omitted, want)
		}
	}
	if doc.Archive.Omitted != 0 || r.stderr != "" {
		t.Errorf("--link-targets=all: the archive says %d omitted; stderr %q", doc.Archive.Omitted, r.stderr)
	}
	table = garc(t, dir, "", "l", "--link-targets=all", "l.7z")
	table.expect(t, ExitOK, "l --link-targets=all")
	if !strings.Contains(table.stdout, "src/links/l7 -> ../target7\n") || strings.Contains(table.stdout, " -> ?") {
		t.Errorf("l --link-targets=all:\n%s", table.stdout)
	}
	garc(t, dir, "", "l", "--link-targets=some", "l.7z").expect(t, ExitUsage, "--link-targets=some")
}
