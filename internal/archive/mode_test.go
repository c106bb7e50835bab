package archive

import (
	"io/fs"
	"testing"
	"time"
)

func TestSetMode(t *testing.T) {
	cases := []struct {
		name string
		e    Entry
		want fs.FileMode
		unix bool
	}{
		{"unix file", Entry{HostOS: HostUnix, Attributes: 0o100644, Type: TypeFile}, 0o644, true},
		{"unix setuid", Entry{HostOS: HostUnix, Attributes: 0o104755, Type: TypeFile}, 0o755 | fs.ModeSetuid, true},
		{"unix dir", Entry{HostOS: HostUnix, Attributes: 0o040750, Type: TypeDir}, 0o750 | fs.ModeDir, true},
		{"unix link", Entry{HostOS: HostUnix, Attributes: 0o120777, Type: TypeSymlink}, 0o777 | fs.ModeSymlink, true},
		{"unix fifo kept as its type", Entry{HostOS: HostUnix, Attributes: 0o010600, Type: TypeFile}, 0o600 | fs.ModeNamedPipe, true},
		{"unix dir bits on a file entry", Entry{HostOS: HostUnix, Attributes: 0o040755, Type: TypeFile}, 0o755, true},
		{"windows file", Entry{HostOS: HostWindows, Attributes: AttrArchive, Type: TypeFile}, 0o644, false},
		{"windows read-only", Entry{HostOS: HostWindows, Attributes: AttrReadOnly, Type: TypeFile}, 0o444, false},
		{"windows dir", Entry{HostOS: HostWindows, Attributes: AttrDirectory, Type: TypeDir}, 0o755 | fs.ModeDir, false},
		{"windows link", Entry{HostOS: HostWindows, Type: TypeSymlink}, 0o644 | fs.ModeSymlink, false},
	}
	for _, c := range cases {
		e := c.e
		e.SetMode()
		if e.Mode != c.want || e.HasUnixMode != c.unix {
			t.Errorf("%s: mode %v (unix %v), want %v (unix %v)", c.name, e.Mode, e.HasUnixMode, c.want, c.unix)
		}
	}
}

func TestFromFiletime(t *testing.T) {
	if !FromFiletime(0).IsZero() {
		t.Error("0 is not the zero time")
	}
	want := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	ft := uint64(want.Unix()+11644473600)*1e7 + uint64(want.Nanosecond()/100)
	if got := FromFiletime(ft); !got.Equal(want) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := FromFiletime(1e7); got.Year() != 1601 {
		t.Errorf("a 1601 time gives %v", got)
	}
}
