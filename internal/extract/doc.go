// Package extract writes archive entries to disk. It is the only package
// of garc that creates files, and it enforces the security model below for
// every format; format readers hand it entries and content readers and
// never touch the file system themselves.
//
// # Security model
//
// An archive is untrusted input. Nothing it contains may create, change
// or read a file outside the destination directory (Options.Dest), and
// nothing is ever written through a symbolic link.
//
// Names. Stored names are cleaned with '/' as the separator: the format
// readers turn a '\' that separates (ZIP and RAR entries from DOS and
// Windows hosts, RAR 1.4–4.x, 7z entries with Windows attributes only)
// into '/', and a '\' left is a character of the name (tar names, entries
// written on Unix), which Windows gets as '_' (SanitizeWindowsName). A
// leading "./" is dropped. An absolute prefix — a leading '/', a UNC
// prefix ("//server/share/x") or a drive letter ("C:x", "C:/x") — is removed
// and the entry is written inside the destination, as 7-Zip, unrar and tar
// do; Options.Warn is told (with an error wrapping ErrNotice: information,
// not a failure), and nothing is ever written at the absolute
// location. Empty names, NUL bytes and names that leave the destination
// after lexical cleaning ("../x", "a/../../x", "/../x") are refused with
// ErrRefused and reported through Options.Warn, except that a directory
// with an empty name ("", or "/" once its root is removed) is the
// destination itself, as GNU tar reads it ("."), like "./". On Windows each path
// component additionally passes through
// SanitizeWindowsName (reserved device names, among them CONIN$ and COM¹,
// characters <>:"|?*\, control characters, trailing dots and spaces).
//
// Path components. Before an entry is written, every directory between
// the destination and the entry is examined with Lstat, and missing ones
// are created one at a time. A symbolic link in that chain refuses the
// entry, whether the archive created it earlier or it already existed:
// this defeats the classic "make a -> /tmp, then write a/x" attack (as in
// unrar's CVE-2022-30333). The destination directory itself may be a link;
// it is the user's choice. Windows junctions and other reparse points count
// as links. A directory found real is not examined again in the same run:
// nothing the extractor does can turn a directory into a link, because
// files are created with O_EXCL, which fails on any existing name, and
// files and links are otherwise renamed into place, which fails on a
// directory.
//
// Files. A file whose name does not exist yet is created at its final
// name with O_EXCL and, where available, O_NOFOLLOW (on Windows
// CREATE_NEW, not following a reparse point): O_EXCL fails on any name
// that exists, a symbolic link included, which is never followed. Until
// its content is complete the new file counts as a temporary file: when
// the content reader fails (a checksum error in the middle of the file,
// a decoding error) or writing fails, it is removed again, so that the
// name holds nothing, as before the run; Abort and RemoveTemporaries
// remove it too, and an entry whose file they removed fails. When the
// name exists (O_EXCL decides, so an archive holding a name twice and a
// file that appears meanwhile are both caught), the overwrite policy
// applies, and content goes to a new temporary file
// (".garc-XXXXXXXX.tmp", created with O_EXCL and O_NOFOLLOW) in the
// target directory; the name of the temporary file renamed into place
// just before in the same directory is taken again, O_EXCL deciding
// whether it is still free (else a random name is made). Only when the
// content reader ends with io.EOF, meaning the format verified the
// checksum, is the temporary file renamed to the final name, so an
// existing file is replaced whole or not at all; rename replaces an
// existing file or symbolic link at that name rather than writing through
// it. On any error the temporary file is removed, unless
// Options.KeepBroken asks to keep the partial file under its final name
// (a new file then stays where it is); Abort removes temporary files on
// interruption, and RemoveTemporaries those of every Extractor of the
// process, from any goroutine, for a process that must exit at once.
// While it is written, a new file is visible under its final name with
// part of its content, as with tar. Existing
// files are left alone unless Options.Overwrite says otherwise
// (OverwriteAll; OverwriteRename writes "name_1.ext", and
// OverwriteRenameExisting moves the existing file to "name_1.ext" once the
// new content is verified, as 7-Zip's -aou and -aot; OverwriteAsk lets
// Options.Ask, which is given the existing path and the entry, keep,
// replace or rename it, for this file or all later ones); by
// default the entry is reported as skipped (ErrSkipped, together with
// ErrExists).
//
// Output files are written through raw descriptors rather than os.File
// (no registration with the runtime poller); on Linux, when the
// destination's file system is local (tmpfs, ext4, xfs, btrfs and the
// like, not NFS or FUSE) and there are several Ps, with raw system
// calls (openat, write, futimens, close), which keep their P: through the
// scheduler, a write longer than a tick of its monitor lost the P at
// nearly every call. On Linux they are created,
// examined and renamed relative to cached descriptors of their
// directories (the last 32 used). A new file's name is not examined
// beforehand (O_EXCL does it), and its times are set on the open
// descriptor: a small new file costs four system calls on Linux, openat,
// write, futimens, close (GNU tar makes six as root: it adds fchown and
// fchmod), and no allocation. A directory entry is made with mkdir
// before anything is examined (mkdir fails on any existing name, a link
// included, which is then examined), and on Linux Finish examines only
// the directories whose mode needs a chmod (which follows links), setting
// the others' times with utimensat, which does not. What the run placed is recorded in
// compact records for Rollback; the map of written names that hard
// links and copies look up is built from them at the first such entry.
//
// WriteQueued lets a second goroutine create the files while the caller
// decodes the next entries: it reads an entry's content (up to 64 KiB)
// into memory, where the format verifies its checksum, and queues it; the
// writer goroutine applies exactly Write's rules to the queued entries,
// in order (a new file created at its name, and so on). Outcomes and warnings come back to the caller in entry order
// through a callback. At most four batches of 64 entries or 1 MiB are
// queued.
//
// Permissions. Files get the stored unix permission bits, or 0644 (0755
// for directories) when none were stored, with the write bits removed for
// a Windows read-only attribute. Setuid, setgid and sticky bits are never
// restored. The bits pass through the process umask, as with any file
// created by os.OpenFile. Modification and access times are restored;
// directories get theirs (and their modes, if this run created them) in
// Finish, deepest first, after their contents are written. Symbolic links
// get their own times on Linux (utimensat without following); elsewhere
// they keep the time of their creation. On Linux times are passed as
// seconds and nanoseconds (a time of 2300 stays 2300); elsewhere through
// os.Chtimes, brought within the years 1678 to 2262 it can express.
//
// Sparse files. The runs of zeros of a sparse entry (Entry.IsSparse:
// tar's GNU and pax sparse files) are skipped with a seek
// instead of written, and a file ending in one is truncated to its size:
// the file system makes holes, as GNU tar and bsdtar do, so a small tar
// of a huge sparse file does not fill the disk. The holes the reader
// knows (archive.HoleSkipper) are skipped without being read, so that
// extraction takes time in proportion to the data and the map, not to
// the size; and the file's size is set before its content is read, so
// that a size the file system cannot hold is refused at once (ErrCreate,
// nothing left).
//
// Symbolic links. With LinksSafe (the default) a link is created only if
// its target is relative, and, resolved lexically from the link's
// directory, stays inside the destination. The target is then followed
// through what exists on disk, component by component (at most 40 links):
// a link already in the destination that is absolute or climbs out of it
// refuses the new link. A ".." after a normal component ("sub/..") must
// climb back over a real directory that exists and that the target names
// itself; over a name that does not exist yet, a file or a link it is
// refused, because a later link at that name (sub -> ".") would make it
// lead further than its lexical form suggests, in this run or a later
// one. A real directory is never replaced by the extractor, so with these
// rules no chain of created links leads outside. Links are made
// under a temporary name and renamed into place. LinksSkip skips all links
// (ErrSkipped); LinksUnsafe creates them as stored. LinksCopy applies
// LinksSafe's rules and writes, instead of each link, a copy of the file
// its target names once that is extracted (Finish writes the copies whose
// targets come later); a link to a directory is skipped. On Windows the
// target is also read as Windows reads it ('\' separates; a leading
// separator — the drive's root, UNC, \\?\, \\.\, a junction's \??\ — or
// a drive letter makes it absolute; a component of dots and spaces climbs
// like ".."), and refused when that reading leaves the destination. Where
// the system does not create a link (Windows without the privilege, or
// Wine, whose CreateSymbolicLinkW reports success and makes nothing: the
// link is looked for after creating it) the entry is reported as skipped.
//
// Hard links and file copies (RAR5) may only point at an entry extracted
// earlier in this run, found by its cleaned name in a map of what was
// written; the target is checked with Lstat to still be a regular file.
// Hard links use os.Link and fall back to copying; copies always copy.
// A hard link to a symbolic link made in this run (GNU tar and bsdtar
// store those) is made as a symbolic link with the same target, under
// the link policy for its own place. Anything else is refused.
//
// Anti-items (7z deletion markers) are ignored.
//
// # Failures and rollback
//
// An entry that fails (refused, skipped, a checksum error, a name the
// system rejects) leaves no directory that was created only for it:
// Write removes such directories again, deepest first, if they are still
// empty. Rollback undoes a whole run, for a run that failed as a whole
// (a wrong or missing password): it removes every file, link and hard link
// the run created where nothing existed, moves files renamed aside by
// OverwriteRenameExisting back, and removes the directories it created
// (the destination too, when New created it), deepest first. What existed
// before the run is never removed; a file replaced under OverwriteAll
// stays replaced.
//
// # Errors
//
// Write returns nil, an error wrapping ErrRefused (unsafe entry: warning,
// exit code 1), ErrSkipped (policy: warning; also ErrExists when an
// existing file was kept), ErrCreate (the operating
// system failed: exit code 9), or the content reader's own error (for
// example wrapping archive.ErrChecksum).
package extract
