package progress

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/printable"
)

// TestProgressNameEscaped: the entry name the display draws is escaped as
// every listing escapes archive text (printable.String): no control or
// format character (ESC, C1 CSI, U+202E, zero-width characters, U+FEFF,
// U+2028) of a hostile name reaches the terminal, and the name is still
// recognisable (issue 23).
func TestProgressNameEscaped(t *testing.T) {
	name := "dir/evil\x1b]0;t\a\u009b2J\u202etxt.exe\u200b\ufeff\u2028\xff"
	for _, ascii := range []bool{false, true} {
		clock := time.Unix(0, 0)
		p := testDisplay(io.Discard, nil, &clock, ascii, false, 1<<20)
		p.done, p.name = 1<<19, name
		got := p.render(200, 7*time.Second)
		for _, r := range got {
			if printable.Unsafe(r) {
				t.Fatalf("ascii %v: %U drawn: %q", ascii, r, got)
			}
		}
		if want := printable.String(name); !strings.HasSuffix(got, want) {
			t.Errorf("ascii %v: %q does not end with %q", ascii, got, want)
		}
	}
}
