// Package manpage writes garc's man page (roff) from the cobra command
// tree, so that it never disagrees with --help: `garc man > garc.1`
// (`make man`). cobra's own generator lives in a separate module
// (cobra/doc, with go-md2man); this writes the few roff requests a man
// page needs: the synopsis from each command's use line, the commands'
// long help as paragraphs (indented lines kept as they are), and their
// switches as tagged paragraphs.
package manpage
