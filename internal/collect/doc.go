// Package collect turns the inputs of `garc a` into the entries an
// archive stores: the files and directories named on the command line
// (directories with everything below them), wildcard inputs such as
// "*.txt" (matched in their directory, or in every directory below it
// with Recursive), filtered by a selection function and by exclusion
// patterns with 7-Zip's -x!/-xr! rules (Options.Exclude, see
// wildcard.Pattern: matched against stored names, an excluded directory
// is not walked), plus standard input as one entry.
//
// # Walking and order
//
// Collect returns the list; Walk passes the same items one at a time to
// a function as it finds them and keeps no list (a tar is written that
// way, in memory that does not grow with the number of files): it holds
// the entries of the directories it is in, read and sorted by name, and
// remembers names only where a later input can give them again. Items
// come input by input, each directory before its contents, the contents
// sorted by name; with ByteOrder (--reproducible) in byte order of the
// whole names, which a walk keeps by putting off the contents of a
// directory "d" until its siblings that sort before "d/" ("d-x", "d.x")
// are passed, and by merging the inputs' walks.
//
// # Names
//
// Entries are named as 7-Zip names them: a relative input keeps its
// cleaned relative path ("dir/sub" stores "dir/sub/..." without a separate
// "dir" entry), while an absolute input, or one that climbs with "..",
// stores only its last component. "." stores the directory's contents
// without an entry for itself. Names use '/' as the separator.
//
// # Metadata
//
// Every item records its size, modification, change and access times and
// its attributes in 7-Zip's unix convention: the Windows bits (0x10
// directory, 0x20 archive, 0x01 read-only) with the full unix st_mode in
// the high 16 bits and the 0x8000 flag that announces it. On unix
// systems it also records the owner, link count, device and inode and
// allocated blocks of the same stat (Item.Owner), which the tar writer
// needs, so that no file is stat'ed twice.
//
// # Links
//
// By default symbolic links are followed: the entry gets what the link
// points to, and directories reached through links are walked with a
// guard against loops. With StoreSymlinks (7-Zip -snl) a link is stored
// as a link whose data is its target. Special files (devices, FIFOs,
// sockets) are skipped with a warning, and so are garc's own temporary
// files (tempname.Is): an archive or extracted file still being written,
// or one an interrupted run left.
package collect
