package cli

import (
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
			return manpage.Write(cmd.OutOrStdout(), cmd.Root(), v, date)
		},
	}
}
