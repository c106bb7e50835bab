package argv

import (
	"strings"
	"testing"
)

// testCommands is garc's command tree as internal/cli describes it
// (commandsOf), for the tests of this package. It is set by
// setTestCommands, not by a package-level initialiser, so that
// TestInitAllocatesNothing sees only the package's own initialisation.
var testCommands Commands

func setTestCommands() {
	testCommands = Commands{
		ValueFlags: map[string]bool{
			"output": true, "password": true, "password-file": true, "overwrite": true, "links": true,
			"max-dict": true, "threads": true, "progress": true, "format": true, "include": true,
			"exclude": true, "level": true, "method": true, "filter": true, "solid": true,
			"volume-size": true, "symlinks": true, "stdin-name": true, "type": true, "dict": true, "method-param": true,
		},
		Words: map[string]bool{
			"x": true, "extract": true, "e": true, "l": true, "list": true, "t": true, "test": true,
			"a": true, "add": true, "d": true, "delete": true, "help": true, "completion": true, "lb": true,
		},
	}
}

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
		{"completion bash --help", "completion bash --help"},
		{"help completion bash", "help completion bash"},
		{"-q completion zsh", "completion -q zsh"},
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
		{"x -aot a.7z", "x --overwrite=rename-existing a.7z"},
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
		{"x -xr!*.png a.7z", "x --exclude=**/*.png a.7z"},
		{"x -xr-!*.png a.7z", "x --exclude=./*.png a.7z"},
		{"x -xr0!*.png -xr0!logs a.7z", "x --exclude=**/*.png --exclude=./logs a.7z"},
		{"x -xr@list.txt a.7z", "x --exclude=**/@list.txt a.7z"},
		{"x -xr0@list.txt a.7z", "x --unsupported-switch=-xr0@LIST a.7z"},
		{"a -ir-!*.txt -ir!**/x a.7z", "a --include=./*.txt --include=**/x a.7z"},
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
		{"x -snz a.7z", "x --mark-of-web=on a.7z"},
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
		{"x -x*.log -n*.txt -n@list a.rar", "x --exclude=**/*.log --include=**/*.txt --include=@list a.rar"},
		{"x -xreadme a.rar", "x --exclude=**/readme a.rar"},
		{"x -xdocs/*.txt a.rar", "x --exclude=docs/*.txt a.rar"},
		{"x -ad a.rar", "x --output=* a.rar"},
		{"x -ad a.rar out/", "x --output=out/* a.rar"},
		{"x -ad -oout a.rar", "x --output=out/* a.rar"},
		{"x -ad1 a.rar -o out", "x -o out/* a.rar"},
		{"x -ad2 a.rar", "x --unsupported-switch=-ad2 a.rar"},
		{"x -c- -ierr a.rar", "x a.rar"},
		{"x -bso0 -bse1 -bsp1 a.7z", "x a.7z"},
		{"x -so -bsp2 a.7z", "x --stdout --progress=on a.7z"},
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
		// "--" is never a switch's value: it ends the switches, and the
		// switch left without its value is refused (exit 7).
		{"x -o -- a.7z", "x " + unsupportedFlag + "-o --" + " -- a.7z"},
		{"x a.7z --output -- -y", "x " + unsupportedFlag + "--output --" + " a.7z -- -y"},
		{"-o -- 0", unsupportedFlag + "-o --" + " -- 0"},
		{"", ""},
	}
	for _, tc := range tests {
		in := strings.Fields(tc.in)
		got := strings.Join(Normalize(in, testCommands), " ")
		if got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTrailingDestinationArg(t *testing.T) {
	tests := []struct {
		arg  string
		want bool
	}{
		{"out/", true},
		{`out\`, true},
		{"a/b/", true},
		{"out", false},
		{"*.txt", false},
		{"/", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := TrailingDestination(tc.arg); got != tc.want {
			t.Errorf("TrailingDestination(%q) = %v, want %v", tc.arg, got, tc.want)
		}
	}
}

// FuzzNormalizeArgs checks that the normaliser never panics, keeps
// everything after "--" verbatim and never drops a positional argument.
func FuzzNormalizeArgs(f *testing.F) {
	f.Add("x -ofoo a.7z -- -y")
	f.Add("-p -mx9 a -m0=lzma2 -x!*.png b")
	f.Add("--password secret x a.7z")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		out := Normalize(args, testCommands)
		in := 0
		for i, a := range args {
			if a == "--" {
				tail := strings.Join(args[i:], " ")
				if !strings.HasSuffix(strings.Join(out, " "), tail) {
					t.Fatalf("%q: tail %q not kept in %q", args, tail, out)
				}
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				in++
			}
		}
		got := 0
		for _, a := range out {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				got++
			}
		}
		if got < in-countValues(args) {
			t.Fatalf("%q → %q: positional arguments lost", args, out)
		}
	})
}

// countValues counts arguments consumed as flag values.
func countValues(args []string) int {
	n := 0
	for i, a := range args {
		if a == "--" {
			break
		}
		if (shortValueFlag(a) || strings.HasPrefix(a, "--") && testCommands.ValueFlags[strings.TrimPrefix(a, "--")]) && i+1 < len(args) && args[i+1] != "--" {
			n++
		}
	}
	return n
}
