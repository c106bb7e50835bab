// Package selection chooses the entries a command works on.
//
// Positional PATTERNS and --include select entries; --exclude removes
// them; an argument "@FILE" reads patterns from FILE, one per line. The
// rules follow 7-Zip's wildcards:
//
//   - '*' matches any run of characters and '?' one character, within one
//     path component ('/' or '\' separate components). "*.*" needs a dot;
//     use "*" for everything. Matching is case-sensitive.
//   - A pattern is matched from the archive root, as 7-Zip does without
//     -r: "*.txt" selects only top-level .txt files, "docs/*.txt" those in
//     docs. With -r (--recursive) a pattern may match starting at any
//     depth ("*.txt" then selects every .txt file); a "**/" prefix does
//     the same for one pattern (7-Zip's -ir!).
//   - A pattern that matches a directory selects everything beneath it.
//   - An --exclude pattern without a '/' applies at any depth (like
//     7-Zip's -xr!); one with a '/' is anchored at the root.
//
// A selected hard link or RAR file copy brings the entry it refers to,
// since it is made from that file once written.
//
// When patterns were given and nothing matched, NoMatch's error names
// the patterns that matched nothing and the usual cause (garc exits 10).
package selection
