package cli

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestStringArray checks the stringArray flag value against pflag's: the
// first use replaces the default, later ones add, a value keeps its
// commas, and String is pflag's CSV form ("" when empty, so that help
// shows no default).
func TestStringArray(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		str  string
	}{
		{nil, nil, ""},
		{[]string{"--include=a"}, []string{"a"}, "[a]"},
		{[]string{"--include", "a,b", "--include=c d"}, []string{"a,b", "c d"}, `["a,b",c d]`},
		{[]string{"--include=", "--include=x"}, []string{"", "x"}, "[,x]"},
	} {
		var got, ref []string
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		stringArrayVar(fs, &got, "include", "")
		pf := pflag.NewFlagSet("ref", pflag.ContinueOnError)
		pf.StringArrayVar(&ref, "include", nil, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := pf.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) || !slices.Equal(got, ref) {
			t.Errorf("%q: %q, want %q (pflag: %q)", tc.args, got, tc.want, ref)
		}
		if s := fs.Lookup("include").Value.String(); s != tc.str {
			t.Errorf("%q: String %q, want %q", tc.args, s, tc.str)
		}
		if typ := fs.Lookup("include").Value.Type(); typ != "stringArray" {
			t.Errorf("Type %q", typ)
		}
	}
	// Defining the flag formats its default without an encoding/csv
	// writer (pflag's value allocates 4 more times, 4 KiB of them).
	allocs := testing.AllocsPerRun(20, func() {
		var v []string
		stringArrayVar(pflag.NewFlagSet("t", pflag.ContinueOnError), &v, "include", "")
	})
	if allocs > 8 {
		t.Errorf("defining a stringArray flag allocates %.0f times, want at most 8", allocs)
	}
}
