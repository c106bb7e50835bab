package cli

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/listing"
)

// bareListCommand is unrar's `lb`: the selected entry names, one a line,
// nothing else, for scripts. With --rows (7-Zip's `l -ba`, which argv.go
// rewrites to it) each line is the table row of `garc l` instead, without
// the archive header, column titles and totals.
func (a *app) bareListCommand() *cobra.Command {
	var rows bool
	cmd := &cobra.Command{
		Use:   "lb ARCHIVE [PATTERNS...]",
		Short: "bare list: entry names only, one a line (unrar lb; 7-Zip l -ba)",
		Long: `Print the selected entry names, one a line, with nothing else (unrar's lb;
also reached as vb). Names are escaped as in every listing (control
characters as \xNN). With --rows, written -ba after l as in 7-Zip
(garc l -ba ARCHIVE), each line is the entry's row of the table listing:
date, time, attributes, size, compressed size and name.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, err := a.selection(args[1:])
			if err != nil {
				return err
			}
			_, err = a.forEachArchive(args[0], func(name string) error {
				r, err := a.openArchive(name)
				if err != nil {
					return err
				}
				defer r.Close()
				if n, _ := wanted(r, sel); n == 0 && sel.Filtered() {
					return sel.NoMatch(name, r.Entries(), false)
				}
				w := bufio.NewWriterSize(a.stdout, 64<<10)
				if rows {
					listing.WriteRows(w, r.Entries(), wantOf(sel))
				} else {
					listing.WriteNames(w, r.Entries(), wantOf(sel))
				}
				if err := w.Flush(); err != nil {
					return err
				}
				return scanError(r)
			})
			return err
		},
	}
	cmd.Flags().BoolVar(&rows, "rows", false, "print the table's rows (7-Zip l -ba) instead of names")
	return cmd
}
