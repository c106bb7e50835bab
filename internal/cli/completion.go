package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Shell completion: cobra's completion command, made ready when the whole
// tree is built so that garc can adapt it. Its help shows only its own
// flags and says how to install the script; the bash script carries
// fallbacks for the two bash-completion functions it calls, so that it
// works in a plain bash too; flags whose values form a fixed set complete
// them; and descriptions are the help texts without pflag's backquotes.

// completionUsage is the usage template of the completion command and its
// shell subcommands: garc's global flags do not apply to them.
const completionUsage = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// bashInstall is the help of "garc completion bash".
const bashInstall = `Print the bash completion script for garc.

The script works in any bash 4 or later; with the bash-completion package it
uses that package's word splitting, and without it a built-in equivalent.

To load completions in the current shell session:

	source <(garc completion bash)

To load them in every new session, once:

	garc completion bash > ~/.local/share/bash-completion/completions/garc   # with bash-completion
	echo 'source <(garc completion bash)' >> ~/.bashrc                    # without it
`

// bashFallbacks defines, when bash-completion has not, the two functions
// of that package that cobra's bash script calls: the current word and
// its neighbours, and file or directory names matching a pattern.
const bashFallbacks = `# garc: fallbacks for the bash-completion package's functions, used only
# when that package is not loaded.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    while [[ $# -gt 0 && $1 == -* ]]; do
        [[ $1 == -n ]] && shift
        shift
    done
    local v
    for v in "$@"; do
        case $v in
        cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
        prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
        words) words=("${COMP_WORDS[@]}") ;;
        cword) cword=$COMP_CWORD ;;
        esac
    done
}
fi
if ! declare -F _filedir >/dev/null 2>&1; then
_filedir() {
    local IFS=$'\n' f
    if [[ ${1-} == -d ]]; then
        COMPREPLY+=($(compgen -d -- "${cur-}"))
        return
    fi
    for f in $(compgen -f -- "${cur-}"); do
        if [[ -d $f || -z ${1-} || $f == *.@($1) ]]; then
            COMPREPLY+=("$f")
        fi
    done
}
fi
`

// flagValues are the fixed value sets that complete, by flag name; a
// flag with the name on any command completes them. A slice, not a map:
// it is static data, built by no process that does not complete.
var flagValues = []struct {
	name   string
	values []string
}{
	{"overwrite", []string{"ask", "all", "skip", "rename", "rename-existing", "never"}},
	{"format", []string{"table", "slt", "json"}},
	{"links", []string{"safe", "skip", "unsafe", "copy"}},
	{"progress", []string{"auto", "on", "always", "never", "list"}},
	{"method", []string{"LZMA2", "LZMA", "PPMd", "BZip2", "Deflate", "Copy"}},
	{"level", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}},
	{"symlinks", []string{"follow", "store"}},
	{"solid", []string{"on", "off", "e"}},
}

// setUpCompletion adds cobra's completion command to root, whose
// commands are all built, and adapts it as the file comment says.
// completing is true in a run that answers a shell's completion request.
func setUpCompletion(root *cobra.Command, completing bool) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Short = "print a shell completion script (bash, zsh, fish, powershell)"
		c.SetUsageTemplate(completionUsage)
		for _, sh := range c.Commands() {
			if sh.Name() == "bash" {
				sh.Long = bashInstall
				sh.RunE = func(cmd *cobra.Command, _ []string) error {
					noDesc, _ := cmd.Flags().GetBool("no-descriptions")
					return writeBashCompletion(cmd.OutOrStdout(), root, !noDesc)
				}
			}
		}
	}
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		for _, fv := range flagValues {
			if c.LocalNonPersistentFlags().Lookup(fv.name) == nil && !(c == root && c.PersistentFlags().Lookup(fv.name) != nil) {
				continue
			}
			c.RegisterFlagCompletionFunc(fv.name, cobra.FixedCompletions(fv.values, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	if completing {
		// Completion descriptions are the flags' usage texts, where
		// pflag's backquotes (`FILE`) would show as they are.
		unquote := func(f *pflag.Flag) { f.Usage = strings.ReplaceAll(f.Usage, "`", "") }
		root.PersistentFlags().VisitAll(unquote)
		for _, c := range root.Commands() {
			c.Flags().VisitAll(unquote)
		}
	}
}

// writeBashCompletion writes the bash fallbacks and cobra's script.
func writeBashCompletion(w io.Writer, root *cobra.Command, descriptions bool) error {
	if _, err := fmt.Fprint(w, bashFallbacks); err != nil {
		return err
	}
	return root.GenBashCompletionV2(w, descriptions)
}
