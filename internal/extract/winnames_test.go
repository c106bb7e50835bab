package extract

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// windowsNameCases are names Windows cannot hold as they are, with what
// SanitizeWindowsName makes of them: the reserved device names with any
// extension and in any case, trailing dots and spaces, ':' (an alternate
// data stream: WinRAR's CVE-2025-8088 path), the other forbidden
// characters and the control characters.
var windowsNameCases = map[string]string{
	"CONIN$":             "_CONIN$",
	"conout$.log":        "_conout$.log",
	"Clock$":             "_Clock$",
	"COM¹":               "_COM¹",
	"com².txt":           "_com².txt",
	"LPT³.tar.gz":        "_LPT³.tar.gz",
	"lpt¹ .txt":          "_lpt¹ .txt",
	"COM⁴":               "COM⁴", // no device behind ⁴
	"COM0":               "COM0",
	"CONIN":              "CONIN",
	"CONOUT$$":           "CONOUT$$",
	"nul.txt":            "_nul.txt",
	"Prn.Tar.Gz":         "_Prn.Tar.Gz",
	"aux .c":             "_aux .c",
	"dots...":            "dots___",
	"space ":             "space_",
	"file.txt:stream":    "file.txt_stream",
	"x:..\\..\\evil.exe": "x_.._.._evil.exe",
	"a<b>c:d\"e|f?g*h":   "a_b_c_d_e_f_g_h",
	"ctl\x01\x1f.txt":    "ctl__.txt",
}

// TestSanitizeWindowsNameDevices checks the mapping on every platform.
func TestSanitizeWindowsNameDevices(t *testing.T) {
	for in, want := range windowsNameCases {
		if got := SanitizeWindowsName(in); got != want {
			t.Errorf("SanitizeWindowsName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWindowsNamesOnDisk extracts each name as a file and as a
// directory holding one, with the Windows mapping on (on Windows, and
// under Wine, as the system does): the files are where the mapping says,
// with their contents. A path of more than 260 characters is written too
// (Go hands Windows the \\?\ form).
func TestWindowsNamesOnDisk(t *testing.T) {
	sanitizeNames = true
	t.Cleanup(func() { sanitizeNames = runtime.GOOS == "windows" })
	f := newFixture(t, Options{})
	for in := range windowsNameCases {
		if err := f.write(fileEntry("f/"+in), in); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if err := f.write(fileEntry("d/"+in+"/inner"), in); err != nil {
			t.Fatalf("%q/inner: %v", in, err)
		}
	}
	long := strings.Repeat("d123456789/", 25) + "file.txt" // 283 characters
	if err := f.write(fileEntry(long), "long"); err != nil {
		t.Fatalf("long path: %v", err)
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := f.read(long); got != "long" {
		t.Errorf("long path holds %q", got)
	}
	var files, dirs []string
	for in, out := range windowsNameCases {
		if got := f.read("f/" + out); got != in {
			t.Errorf("f/%s holds %q, want %q", out, got, in)
		}
		if got := f.read("d/" + out + "/inner"); got != in {
			t.Errorf("d/%s/inner holds %q, want %q", out, got, in)
		}
		files = append(files, out)
		dirs = append(dirs, out)
	}
	// Nothing else was made: every name on disk is a mapped one.
	for sub, want := range map[string][]string{"f": files, "d": dirs} {
		ents, err := os.ReadDir(filepath.Join(f.dest, sub))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s holds %q, want %q", sub, got, want)
		}
	}
}
