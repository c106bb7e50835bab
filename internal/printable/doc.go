// Package printable makes text that comes from an archive or a file name
// safe to print on a terminal: control characters (C0, DEL, C1), Unicode
// format characters (bidirectional overrides, embeddings, isolates and
// marks, zero-width characters, the byte order mark, tag characters: the
// category Cf), the line and paragraph separators and invalid UTF-8 are
// shown as Go escapes (\x1b, \r, \u202e, \xff), so that a hostile entry
// name or archive comment cannot move the cursor, set the window title,
// clear the screen, forge a line or disguise itself (Unsafe says which
// characters). Every value garc prints that holds such text goes through
// String or Append (a text of several lines line by line); the listings
// write all their lines through a Writer as well, which escapes whatever
// a value's own escaping missed, keeping only the line feeds.
package printable
