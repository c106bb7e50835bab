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
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/wildcard"
)

func TestNormalizeArgs(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"x a.7z", "x a.7z"},
		{"x -ofoo a.7z", "x --output=foo a.7z"},
		{"-ofoo x a.7z", "x --output=foo a.7z"},
		{"x a.7z -o foo", "x -o foo a.7z"},
		{"-o foo x a.7z", "x -o foo a.7z"},
		{"x -pSECRET a.7z", "x --password=SECRET a.7z"},
		{"x -p argv.go", "x --ask-password argv.go"},
		{"x a.7z -o", "x a.7z -o"},
		{"__complete x -o", "__complete x -o"},
		{"x a.7z --output", "x a.7z --output"},
		{"-p x argv.go", "x --ask-password argv.go"},
		{"a -p new.7z f", "a --ask-password new.7z f"},
		{"x argv.go -p out/", "x --ask-password argv.go out/"},
		{"x argv.go -p *.txt", "x --ask-password argv.go *.txt"},
		{"x -p SECRET a.7z", "x --unsupported-switch=-p PASSWORD (with a space) (hidden) a.7z"},
		{"-p SECRET x a.7z", "(hidden) --unsupported-switch=-p PASSWORD (with a space) x a.7z"},
		{"x a.7z -p SECRET", "x --unsupported-switch=-p PASSWORD (with a space) a.7z (hidden)"},
		{"a -p SECRET new.7z f", "a --unsupported-switch=-p PASSWORD (with a space) (hidden) new.7z f"},
		{"a -hp SECRET new.7z f", "a --unsupported-switch=-p PASSWORD (with a space) (hidden) new.7z f"},
		{"a -hp new.7z f", "a --ask-password --encrypt-headers new.7z f"},
		{"x -y -r a.7z *.txt", "x --yes --recursive a.7z *.txt"},
		{"x -r- a.7z", "x --recursive=false a.7z"},
		{"x -aoa a.7z", "x --overwrite=all a.7z"},
		{"x -aos a.7z", "x --overwrite=skip a.7z"},
		{"x -aou a.7z", "x --overwrite=rename a.7z"},
		{"x -aot a.7z", "x --overwrite=rename a.7z"},
		{"x -o+ a.rar", "x --overwrite=all a.rar"},
		{"x -o- a.rar", "x --overwrite=skip a.rar"},
		{"x -kb a.rar", "x --keep-broken a.rar"},
		{"l -slt a.7z", "l --format=slt a.7z"},
		{"x -bd a.7z", "x --progress=never a.7z"},
		{"a -mx9 a.7z f", "a --level=9 a.7z f"},
		{"a -mx=3 a.7z f", "a --level=3 a.7z f"},
		{"a -mx a.7z f", "a --level=9 a.7z f"},
		{"a -m0=lzma2 a.7z f", "a --method=lzma2 a.7z f"},
		{"a -m0=BCJ -m1=LZMA2:d=64m a.7z f", "a --filter=BCJ --method=LZMA2:d=64m a.7z f"},
		{"a -m0=Delta:4 a.7z f", "a --filter=Delta:4 a.7z f"},
		{"a -mhe=on a.7z f", "a --encrypt-headers=true a.7z f"},
		{"a -mhe a.7z f", "a --encrypt-headers a.7z f"},
		{"a -mhe=off a.7z f", "a --encrypt-headers=false a.7z f"},
		{"a -mhc=off a.7z f", "a --header-compression=false a.7z f"},
		{"a -mtc=on -mta -mtm=off a.7z f", "a --store-ctime=true --store-atime=true --store-mtime=false a.7z f"},
		{"a -mfb=64 -mmf=bt4 -mmem=256m -m0=LZMA2:d=64m a.7z f", "a --method-param=fb=64 --method-param=mf=bt4 --method-param=mem=256m --method=LZMA2:d=64m a.7z f"},
		{"a -ms=on a.7z f", "a --solid=on a.7z f"},
		{"a -ms=off a.7z f", "a --solid=off a.7z f"},
		{"a -ms=4g a.7z f", "a --solid=4g a.7z f"},
		{"a -mmt4 a.7z f", "a --threads=4 a.7z f"},
		{"a -mmt=2 a.7z f", "a --threads=2 a.7z f"},
		{"a -mmt=off a.7z f", "a --threads=1 a.7z f"},
		{"a -mmt a.7z f", "a --threads=0 a.7z f"},
		{"a -md=64m a.7z f", "a --dict=64m a.7z f"},
		{"a -mf=off a.7z f", "a --filter=off a.7z f"},
		{"a -v100m a.7z f", "a --volume-size=100m a.7z f"},
		{"a -snl a.7z f", "a --symlinks=store a.7z f"},
		{"a -si a.7z", "a --stdin a.7z"},
		{"a -sidata.bin a.7z", "a --stdin-name=data.bin a.7z"},
		{"a -t7z a.7z f", "a --type=7z a.7z f"},
		{"a -hpSECRET a.7z f", "a --password=SECRET --encrypt-headers a.7z f"},
		{"x -x!*.png a.7z", "x --exclude=*.png a.7z"},
		{"x -xr!*.png a.7z", "x --exclude=*.png a.7z"},
		{"x -x@list.txt a.7z", "x --exclude=@list.txt a.7z"},
		{"x -i!*.txt a.7z", "x --include=*.txt a.7z"},
		{"x -ir!*.txt a.7z", "x --include=**/*.txt a.7z"},
		{"x -i@list a.7z", "x --include=@list a.7z"},
		{"x a.7z -- -odd-name", "x a.7z -- -odd-name"},
		{"x -- -a.7z -y", "x -- -a.7z -y"},
		{"x --password secret a.7z", "x --password secret a.7z"},
		{"--password secret x a.7z", "x --password secret a.7z"},
		{"x --overwrite=all a.7z", "x --overwrite=all a.7z"},
		{"x -q a.7z", "x -q a.7z"},
		{"x -inul a.rar", "x -q a.rar"},
		{"x -ep a.rar", "x --flat a.rar"},
		{"x -snl a.7z", "x --symlinks=store a.7z"},
		{"x -unknown a.7z", "x -unknown a.7z"},
		{"x -so a.7z", "x --stdout a.7z"},
		{"x -SO a.7z", "x --stdout a.7z"},
		{"x -bb a.7z", "x a.7z"},
		{"x -bb0 a.7z", "x a.7z"},
		{"x -bb3 a.7z", "x --progress=list a.7z"},
		{"x -bb1 -bd a.7z", "x --progress=list a.7z"},
		{"x -bd --verbose a.7z", "x --progress=list a.7z"},
		{"l -ba a.7z", "lb --rows a.7z"},
		{"-ba l a.7z", "lb --rows a.7z"},
		{"lb a.rar", "lb a.rar"},
		{"vb a.rar", "lb a.rar"},
		{"v a.rar", "l a.rar"},
		{"vt a.rar", "l --format=slt a.rar"},
		{"lt -y a.rar", "l --format=slt --yes a.rar"},
		{"p a.rar f.txt", "x --stdout a.rar f.txt"},
		{"x -x*.log -n*.txt -n@list a.rar", "x --exclude=*.log --include=*.txt --include=@list a.rar"},
		{"x -xreadme a.rar", "x --exclude=readme a.rar"},
		{"x -ad a.rar", "x --output=* a.rar"},
		{"x -ad a.rar out/", "x --output=out/* a.rar"},
		{"x -ad -oout a.rar", "x --output=out/* a.rar"},
		{"x -ad1 a.rar -o out", "x -o out/* a.rar"},
		{"x -ad2 a.rar", "x --unsupported-switch=-ad2 a.rar"},
		{"x -c- -ierr a.rar", "x a.rar"},
		{"x -bso0 -bse1 -bsp2 a.7z", "x a.7z"},
		{"x -bsp0 a.7z", "x --progress=never a.7z"},
		{"x -bt a.7z", "x a.7z"},
		{"x -sccUTF-8 a.7z", "x a.7z"},
		{"x -sccWIN a.7z", "x a.7z"},
		{"x -scsUTF-8 a.7z", "x a.7z"},
		{"x -scsWIN a.7z", "x --unsupported-switch=-scswin a.7z"},
		{"x -snh -sni -ssc a.7z", "x a.7z"},
		{"x -ssc- a.7z", "x --unsupported-switch=-ssc- a.7z"},
		{"x -spf a.7z", "x --unsupported-switch=-spf a.7z"},
		{"x -SPF2 a.7z", "x --unsupported-switch=-spf2 a.7z"},
		{"a -sdel a.7z f", "a --unsupported-switch=-sdel a.7z f"},
		{"x -idq a.rar", "x -q a.rar"},
		{"x -idcdp a.rar", "x a.rar"},
		{"x -bb5 a.7z", "x -bb5 a.7z"},
		{"x -x a.7z", "x -x a.7z"},
		{"", ""},
	}
	for _, tc := range tests {
		in := strings.Fields(tc.in)
		got := strings.Join(normalizeArgs(in), " ")
		if got != tc.want {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

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

func TestSelector(t *testing.T) {
	names := []string{"a.txt", "b.png", "docs", "docs/c.txt", "docs/img/d.png", "src/docs/e.txt"}
	tests := []struct {
		inc, exc  string
		recursive bool
		want      string
	}{
		{"", "", false, "a.txt b.png docs docs/c.txt docs/img/d.png src/docs/e.txt"},
		{"*.txt", "", false, "a.txt"},
		{"*.txt", "", true, "a.txt docs/c.txt src/docs/e.txt"},
		{"**/*.txt", "", false, "a.txt docs/c.txt src/docs/e.txt"},
		{"docs", "", false, "docs docs/c.txt docs/img/d.png"},
		{"docs", "", true, "docs docs/c.txt docs/img/d.png src/docs/e.txt"},
		{"docs/*.txt", "", false, "docs/c.txt"},
		{"docs/img", "", false, "docs/img/d.png"},
		{"", "*.png", false, "a.txt docs docs/c.txt src/docs/e.txt"},
		{"", "docs", false, "a.txt b.png"},
		{"", "docs/img", false, "a.txt b.png docs docs/c.txt src/docs/e.txt"},
		{"docs", "*.png", false, "docs docs/c.txt"},
		{"nothing", "", false, ""},
		{"./a.txt", "", false, "a.txt"},
		{"docs\\c.txt", "", false, "docs/c.txt"},
	}
	for _, tc := range tests {
		var inc, exc []string
		if tc.inc != "" {
			inc = []string{tc.inc}
		}
		if tc.exc != "" {
			exc = []string{tc.exc}
		}
		s, err := newSelector(inc, exc, tc.recursive)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range names {
			if s.want(&archive.Entry{Name: n}) {
				got = append(got, n)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("include %q exclude %q -r=%v: got %q, want %q", tc.inc, tc.exc, tc.recursive, g, tc.want)
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
		{fmt.Errorf("a: %w", errNoMatch), ExitNoMatch},
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
	sel, _ := newSelector([]string{"c"}, nil, false)
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
	all, _ := newSelector(nil, nil, false)
	if w := withLinkTargets(r, all); !w(es[3]) {
		t.Error("unfiltered selection lost an entry")
	}
}
