package cli

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// stringArray is pflag's stringArray flag value (each use of the flag
// adds one string) without its start-up cost: pflag formats a flag's
// default when the flag is defined, and its stringArray value formats
// through an encoding/csv writer with a 4 KiB buffer, three of them for
// the flags every run defines. The default here is always empty.
type stringArray struct {
	p       *[]string
	changed bool
}

// stringArrayVar defines a stringArray flag of fs.
func stringArrayVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	*p = nil
	fs.Var(&stringArray{p: p}, name, usage)
}

// Set adds a string; the first one replaces the default.
func (s *stringArray) Set(v string) error {
	if !s.changed {
		*s.p = []string{v}
		s.changed = true
		return nil
	}
	*s.p = append(*s.p, v)
	return nil
}

// Type is pflag's name for the value type, which help and shell
// completion read.
func (s *stringArray) Type() string { return "stringArray" }

// String formats the strings as pflag does, "[a,b]" in CSV, except that
// no strings are "" rather than "[]", which help would show as a default.
func (s *stringArray) String() string {
	if len(*s.p) == 0 {
		return ""
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(*s.p)
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}
