package cli

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/listing"
	"github.com/garc-dev/garc/internal/selection"
)

func (a *app) listCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "l ARCHIVE [PATTERNS...]",
		Aliases: []string{"list"},
		Short:   "list the entries of an archive",
		Long: `List the entries of an archive on stdout.

--format=table (default) prints a table like 7-Zip's; --format=slt prints
one "Key = Value" block per entry with 7-Zip's -slt key names;
--format=json prints JSON Lines:

` + listing.SchemaDoc,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runList(args[0], args[1:], format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, slt or json")
	return cmd
}

func (a *app) runList(name string, patterns []string, format string) error {
	switch format {
	case "table", "slt", "json":
	default:
		return usagef("--format must be table, slt or json, not %q", format)
	}
	sel, err := a.selection(patterns)
	if err != nil {
		return err
	}
	first := true
	_, err = a.forEachArchive(name, func(name string) error {
		if !first && format != "json" {
			fmt.Fprintln(a.stdout)
		}
		first = false
		return a.listArchive(name, sel, format)
	})
	return err
}

// listArchive lists one archive, writing each entry as it is visited.
func (a *app) listArchive(name string, sel *selection.Selector, format string) error {
	r, err := a.openArchive(name)
	if err != nil {
		if format == "json" {
			listing.NewJSONWriter(a.stdout).ArchiveError(name, err)
		}
		return err
	}
	defer r.Close()
	if n, _ := wanted(r, sel); n == 0 && sel.Filtered() {
		return sel.NoMatch(name, r.Entries(), false)
	}
	info, all := r.Info(), r.Entries()
	// An interrupt ends the listing at the next entry.
	selected := wantOf(sel)
	want := func(e *archive.Entry) bool { return a.ctx.Err() == nil && selected(e) }
	if format == "json" {
		j := listing.NewJSONWriter(a.stdout)
		j.BeginArchive(name, info, all...)
		for _, e := range all {
			if want(e) {
				if err := j.Entry(e); err != nil {
					return err
				}
			}
		}
		err = j.EndArchive(scanError(r))
	} else {
		w := bufio.NewWriterSize(a.stdout, 64<<10)
		if format == "slt" {
			listing.WriteSLT(w, name, info, all, want)
		} else {
			listing.WriteTable(w, name, info, all, want)
		}
		err = w.Flush()
	}
	if a.ctx.Err() != nil {
		return errInterrupted
	}
	if err == nil {
		err = scanError(r) // a compressed tar cut short lists what it has, and fails
	}
	return err
}
