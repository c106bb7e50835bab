// Package printable makes text that comes from an archive or a file name
// safe to print on a terminal: control characters (C0, DEL, C1), Unicode
// bidirectional formatting characters and invalid UTF-8 are shown as Go
// escapes (\x1b, \r, \u202e, \xff), so that a hostile entry name or
// archive comment cannot move the cursor, set the window title, clear the
// screen or disguise itself. Every line garc prints that holds such text
// goes through String or Append (a text of several lines line by line).
package printable
