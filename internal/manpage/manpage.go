package manpage

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Section is a man page section of its own after OPTIONS: a title
// ("EXIT STATUS") and text in the form roffParagraphs takes (blank lines
// separate paragraphs, indented lines are kept as they are).
type Section struct {
	Title, Text string
}

// Write writes the man page of root and its visible subcommands for
// garc version v built on date (RFC 3339; only the day is shown), with
// the sections given after OPTIONS.
func Write(w io.Writer, root *cobra.Command, v, date string, sections ...Section) error {
	if len(date) >= 10 {
		date = date[:10]
	}
	var b strings.Builder
	fmt.Fprintf(&b, ".TH GARC 1 %s %s \"User Commands\"\n", roffQuote(date), roffQuote("garc "+v))
	b.WriteString(".SH NAME\ngarc \\- " + roffText(root.Short) + "\n")
	b.WriteString(".SH SYNOPSIS\n")
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() || c.Name() == "help" {
			continue
		}
		use := c.UseLine()[len("garc "):]
		if c.HasAvailableSubCommands() {
			var subs []string
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() {
					subs = append(subs, sub.Name())
				}
			}
			use = c.Name() + " " + strings.Join(subs, "|")
		}
		fmt.Fprintf(&b, ".B garc\n%s\n.br\n", roffText(use))
	}
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(roffParagraphs(root.Long))
	b.WriteString(".SH COMMANDS\n")
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() || c.Name() == "help" {
			continue
		}
		fmt.Fprintf(&b, ".SS %s\n", roffQuote(c.Name()+" \u2014 "+c.Short))
		if len(c.Aliases) > 0 {
			fmt.Fprintf(&b, "Also: %s.\n.PP\n", roffText(strings.Join(c.Aliases, ", ")))
		}
		if c.Long != "" {
			b.WriteString(roffParagraphs(c.Long))
		}
		if fl := c.LocalNonPersistentFlags(); fl.HasAvailableFlags() {
			b.WriteString(".PP\nSwitches:\n")
			b.WriteString(roffFlags(fl.FlagUsagesWrapped(0)))
		}
	}
	if pf := root.PersistentFlags(); pf.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS\nThese switches apply to every command.\n")
		b.WriteString(roffFlags(pf.FlagUsagesWrapped(0)))
	}
	for _, sec := range sections {
		fmt.Fprintf(&b, ".SH %s\n", roffQuote(sec.Title))
		b.WriteString(roffParagraphs(sec.Text))
	}
	b.WriteString(".SH SEE ALSO\n.BR 7z (1),\n.BR unrar (1)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// roffFlags turns pflag's usage lines ("  -o, --output DIR   text") into
// tagged paragraphs.
func roffFlags(usages string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(usages, "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		flag, text, _ := strings.Cut(line, "   ")
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffText(strings.TrimSpace(flag)), roffText(strings.TrimSpace(text)))
	}
	return b.String()
}

// roffParagraphs writes text as roff: blank lines become paragraph
// breaks, indented lines are kept as they are (tables, examples).
func roffParagraphs(text string) string {
	var b strings.Builder
	b.WriteString(".PP\n")
	inNoFill := false
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			if inNoFill {
				b.WriteString(".fi\n")
				inNoFill = false
			}
			b.WriteString(".PP\n")
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"):
			if !inNoFill {
				b.WriteString(".nf\n")
				inNoFill = true
			}
			b.WriteString(roffText(line) + "\n")
		default:
			if inNoFill {
				b.WriteString(".fi\n")
				inNoFill = false
			}
			b.WriteString(roffText(line) + "\n")
		}
	}
	if inNoFill {
		b.WriteString(".fi\n")
	}
	return b.String()
}

// roffText escapes a line of text for roff: backslashes, hyphens (so
// that switches copy and paste as ASCII), a leading period or quote, and
// every character outside ASCII as a named Unicode escape (\[u2014]),
// which groff renders in any output encoding.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) {
		var b strings.Builder
		for _, r := range s {
			if r < utf8.RuneSelf {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, `\[u%04X]`, r)
			}
		}
		s = b.String()
	}
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote quotes an argument of a roff request.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
}
