package argv

import (
	"os"
	"strings"
)

// Commands is what Normalize needs to know of the command tree; the
// caller derives it from the commands it defines, so that the two cannot
// disagree.
type Commands struct {
	// ValueFlags are the long flags that take a value: written without
	// '=', the next argument is their value, not a positional argument.
	ValueFlags map[string]bool
	// Words are the command names and aliases (unrar's spellings, which
	// Normalize rewrites, are added to them): the argument after a lone
	// -p that is none of them cannot be the command.
	Words map[string]bool
}

// shortValueFlag reports whether a is a single-letter flag that takes the
// next argument as its value when nothing is attached.
func shortValueFlag(a string) bool { return a == "-o" }

// exactSwitch maps the 7-Zip and unrar switches written as one whole
// argument to canonical long flags (a switch statement rather than a map:
// nothing to build when the process starts).
func exactSwitch(a string) ([]string, bool) {
	switch a {
	case "-y":
		return []string{"--yes"}, true
	case "-r":
		return []string{"--recursive"}, true
	case "-r-":
		return []string{"--recursive=false"}, true
	case "-r0":
		return []string{"--recursive"}, true
	case "-kb":
		return []string{"--keep-broken"}, true
	case "-o+":
		return []string{"--overwrite=all"}, true
	case "-o-":
		return []string{"--overwrite=skip"}, true
	case "-or":
		return []string{"--overwrite=rename"}, true
	case "-aoa":
		return []string{"--overwrite=all"}, true
	case "-aos":
		return []string{"--overwrite=skip"}, true
	case "-aou":
		return []string{"--overwrite=rename"}, true
	case "-aot":
		return []string{"--overwrite=rename-existing"}, true
	case "-slt":
		return []string{"--format=slt"}, true
	case "-bd":
		return []string{"--progress=never"}, true
	case "-inul":
		return []string{"-q"}, true
	case "-p":
		return []string{"--ask-password"}, true
	case "-hp":
		return []string{"--ask-password", "--encrypt-headers"}, true
	case "-snl":
		return []string{"--symlinks=store"}, true
	case "-snz": // 7-Zip: propagate the Zone.Identifier stream (garc's default)
		return []string{"--mark-of-web=on"}, true
	case "-si":
		return []string{"--stdin"}, true
	case "-mhe":
		return []string{"--encrypt-headers"}, true
	case "-mhc":
		return []string{"--header-compression"}, true
	case "-ms":
		return []string{"--solid=on"}, true
	case "-mmt":
		return []string{"--threads=0"}, true
	case "-mx":
		return []string{"--level=9"}, true
	case "-ep": // unrar: exclude paths from names
		return []string{"--flat"}, true
	}
	return nil, false
}

// filterName reports whether name (lower case) is a 7z coder that is a
// filter rather than a compression method, so "-m0=BCJ -m1=LZMA2" maps to
// --filter=BCJ --method=LZMA2.
func filterName(name string) bool {
	switch name {
	case "bcj", "bcj2", "x86", "arm", "arm64", "armt", "ppc",
		"sparc", "ia64", "riscv", "swap2", "swap4", "delta":
		return true
	}
	return false
}

// onOff maps 7-Zip's on/off spellings to a boolean literal.
func onOff(v string) (string, bool) {
	switch strings.ToLower(v) {
	case "", "on", "+", "true":
		return "true", true
	case "off", "-", "false":
		return "false", true
	}
	return "", false
}

// Normalize rewrites the argument spellings of 7-Zip and unrar into
// the canonical GNU long flags cobra parses, and moves the command word
// (x, e, l, t, a, d …) to the front so that switches may come before it.
// Arguments after "--" are positional and never rewritten.
func Normalize(args []string, c Commands) []string {
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		// cobra's hidden completion request from a shell script:
		// the words being completed are passed on as typed.
		return args
	}
	var flags, pos []string
	command := ""
	// dangling is a value flag written last, without its value: it
	// stays last so that it does not take a positional argument as its
	// value, and cobra reports the missing value.
	dangling := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if a == "--verbose" {
			flags = append(flags, "--progress=list") // each file as it is processed
			continue
		}
		if strings.HasPrefix(a, "--") {
			name := strings.TrimPrefix(a, "--")
			if !strings.Contains(name, "=") && c.ValueFlags[name] {
				if i+1 == len(args) {
					dangling = a
					continue
				}
				if args[i+1] == "--" {
					flags = append(flags, unsupportedFlag+a+valueBeforeEnd)
					continue
				}
				i++
				flags = append(flags, a, args[i])
				continue
			}
			flags = append(flags, a)
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			if command == "" && (a == "completion" || a == "help") {
				// cobra's own commands, whose subcommands are words
				// of their own: the rest goes on as typed, so that
				// "completion bash --help" is the help of bash.
				return append(append([]string{a}, flags...), args[i+1:]...)
			}
			if command == "" {
				command = a
			} else {
				pos = append(pos, a)
			}
			continue
		}
		if shortValueFlag(a) {
			if i+1 == len(args) {
				dangling = a
				continue
			}
			if args[i+1] == "--" {
				flags = append(flags, unsupportedFlag+a+valueBeforeEnd)
				continue
			}
			i++
			flags = append(flags, a, args[i])
			continue
		}
		if (a == "-p" || a == "-hp") && i+1 < len(args) && passwordAfterP(c, command, len(pos), args[i+1]) {
			// "-p SECRET": refused without ever printing SECRET,
			// which takes the place of a positional argument so
			// that the refusal is what the user sees.
			flags = append(flags, unsupportedFlag+spacedPassword)
			i++
			if command == "" {
				command = hiddenArgument
			} else {
				pos = append(pos, hiddenArgument)
			}
			continue
		}
		flags = append(flags, Rewrite(a)...)
	}
	flags = adjustFlags(command, flags, &pos)
	if sp, ok := commandSpelling(command); ok {
		command = sp[0]
		flags = append(sp[1:len(sp):len(sp)], flags...)
	}
	if command == "l" && slicesContains(flags, bareRows) {
		command = "lb" // 7-Zip's l -ba
	}
	out := make([]string, 0, len(args)+2)
	if command != "" {
		out = append(out, command)
	}
	out = append(out, flags...)
	out = append(out, pos...)
	if dangling != "" {
		out = append(out, dangling)
	}
	return out
}

// bareRows is what 7-Zip's -ba becomes: the table's rows without
// headers (lb --rows).
const bareRows = "--rows"

// appendArchiveName is what unrar's -ad becomes before adjustFlags
// rewrites the destination.
const appendArchiveName = "--append-archive-name"

// slicesContains reports whether s holds v.
func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// adjustFlags applies the switches that change other arguments: unrar's
// -ad appends the archive's name to the destination (-o DIR, unrar's
// trailing DIR/ or the current directory), which garc's -o'DIR/*' does;
// 7-Zip's -bb1 … -bb3 list each file (--progress=list) even with -bd.
func adjustFlags(command string, flags []string, pos *[]string) []string {
	out := flags[:0:0]
	ad, list := false, false
	for _, f := range flags {
		switch f {
		case appendArchiveName:
			ad = true
			continue
		case "--progress=list":
			list = true
		}
		out = append(out, f)
	}
	if list {
		// -bd (no progress bar) does not silence the file list.
		kept := out[:0]
		for _, f := range out {
			if f != "--progress=never" {
				kept = append(kept, f)
			}
		}
		out = kept
	}
	if !ad {
		return out
	}
	withName := func(dir string) string {
		if strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, "\\") {
			return dir + "*"
		}
		return dir + "/*"
	}
	for i := 0; i < len(out); i++ {
		switch {
		case strings.HasPrefix(out[i], "--output="):
			out[i] = "--output=" + withName(strings.TrimPrefix(out[i], "--output="))
			return out
		case (out[i] == "-o" || out[i] == "--output") && i+1 < len(out):
			out[i+1] = withName(out[i+1])
			return out
		}
	}
	if p := *pos; len(p) > 1 && (command == "x" || command == "e") && TrailingDestination(p[len(p)-1]) {
		*pos = p[:len(p)-1]
		return append(out, "--output="+withName(p[len(p)-1]))
	}
	return append(out, "--output=*")
}

// Rewrite maps one single-dash switch to canonical flags; unknown
// switches are returned unchanged for cobra to accept or reject.
func Rewrite(a string) []string {
	if r, ok := exactSwitch(a); ok {
		return r
	}
	lower := strings.ToLower(a)
	if out, ok := compatSwitch(lower); ok {
		return out
	}
	switch {
	case strings.HasPrefix(a, "-o") && len(a) > 2:
		return []string{"--output=" + a[2:]}
	case strings.HasPrefix(a, "-hp") && len(a) > 3: // unrar: encrypt headers with password
		return []string{"--password=" + a[3:], "--encrypt-headers"}
	case strings.HasPrefix(a, "-p") && len(a) > 2:
		return []string{"--password=" + a[2:]}
	case strings.HasPrefix(lower, "-mx"):
		return []string{"--level=" + strings.TrimPrefix(a[3:], "=")}
	case strings.HasPrefix(lower, "-mhe="):
		if v, ok := onOff(a[5:]); ok {
			return []string{"--encrypt-headers=" + v}
		}
	case strings.HasPrefix(lower, "-mhc="):
		if v, ok := onOff(a[5:]); ok {
			return []string{"--header-compression=" + v}
		}
	case strings.HasPrefix(lower, "-mtm"), strings.HasPrefix(lower, "-mtc"), strings.HasPrefix(lower, "-mta"):
		v := strings.TrimPrefix(a[4:], "=")
		if b, ok := onOff(v); ok {
			flag := map[byte]string{'m': "--store-mtime=", 'c': "--store-ctime=", 'a': "--store-atime="}[lower[3]]
			return []string{flag + b}
		}
	case methodParamSwitch(lower) != "":
		// 7-Zip's -mfb=64, -mmc=48, -mlc=4, -mmf=bt4, -mo=8, -mmem=256m …:
		// parameters of the main method.
		return []string{"--method-param=" + methodParamSwitch(lower) + "=" + a[strings.IndexByte(a, '=')+1:]}
	case strings.HasPrefix(lower, "-ms="):
		v := a[4:]
		if b, ok := onOff(v); ok {
			v = map[string]string{"true": "on", "false": "off"}[b]
		}
		return []string{"--solid=" + v}
	case strings.HasPrefix(lower, "-mmt"):
		v := strings.TrimPrefix(a[4:], "=")
		if b, ok := onOff(v); ok {
			if b == "true" {
				v = "0"
			} else {
				v = "1"
			}
		}
		return []string{"--threads=" + v}
	case strings.HasPrefix(lower, "-mm="): // ZIP's method
		return []string{"--method=" + a[4:]}
	case strings.HasPrefix(lower, "-mem="): // ZIP's encryption
		return []string{"--encryption=" + a[5:]}
	case strings.HasPrefix(lower, "-md="):
		return []string{"--dict=" + a[4:]}
	case strings.HasPrefix(lower, "-mf="):
		return []string{"--filter=" + a[4:]}
	case len(a) > 3 && a[1] == 'm' && a[2] >= '0' && a[2] <= '9' && strings.Contains(a, "="):
		v := a[strings.IndexByte(a, '=')+1:]
		name := strings.ToLower(v)
		if i := strings.IndexByte(name, ':'); i >= 0 {
			name = name[:i]
		}
		if filterName(name) {
			return []string{"--filter=" + v}
		}
		return []string{"--method=" + v}
	case strings.HasPrefix(a, "-v") && len(a) > 2 && a[2] >= '0' && a[2] <= '9':
		return []string{"--volume-size=" + a[2:]}
	case strings.HasPrefix(a, "-si") && len(a) > 3:
		return []string{"--stdin-name=" + a[3:]}
	case strings.HasPrefix(a, "-t") && len(a) > 2:
		return []string{"--type=" + a[2:]}
	case strings.HasPrefix(a, "-x") || strings.HasPrefix(a, "-i"):
		if f, ok := wildcardSwitch(a); ok {
			return []string{f}
		}
		if a[1] == 'x' && len(a) > 2 {
			return []string{unrarPattern("--exclude=", a[2:])} // unrar: -xPATTERN
		}
	case strings.HasPrefix(a, "-n") && len(a) > 2:
		return []string{unrarPattern("--include=", a[2:])} // unrar: -nPATTERN, -n@LIST
	}
	return []string{a}
}

// methodParamSwitch returns the method parameter a 7-Zip switch like
// -mfb=64 or -mmf=bt4 sets, or "".
func methodParamSwitch(lower string) string {
	k, _, ok := strings.Cut(strings.TrimPrefix(lower, "-m"), "=")
	if !ok || !strings.HasPrefix(lower, "-m") {
		return ""
	}
	switch k {
	case "fb", "mc", "mf", "lc", "lp", "pb", "o", "mem", "pass":
		return k
	}
	return ""
}

// wildcardSwitch maps 7-Zip's -x[r[-|0]]{!wildcard|@listfile} and
// -i[r[-|0]]{!wildcard|@listfile}, keeping the switch's recursion in the
// pattern's prefix as internal/selection reads it: none for -x!P (which
// follows -r), "**/" for -xr!P (any depth), "./" for -xr-!P (anchored at
// the root even with -r); -xr0!P is one or the other by whether P holds
// a wildcard. A list file takes the prefix before its '@' for each of its
// lines; -xr0@LIST, which would decide line by line, is refused.
func wildcardSwitch(a string) (string, bool) {
	flag := "--exclude="
	if a[1] == 'i' {
		flag = "--include="
	}
	rest := a[2:]
	mode := ""
	for _, m := range []string{"r-", "r0", "r"} {
		if strings.HasPrefix(rest, m) {
			mode, rest = m, rest[len(m):]
			break
		}
	}
	var p string
	switch {
	case strings.HasPrefix(rest, "!") && len(rest) > 1:
		p = rest[1:]
	case strings.HasPrefix(rest, "@") && len(rest) > 1:
		p = rest
		if mode == "r0" {
			return unsupportedFlag + listFileR0, true
		}
	default:
		return "", false
	}
	if mode == "r0" {
		mode = "r-"
		if strings.ContainsAny(p, "*?") {
			mode = "r"
		}
	}
	switch {
	case mode == "r" && !strings.HasPrefix(p, AnyDepth):
		p = AnyDepth + p
	case mode == "r-" && !strings.HasPrefix(p, RootOnly):
		p = RootOnly + p
	}
	return flag + p, true
}

// Prefixes of a --include or --exclude pattern that set its recursion,
// whatever -r says (see internal/selection).
const (
	// AnyDepth lets the pattern match at any depth (7-Zip's -xr!, -ir!).
	AnyDepth = "**/"
	// RootOnly anchors the pattern at the root (7-Zip's -xr-!, -ir-!).
	RootOnly = "./"
)

// listFileR0 is the refusedSwitch key of -xr0@LIST and -ir0@LIST.
const listFileR0 = "-xr0@LIST"

// unrarPattern maps unrar's -xPATTERN and -nPATTERN to flag: a pattern
// without a path separator names files at any depth, as in unrar.
func unrarPattern(flag, p string) string {
	if !strings.ContainsAny(p, `/\`) && !strings.HasPrefix(p, "@") {
		p = AnyDepth + p
	}
	return flag + p
}

// refusedSwitch returns why a 7-Zip switch garc does not implement, and
// that would change what is extracted or listed, is refused; such switches
// fail the command line (exit 7) with this reason rather than being
// ignored. ok is false for every other switch.
func refusedSwitch(sw string) (reason string, ok bool) {
	if name, ok := strings.CutSuffix(sw, valueBeforeEnd); ok {
		return name + " takes a value, and \"--\" after it ends the switches (everything after it is a file name): " +
			"attach the value (-oDIR, --output=DIR)", true
	}
	switch sw {
	case "-spf":
		return "absolute paths in archives are not supported (garc keeps every entry inside the destination)", true
	case "-spf2":
		return "absolute paths in archives are not supported (garc keeps every entry inside the destination)", true
	case "-spe":
		return "eliminating the root folder is not supported", true
	case "-ssc-":
		return "case-insensitive matching is not supported (patterns are case-sensitive)", true
	case "-sdel":
		return "deleting files after compression is not supported", true
	case "-stl":
		return "setting the archive time from the newest file is not supported", true
	case "-sns":
		return "NTFS alternate streams are not supported", true
	case "-ad2":
		return "unrar's -ad2 (into the archive's own folder) is not supported; -ad puts each archive into DEST/NAME/ as -o'DEST/*' does", true
	case listFileR0:
		return "a list file's recursion cannot be decided line by line (nor with -ir0@LIST); " +
			"use -xr@LIST (any depth) or -xr-@LIST (from the root)", true
	case spacedPassword:
		return "attach the password to the switch (-pSECRET) or use --password SECRET, " +
			"--password-file FILE or --password-stdin; -p alone asks on the terminal " +
			"(the argument after -p is neither a command, an existing file nor a new .7z archive, so it was not used, and it is not shown; " +
			"if it is the archive, write it before -p or with its .7z extension)", true
	}
	return "", false
}

// valueBeforeEnd ends the refusedSwitch key of a value switch ("-o",
// "--output" …) written just before "--", as in "-o --": "--" is never
// taken as a value, so that everything after it stays a file name.
const valueBeforeEnd = " --"

// spacedPassword is the refusedSwitch key of "-p SECRET": a password
// separated from -p by a space.
const spacedPassword = "-p PASSWORD (with a space)"

// hiddenArgument replaces the argument after a refused "-p" so that the
// password is never printed.
const hiddenArgument = "(hidden)"

// commandSpelling maps unrar's commands to garc's: the command word and
// the flags it implies.
func commandSpelling(word string) ([]string, bool) {
	switch word {
	case "v": // verbose list: garc's table shows what unrar's does
		return []string{"l"}, true
	case "vt": // technical list
		return []string{"l", "--format=slt"}, true
	case "lt":
		return []string{"l", "--format=slt"}, true
	case "vb": // bare list
		return []string{"lb"}, true
	case "p": // print files to stdout
		return []string{"x", "--stdout"}, true
	}
	return nil, false
}

// passwordAfterP reports whether next, the argument after a lone -p (or
// -hp), is probably a password written with a space, as in "-p SECRET",
// rather than the argument -p was put before. 7-Zip and unrar read a lone
// -p as "ask for the password" and the next argument as the archive, a
// pattern or a file to add; so does garc when next is one of those: a
// command word (command is empty), an existing file, a wildcard, a
// destination ending in '/' and, in the archive position of a or d, a
// name ending in .7z (the archive being created). Anything else cannot be
// what the user meant and, being possibly a password, must not reach a
// message ("stat SECRET: no such file"). npos is the number of positional
// arguments before next.
func passwordAfterP(c Commands, command string, npos int, next string) bool {
	switch {
	case next == "" || next[0] == '-':
		return false
	case command == "":
		w := strings.ToLower(next)
		_, unrarCommand := commandSpelling(w)
		return !c.Words[w] && !unrarCommand
	case strings.ContainsAny(next, "*?") || strings.HasSuffix(next, "/") || strings.HasSuffix(next, "\\"):
		return false
	case npos == 0 && (command == "a" || command == "add" || command == "d" || command == "delete") &&
		strings.HasSuffix(strings.ToLower(next), ".7z"):
		return false
	}
	_, err := os.Lstat(next)
	return err != nil
}

// UnsupportedFlag is the hidden long flag (a string array) that carries a
// refused switch to the command, which reports it as a usage error with
// Refusal's reason.
const UnsupportedFlag = "unsupported-switch"

// unsupportedFlag is UnsupportedFlag as written with its value.
const unsupportedFlag = "--" + UnsupportedFlag + "="

// compatSwitch handles 7-Zip and unrar switches that only affect console
// output, or that ask for behaviour garc has anyway: they are accepted and
// dropped (or mapped to the equivalent garc flag). Switches that would
// change results are turned into --unsupported-switch so that the command
// fails with exit 7. lower is the switch in lower case (7-Zip switches are
// case-insensitive). ok is false for switches it does not know.
func compatSwitch(lower string) (out []string, ok bool) {
	if _, refused := refusedSwitch(lower); refused {
		return []string{unsupportedFlag + lower}, true
	}
	switch {
	case lower == "-so":
		return []string{"--stdout"}, true
	case lower == "-bb" || lower == "-bb0":
		return nil, true // 7-Zip output log level 0: the default
	case len(lower) == 4 && strings.HasPrefix(lower, "-bb") && lower[3] >= '1' && lower[3] <= '3':
		return []string{"--progress=list"}, true // 7-Zip: list each file as it is processed
	case lower == "-ba":
		return []string{bareRows}, true // 7-Zip l -ba: rows without headers
	case lower == "-ad" || lower == "-ad1":
		return []string{appendArchiveName}, true // unrar: DEST/ARCHIVE-NAME/
	case lower == "-c-":
		return nil, true // unrar: do not show comments (garc shows them only in l)
	case lower == "-ierr":
		return nil, true // unrar: messages to stderr, where garc writes them anyway
	case lower == "-bsp0":
		return []string{"--progress=never"}, true
	case lower == "-bsp2":
		return []string{"--progress=on"}, true // progress on stderr, with -so too
	case len(lower) == 5 && strings.HasPrefix(lower, "-bs") && strings.IndexByte("oep", lower[3]) >= 0 && lower[4] >= '0' && lower[4] <= '2':
		return nil, true // 7-Zip output stream redirection (-bso0, -bse1, -bsp1 …)
	case lower == "-bt":
		return nil, true // 7-Zip timing statistics
	case strings.HasPrefix(lower, "-scc"):
		return nil, true // console charset: garc always writes UTF-8
	case strings.HasPrefix(lower, "-scs"):
		if cs := lower[4:]; cs != "" && cs != "utf-8" && cs != "utf8" {
			return []string{unsupportedFlag + lower}, true // list files other than UTF-8
		}
		return nil, true
	case lower == "-snh", lower == "-sni", lower == "-ssc", lower == "-ssw", lower == "-snt":
		// Hard links are always extracted as links, NT security and
		// shared-file modes do not apply, matching is case-sensitive.
		return nil, true
	case lower == "-idq":
		return []string{"-q"}, true // unrar: quiet
	case len(lower) >= 4 && strings.HasPrefix(lower, "-id") && strings.Trim(lower[3:], "cdnp") == "":
		return nil, true // unrar: disable banner, done message, progress
	}
	return nil, false
}

// Refusal returns why a switch carried by UnsupportedFlag is refused.
func Refusal(sw string) string {
	if reason, ok := refusedSwitch(sw); ok {
		return reason
	}
	return "only UTF-8 list files are supported" // -scs with another charset
}

// TrailingDestination reports whether a last positional argument is
// unrar's destination directory: it ends in '/' or '\'.
func TrailingDestination(arg string) bool {
	return len(arg) > 1 && (strings.HasSuffix(arg, "/") || strings.HasSuffix(arg, `\`))
}
