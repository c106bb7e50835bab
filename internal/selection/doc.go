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
//     depth ("*.txt" then selects every .txt file). A prefix sets one
//     pattern's recursion whatever -r says: "**/" at any depth (7-Zip's
//     -xr!, -ir!), "./" from the root only (-xr-!, -ir-!); before an '@'
//     ("**/@FILE") it applies to each line of the list.
//   - Leading components without wildcards, except the last, anchor the
//     pattern at the root even when it is recursive: "logs/*.log" with -r
//     matches below the top-level logs only, as in 7-Zip.
//   - A pattern that matches a directory selects everything beneath it;
//     one ending in '/' matches directories only.
//   - Excludes follow the same rules (--exclude "*.log" without -r drops
//     only top-level .log files, as 7-Zip's -x!*.log does; -xr!*.log
//     drops them at every depth). The matching itself is
//     wildcard.Pattern's, which internal/collect applies to garc a's
//     input files.

// A selected hard link or RAR file copy brings the entry it refers to,
// since it is made from that file once written.
//
// When patterns were given and nothing matched, NoMatch's error names
// the patterns that matched nothing and the usual cause (garc exits 10).
package selection
