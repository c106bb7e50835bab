package cli

// Usage errors in the user's words: cobra and pflag report the canonical
// flags argv.go rewrote the user's switches into ("unknown flag:
// --level"); these functions name the switch as it was typed ("-mx9 is a
// switch of a"), say what is missing, suggest commands for typos and
// point to `garc COMMAND --help`. No message repeats a value that may be
// a password.

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/argv"
)

// flagErrorFunc returns the cobra flag-error function for a run whose
// command line (before argv.Normalize) was args; tree returns the whole
// command tree (a run builds only the command it executes).
func flagErrorFunc(args []string, tree func() *cobra.Command) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error {
		return &usageError{msg: explainFlagError(c, tree, args, err)}
	}
}

// pflag's errors, matched by method set so that pflag need not be a
// direct dependency.
type (
	notExistError interface {
		GetSpecifiedName() string
		GetSpecifiedShortnames() string
	}
	invalidValueError interface {
		GetValue() string
	}
)

// The patterns that take flag errors and usage text apart are compiled
// when first needed, not at start-up: most runs never use them.
var (
	invalidValueFlag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`for "(?:-[^,"]+, )?--([^"]+)" flag`)
	})
	needsArgument = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^flag needs an argument: (?:'(.)' in -\S+|--(\S+))$`)
	})
	usageFlagName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s+(?:-\S, )?--([a-z0-9-]+)`)
	})
)

// explainFlagError rewrites one flag-parsing error of command c; tree
// returns the whole command tree.
func explainFlagError(c *cobra.Command, tree func() *cobra.Command, args []string, err error) string {
	if !c.HasParent() && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// The root parses the flags only when the first word is no
		// command: that word is the mistake, not the flags after it.
		return unknownCommand(tree(), args[0]).Error()
	}
	msg := err.Error()
	var ne notExistError
	var ive invalidValueError
	if m := needsArgument().FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			return fmt.Sprintf("-%s needs a value (-%sVALUE or -%s VALUE)", m[1], m[1], m[1])
		}
		return fmt.Sprintf("--%s needs a value (--%s=VALUE or --%s VALUE)", m[2], m[2], m[2])
	}
	switch {
	case errors.As(err, &ive):
		m := invalidValueFlag().FindStringSubmatch(msg)
		if m == nil {
			break
		}
		name := m[1]
		typed := typedSwitch(args, "--"+name)
		if strings.Contains(name, "password") {
			typed, _, _ = strings.Cut(typed, "=")
			// Never repeat the value: it may be the password.
			if f := c.Flags().Lookup(name); f != nil && f.Value.Type() == "bool" {
				return fmt.Sprintf("%s takes no value", typed)
			}
			return fmt.Sprintf("invalid value for %s", typed)
		}
		why := "invalid value"
		if f := c.Flags().Lookup(name); f != nil {
			switch f.Value.Type() {
			case "bool":
				why = "expects on or off (true or false)"
			case "int":
				why = "expects a whole number"
			}
		}
		return fmt.Sprintf("%s: %q %s", typed, ive.GetValue(), why)
	case errors.As(err, &ne):
		if sh := ne.GetSpecifiedShortnames(); sh != "" {
			return unknownSwitch(c, tree, "-"+sh)
		}
		name := ne.GetSpecifiedName()
		return unknownSwitch(c, tree, typedSwitch(args, "--"+name))
	}
	return msg
}

// typedSwitch returns the argument in args that argv.Normalize rewrote
// into the canonical flag (e.g. "-mx9" for "--level"), or flag itself.
func typedSwitch(args []string, flag string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return a
		}
		if len(a) < 2 || a[0] != '-' || strings.HasPrefix(a, "--") {
			continue
		}
		for _, r := range argv.Rewrite(a) {
			if r == flag || strings.HasPrefix(r, flag+"=") {
				return a
			}
		}
	}
	return flag
}

// switchFamilies explain a 7-Zip or unrar switch whose prefix garc knows
// but whose rest it does not.
var switchFamilies = []struct{ prefix, explanation string }{
	{"-ao", "unknown overwrite mode; 7-Zip's are -aoa (overwrite all), -aos (skip existing), -aou (rename the extracted file), -aot (rename the existing file)"},
	{"-bb", "unknown log level; 7-Zip's are -bb0 to -bb3 (-bb1 lists each file)"},
	{"-bs", "unknown output stream switch; 7-Zip's are -bso, -bse and -bsp followed by 0, 1 or 2"},
	{"-m", "unknown method switch; garc a knows -mx[0-9], -m0=METHOD, -mf=FILTER, -ms=on|off, -mhe=on, -mhc=off, -mmt[N], -md=SIZE, -mtm/-mtc/-mta, -mfb=, -mmf=, -mo=, -mmem=, -mm=METHOD and -mem=ENCRYPTION (ZIP)"},
	{"-s", "unknown 7-Zip -s switch; garc knows -so, -si, -snl, -slt, -snh, -sni, -ssc, -scs, -scc"},
	{"-x", "7-Zip excludes with -x!PATTERN, -xr!PATTERN or -x@LISTFILE; unrar with -xPATTERN"},
	{"-i", "7-Zip includes with -i!PATTERN, -ir!PATTERN or -i@LISTFILE"},
}

// unknownSwitch explains a switch that no command defines, or that
// belongs to another command than c; tree returns the whole command
// tree.
func unknownSwitch(c *cobra.Command, tree func() *cobra.Command, typed string) string {
	lower := strings.ToLower(typed)
	// label is the switch as it is shown: never a value, which may be a
	// password (--pasword=SECRET, -PSECRET, -hpSECRET).
	label, hint := typed, ""
	switch {
	case strings.HasPrefix(typed, "--"):
		label, _, _ = strings.Cut(typed, "=")
	case strings.HasPrefix(lower, "-hp"):
		label = typed[:3] + "…"
	case strings.HasPrefix(lower, "-p"):
		label = typed[:2] + "…"
		hint = " (a password is given as -pSECRET, with a lower-case p, or --password SECRET)"
	}
	// A flag of another command: "-mx9 is a switch of a".
	for _, name := range flagNames(typed) {
		if owners := flagOwners(tree(), name); len(owners) > 0 && c.Flags().Lookup(name) == nil {
			return fmt.Sprintf("%s is a switch of %s, not of %s", label, strings.Join(owners, " and "), c.Name())
		}
	}
	if label == typed && !strings.HasPrefix(typed, "--") {
		for _, f := range switchFamilies {
			if strings.HasPrefix(lower, f.prefix) {
				return fmt.Sprintf("%s: %s", label, f.explanation)
			}
		}
	}
	if name, ok := strings.CutPrefix(label, "--"); ok {
		var near []string
		// FlagUsages lists the visible flags, one "  -o, --output DIR …" a line.
		for _, m := range usageFlagName().FindAllStringSubmatch(c.Flags().FlagUsages(), -1) {
			if f := m[1]; editDistance(name, f) <= 2 || strings.HasPrefix(f, name) {
				near = append(near, "--"+f)
			}
		}
		if len(near) > 0 {
			return fmt.Sprintf("unknown switch %s; did you mean %s?", label, strings.Join(near, " or "))
		}
	}
	return fmt.Sprintf("unknown switch %s%s", label, hint)
}

// flagNames returns the long flag names a typed switch stands for.
func flagNames(typed string) []string {
	var out []string
	for _, r := range argv.Rewrite(typed) {
		if name, ok := strings.CutPrefix(r, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			out = append(out, name)
		}
	}
	return out
}

// flagOwners returns the names of the commands under root that define
// the flag.
func flagOwners(root *cobra.Command, name string) []string {
	var out []string
	for _, sub := range root.Commands() {
		if sub.Flags().Lookup(name) != nil && sub.PersistentFlags().Lookup(name) == nil {
			out = append(out, sub.Name())
		}
	}
	return out
}

// operandsRequired wraps the argument validators of root's subcommands so
// that a missing operand is named from the command's Use line: "x:
// missing ARCHIVE" instead of cobra's "requires at least 1 arg(s)".
func operandsRequired(root *cobra.Command) {
	for _, sub := range root.Commands() {
		check := sub.Args
		if check == nil {
			continue
		}
		sub.Args = func(c *cobra.Command, args []string) error {
			err := check(c, args)
			if err == nil {
				return nil
			}
			operands := strings.Fields(c.Use)[1:]
			if len(args) < len(operands) {
				name := strings.Trim(operands[len(args)], "[].")
				return usagef("%s: missing %s (usage: garc %s)", c.Name(), name, c.Use)
			}
			return usagef("%s: %v (usage: garc %s)", c.Name(), err, c.Use)
		}
	}
}

// unknownCommand is the error for a command word garc does not know, with
// the commands it is close to.
func unknownCommand(root *cobra.Command, word string) error {
	if strings.EqualFold(word, "version") {
		return usagef("unknown command %q; did you mean --version?", word)
	}
	if near := suggestCommands(root, word); len(near) > 0 {
		return usagef("unknown command %q; did you mean %s?", word, strings.Join(near, " or "))
	}
	return usagef("unknown command %q", word)
}

// suggestCommands returns the command whose name or alias is word in
// another case, or else the commands whose name or alias is within two
// edits of word or starts with it, as "x (extract)".
func suggestCommands(root *cobra.Command, word string) []string {
	w := strings.ToLower(word)
	var out []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && (c.Name() == w || slices.Contains(c.Aliases, w)) {
			return []string{c.Name()}
		}
	}
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		for _, n := range append([]string{c.Name()}, c.Aliases...) {
			if len(n) > 1 && (editDistance(w, n) <= 2 || len(w) > 1 && strings.HasPrefix(n, w)) {
				label := c.Name()
				if n != c.Name() {
					label += " (" + n + ")"
				}
				out = append(out, label)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// helpHint is the line printed after a usage error: the help of the
// command the arguments name, or of garc.
func helpHint(root *cobra.Command, args []string) string {
	if c, _, err := root.Find(args); err == nil && c != nil && c.HasParent() {
		return fmt.Sprintf("Run 'garc %s --help' for usage.", c.Name())
	}
	return "Run 'garc --help' for usage."
}
