package cli

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/selection"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/wildcard"
)

func TestWildMatch(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"*", "anything", true},
		{"*", "", true},
		{"*.txt", "a.txt", true},
		{"*.txt", "a.txt.bak", false},
		{"*.*", "noext", false},
		{"*.*", "a.b", true},
		{"?", "a", true},
		{"?", "ab", false},
		{"a?c", "abc", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"ü*", "über", true},
		{"?ber", "über", true},
		{"A.txt", "a.txt", false},
		{"**", "x", true},
	}
	for _, tc := range tests {
		if got := wildcard.Match(tc.pat, tc.name); got != tc.want {
			t.Errorf("wildcard.Match(%q, %q) = %v", tc.pat, tc.name, got)
		}
	}
}

func TestExitCodeFor(t *testing.T) {
	both := fmt.Errorf("x: %w", errors.Join(archive.ErrWrongPassword, archive.ErrChecksum))
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("plain"), ExitFatal},
		{fmt.Errorf("a: %w", archive.ErrFormat), ExitFatal},
		{fmt.Errorf("a: %w", archive.ErrNotArchive), ExitFatal},
		{&archive.UnsupportedError{What: "x"}, ExitFatal},
		{&archive.Error{Archive: "a", Entry: "e", Offset: -1, Err: archive.ErrChecksum}, ExitChecksum},
		{&archive.LimitError{What: "dict", Need: 2, Limit: 1}, ExitLimit},
		{fmt.Errorf("w: %w", extract.ErrCreate), ExitCreate},
		{fmt.Errorf("w: %w", extract.ErrRefused), ExitWarning},
		{fmt.Errorf("w: %w", extract.ErrSkipped), ExitWarning},
		{fmt.Errorf("a: %w", selection.ErrNoMatch), ExitNoMatch},
		{archive.ErrPasswordRequired, ExitPassword},
		{both, ExitPassword},
		{usagef("bad"), ExitUsage},
		{errInterrupted, ExitInterrupted},
		{&reportedError{archive.ErrChecksum}, ExitChecksum},
	}
	for _, tc := range tests {
		if got := exitCodeFor(tc.err); got != tc.want {
			t.Errorf("exitCodeFor(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if worse(ExitChecksum, ExitWarning) != ExitChecksum || worse(ExitWarning, ExitPassword) != ExitPassword ||
		worse(ExitOK, ExitNoMatch) != ExitNoMatch || worse(ExitInterrupted, ExitUsage) != ExitInterrupted {
		t.Error("worse does not follow the documented order")
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"", 0, true}, {"4096", 4096, true}, {"64k", 64 << 10, true}, {"512m", 512 << 20, true},
		{"4g", 4 << 30, true}, {"8GiB", 8 << 30, true}, {"2MB", 2 << 20, true}, {"1t", 1 << 40, true},
		{"x", 0, false}, {"-1", 0, false}, {"99999999999t", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestParseSolid(t *testing.T) {
	tests := []struct {
		in   string
		want sevenzip.SolidOptions
		ok   bool
	}{
		{"on", sevenzip.SolidOptions{}, true},
		{"off", sevenzip.SolidOptions{Off: true}, true},
		{"4g", sevenzip.SolidOptions{BlockSize: 4 << 30}, true},
		{"100f", sevenzip.SolidOptions{FilesPerBlock: 100}, true},
		{"e", sevenzip.SolidOptions{ByExtension: true}, true},
		{"e,64m", sevenzip.SolidOptions{ByExtension: true, BlockSize: 64 << 20}, true},
		{"0f", sevenzip.SolidOptions{}, false},
		{"bogus", sevenzip.SolidOptions{}, false},
	}
	for _, tc := range tests {
		got, err := parseSolid(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("parseSolid(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestDiagnostic(t *testing.T) {
	cause := errors.New("checksum mismatch")
	tests := []struct {
		arc, entry string
		err        error
		want       string
	}{
		{"a.7z", "f.txt", cause, "a.7z: f.txt: checksum mismatch"},
		{"a.7z", "", cause, "a.7z: checksum mismatch"},
		{"a.7z", "f.txt", &archive.Error{Archive: "a.7z", Entry: "f.txt", Offset: -1, Err: cause}, "a.7z: f.txt: checksum mismatch"},
		{"a.7z", "f.txt", fmt.Errorf("f.txt: %w", cause), "a.7z: f.txt: checksum mismatch"},
	}
	for _, tc := range tests {
		if got := diagnostic(tc.arc, tc.entry, tc.err); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

type fakeReader struct{ entries []*archive.Entry }

func (f *fakeReader) Info() *archive.Info       { return &archive.Info{} }
func (f *fakeReader) Entries() []*archive.Entry { return f.entries }
func (f *fakeReader) Close() error              { return nil }
func (f *fakeReader) Extract(context.Context, func(*archive.Entry) bool, archive.ExtractFunc) error {
	return nil
}

func TestWithLinkTargets(t *testing.T) {
	es := []*archive.Entry{
		{Name: "a/orig.bin"},
		{Name: "b/copy.bin", Type: archive.TypeCopy, LinkTarget: "a/orig.bin"},
		{Name: "c/hard.bin", Type: archive.TypeHardlink, LinkTarget: "b/copy.bin"},
		{Name: "d/other.txt"},
	}
	r := &fakeReader{es}
	sel, _ := selection.New([]string{"c"}, nil, false)
	want := withLinkTargets(r, sel)
	var got []string
	for _, e := range es {
		if want(e) {
			got = append(got, e.Name)
		}
	}
	if g := strings.Join(got, " "); g != "a/orig.bin b/copy.bin c/hard.bin" {
		t.Errorf("got %q", g)
	}
	all, _ := selection.New(nil, nil, false)
	if w := withLinkTargets(r, all); !w(es[3]) {
		t.Error("unfiltered selection lost an entry")
	}
}
