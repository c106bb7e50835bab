package cli

import (
	"bufio"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/listing"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/selection"
)

func (a *app) listCommand() *cobra.Command {
	var format, linkTargets string
	cmd := &cobra.Command{
		Use:     "l ARCHIVE [PATTERNS...]",
		Aliases: []string{"list"},
		Short:   "list the entries of an archive",
		Long: `List the entries of an archive on stdout.

--format=table (default) prints a table like 7-Zip's; --format=slt prints
one "Key = Value" block per entry with 7-Zip's -slt key names;
--format=json prints JSON Lines (below).

7z, ZIP and RAR 1.5-4.x store a symbolic link's target as its data: the
listing decodes at most 2 MiB per archive to show targets, and marks the
links left out ("-> ?" in the table, "link_target_omitted" in JSON) with a
note on stderr; --link-targets=all decodes every one (a large solid
block is then decoded up to its last link).

` + listing.SchemaDoc,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch linkTargets {
			case "auto", "all":
			default:
				return usagef("--link-targets must be auto or all, not %q", linkTargets)
			}
			return a.runList(args[0], args[1:], format, linkTargets == "all")
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, slt or json")
	cmd.Flags().StringVar(&linkTargets, "link-targets", "auto", "symbolic link targets stored as data: auto (those within 2 MiB of decoding per archive; the others marked) or all (decode every one)")
	return cmd
}

func (a *app) runList(name string, patterns []string, format string, allTargets bool) error {
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
		return a.listArchive(name, sel, format, allTargets)
	})
	return err
}

// listArchive lists one archive, writing each entry as it is visited;
// allTargets decodes the targets of every selected symbolic link first.
func (a *app) listArchive(name string, sel *selection.Selector, format string, allTargets bool) error {
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
	if allTargets {
		if err := a.readLinkTargets(name, r, selected); err != nil {
			return err
		}
	}
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
	// -slt shows 7-Zip's keys, without link targets for 7z: no note.
	if n := listing.CountTargetsOmitted(all, selected); n > 0 && !a.g.quiet && format != "slt" {
		fmt.Fprintf(a.messages(), "garc: %s: %s not shown (%s): a listing decodes link data only up to 2 MiB per archive, unencrypted; --link-targets=all decodes them\n",
			printable.String(name), plural(n, "symbolic link target", "symbolic link targets"), markedAs(format))
	}
	if err == nil {
		err = scanError(r) // a compressed tar cut short lists what it has, and fails
	}
	return err
}

// markedAs says how the listing format marks a link whose target was not
// decoded.
func markedAs(format string) string {
	if format == "json" {
		return `"link_target_omitted": true`
	}
	return `"-> ?"`
}

// readLinkTargets decodes the targets of the symbolic links want selects
// that the listing left out (listing.TargetOmitted): Extract fills an
// entry's LinkTarget as it passes. A link that does not decode is warned
// about (exit 1) and stays marked.
func (a *app) readLinkTargets(name string, r archive.Reader, want func(*archive.Entry) bool) error {
	if listing.CountTargetsOmitted(r.Entries(), want) == 0 {
		return nil
	}
	missing := func(e *archive.Entry) bool { return listing.TargetOmitted(e) && want(e) }
	err := r.Extract(a.ctx, missing, func(e *archive.Entry, rd io.Reader) error {
		if _, err := io.Copy(io.Discard, rd); err != nil {
			a.warn(name, e.Name, err)
		}
		return nil
	})
	if a.ctx.Err() != nil {
		return errInterrupted
	}
	return err
}
