package extract

import (
	"bytes"
	"strings"
	"testing"
)

// TestPropagateZone: the decision about an archive's Mark of the Web,
// on every platform. ZoneId 3 and 4 are copied byte for byte, lower
// zones give no mark, and a stream that cannot be parsed is copied as
// 7-Zip copies it; an overlong one becomes a plain Internet mark.
func TestPropagateZone(t *testing.T) {
	const internet = "[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://example.com/\r\nHostUrl=https://example.com/a.7z\r\n"
	cases := []struct {
		name, stream string
		copied       bool
	}{
		{"none", "", false},
		{"Internet", internet, true},
		{"restricted", "[ZoneTransfer]\r\nZoneId=4\r\n", true},
		{"trusted", "[ZoneTransfer]\r\nZoneId=2\r\n", false},
		{"intranet", "[ZoneTransfer]\r\nZoneId=1\r\n", false},
		{"local machine", "[ZoneTransfer]\r\nZoneId=0\r\n", false},
		{"LF, spaces, any case, BOM", "\xef\xbb\xbf[zonetransfer]\n  zoneid = 3 \n", true},
		{"BOM, local", "\xef\xbb\xbf[ZoneTransfer]\nZoneId=0\n", false},
		{"no section", "ZoneId=3\r\n", true},
		{"ZoneId in another section only", "[Other]\r\nZoneId=0\r\n", true},
		{"another section first", "[Other]\r\nZoneId=0\r\n[ZoneTransfer]\r\nZoneId=1\r\n", false},
		{"not a number", "[ZoneTransfer]\r\nZoneId=three\r\n", true},
		{"empty value", "[ZoneTransfer]\r\nZoneId=\r\n", true},
		{"garbage", "\x00\x01garbage", true},
		{"UTF-16", "\xff\xfe[\x00Z\x00", true},
	}
	for _, c := range cases {
		got := propagateZone([]byte(c.stream))
		want := []byte(nil)
		if c.copied {
			want = []byte(c.stream)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: propagateZone(%q) = %q, want %q", c.name, c.stream, got, want)
		}
	}
	long := []byte("[ZoneTransfer]\r\nZoneId=0\r\n" + strings.Repeat("x", maxZoneIdentifier))
	if got := propagateZone(long); !bytes.Equal(got, internetZone) {
		t.Errorf("overlong stream gives %q, want %q", got, internetZone)
	}
}
