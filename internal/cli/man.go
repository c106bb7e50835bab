package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/manpage"
)

// manCommand is the hidden `garc man` command that prints the man page.
func manCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "man",
		Short:  "print the garc(1) man page (roff) on stdout",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, _, date := buildInfo()
			root := cmd.Root()
			// The exit codes have a section of their own.
			root.Long = strings.TrimSpace(strings.TrimSuffix(root.Long, exitCodeTable))
			_, codes, _ := strings.Cut(exitCodeTable, "\n")
			return manpage.Write(cmd.OutOrStdout(), root, v, date,
				manpage.Section{Title: "EXIT STATUS", Text: codes},
				manpage.Section{Title: "ENVIRONMENT", Text: manEnvironment},
				manpage.Section{Title: "EXAMPLES", Text: manExamples})
		},
	}
}

// manEnvironment is the man page's ENVIRONMENT section.
const manEnvironment = `garc reads no password from the environment: a variable is visible to
other processes of the user and ends up in logs. Give the password with
--password-file FILE, --password-stdin, or at the prompt on the terminal
(7-Zip's -p without a value), which never echoes it.

  TERM           dumb: the progress display is plain text, without
                 cursor movement
  COLUMNS        the terminal width when the terminal does not report it
  LC_ALL, LC_CTYPE, LANG
                 the first one set decides whether the progress bar uses
                 UTF-8 blocks or ASCII
  NO_COLOR       garc prints no colour, with or without it
  TZ             the time zone of the times that l prints`

// manExamples is the man page's EXAMPLES section.
const manExamples = `  garc x release.tar.zst -o build/
         extract with full paths into build/
  garc x '*.rar' -o'*'
         extract every RAR archive here into a directory named after it
  garc l -slt archive.7z
         list every entry with all its properties, as 7-Zip does
  garc t --password-file key.txt secret.7z
         test an encrypted archive
  garc x -so logs.7z app.log | grep ERROR
         write one entry's contents to standard output
  garc a -mx9 backup.7z src/ -xr!'*.o'
         create a 7z archive of src/ at level 9 without object files`
