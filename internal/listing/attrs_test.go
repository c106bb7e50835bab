package listing

import (
	"io/fs"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestModeFileTypes checks the type letter of the unix mode the listings
// show (-slt Mode and Attributes, JSON "mode"), as 7-Zip shows it: from
// the entry's Mode (tar, ZIP and RAR readers keep the type there) or,
// for a 7z entry whose Mode has the permissions only, from the unix mode
// in 7-Zip's attributes (issue 23).
func TestModeFileTypes(t *testing.T) {
	const ext = archive.AttrUnixExtension | archive.AttrArchive
	for _, c := range []struct {
		e    archive.Entry
		want string
	}{
		{archive.Entry{Mode: 0o644}, "-rw-r--r--"},
		{archive.Entry{Type: archive.TypeDir, Mode: fs.ModeDir | 0o755}, "drwxr-xr-x"},
		{archive.Entry{Type: archive.TypeSymlink, Mode: fs.ModeSymlink | 0o777}, "lrwxrwxrwx"},
		{archive.Entry{Mode: fs.ModeNamedPipe | 0o644}, "prw-r--r--"},
		{archive.Entry{Mode: fs.ModeDevice | fs.ModeCharDevice | 0o600}, "crw-------"},
		{archive.Entry{Mode: fs.ModeDevice | 0o640}, "brw-r-----"},
		{archive.Entry{Mode: fs.ModeSocket | 0o755}, "srwxr-xr-x"},
		{archive.Entry{Mode: 0o644, Attributes: 0o010644<<16 | ext}, "prw-r--r--"},
		{archive.Entry{Mode: 0o600, Attributes: 0o020600<<16 | ext}, "crw-------"},
		{archive.Entry{Mode: 0o640, Attributes: 0o060640<<16 | ext}, "brw-r-----"},
		{archive.Entry{Mode: 0o755, Attributes: 0o140755<<16 | ext}, "srwxr-xr-x"},
		{archive.Entry{Mode: 0o644, Attributes: 0o100644<<16 | ext}, "-rw-r--r--"},
		// A tar's raw mode (0o100644 has bit 15 set) is not 7-Zip's
		// extension.
		{archive.Entry{Mode: 0o644, Attributes: 0o100644}, "-rw-r--r--"},
	} {
		if got := modeString(&c.e); got != c.want {
			t.Errorf("mode %v, attributes %#x: %q, want %q", c.e.Mode, c.e.Attributes, got, c.want)
		}
	}
}
