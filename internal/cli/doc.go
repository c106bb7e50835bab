// Package cli implements the garc command line: the cobra commands x, e,
// l, t, a and d as thin wrappers over internal/opener (format detection),
// internal/extract (safe extraction) and the format readers; the argv
// normaliser that accepts 7-Zip's and unrar's switch spellings; the exit
// codes; password sources and the no-echo prompt. The progress display
// is internal/progress, the listings internal/listing.
//
// # Command line
//
//	garc x ARCHIVE [PATTERNS...] [-o DIR]   extract with full paths
//	garc e ARCHIVE [PATTERNS...] [-o DIR]   extract without paths
//	garc l ARCHIVE [PATTERNS...] [--format=table|slt|json]
//	garc t ARCHIVE [PATTERNS...]            test checksums
//	garc x ARCHIVE [PATTERNS...] DIR/       unrar's trailing destination
//	garc x -so ARCHIVE [PATTERNS...]        extract to stdout
//	garc a ARCHIVE FILES...                 create a 7z archive
//	garc d ARCHIVE PATTERNS...              delete entries from a 7z archive
//
// ARCHIVE may be a wildcard, as in 7-Zip's `7z x "*.7z"` and unrar's
// `unrar x '*.rar'` (quote it so that the shell passes it on): when no
// file has that literal name and its last path component contains '*' or
// '?', it is matched against the files of its directory (see
// forEachArchive in archives.go) and every match is processed in name
// order. Parts of multi-part archives other than the first are skipped —
// RAR volumes after the first (by the RAR5 volume number, the RAR 3.0+
// first-volume flag, or the .rNN/.partN names of older sets) and .002+
// raw splits (opener.IsLaterVolume) — and so is any file already read as
// a volume of an earlier match. A failing archive is reported and the next
// one processed; the exit code is the most severe one. No match is exit 2;
// a wildcard in the directory part is a usage error. `l --format=json`
// then prints one JSON line per archive.
//
// As with 7-Zip's -o, every '*' in the destination is replaced by the
// archive's name without its extension and part number (outputDir), so
// `garc x '*.7z' -o'*'` extracts each archive into a directory of its own.
//
// For x and e, as with unrar (`unrar x archive.rar dest/`), a last
// positional argument ending in '/' or '\' is the destination directory
// when no -o is given; with -o it remains a pattern.
//
// x and e with --stdout (7-Zip's -so) write the contents of the selected
// files, one after the other in archive order, to stdout and create
// nothing; directories and links contribute nothing. Diagnostics stay on
// stderr. Checksums are verified as the data passes: a mismatch is exit 3
// (the bytes have been written by then, as with 7-Zip). -so with -o is a
// usage error.
//
// # Test summary
//
// Unless -q is given, t prints on stderr, in 7-Zip's words, "Testing
// archive: NAME" and then "Everything is Ok" or "Sub items Errors: N" for
// each archive, and at the end (for several archives) "Archives: N", "OK
// archives: N", "Archives with Errors: N", "Can't open as archive: N",
// followed by the totals "Folders: N" (when any), "Files: N", "Size: N"
// (bytes decoded) and "Compressed: N" (archive bytes). Failing entries are
// named on stderr.
//
// # 7-Zip and unrar switches
//
// Before cobra parses the arguments, argv.Normalize rewrites 7-Zip's and
// unrar's spellings (-oDIR, -pSECRET, -aoa, -mx9, -x!P, unrar's lb, vt,
// p …) to canonical long flags and moves the command word to the front;
// internal/argv documents the table. A switch it refuses reaches the
// command as argv.UnsupportedFlag and fails with exit 7 and its reason.
//
// # Start-up
//
// A tiny archive costs little more than the process's start (issue 13),
// so a run builds only the cobra command it executes (commandSpecs in
// root.go; the whole tree for help, completion, man and errors), and Main
// runs on one processor (GOMAXPROCS 1, set by cmd/garc's package oneproc
// before the other packages initialize) until the run needs more: at once
// for a, d and --threads above 1, otherwise once the run has used 10 ms
// of CPU time from Main's start (processors.go).
// A run of a or d with --threads 1 (-mmt1) keeps the one processor to
// its end.
//
// # Selecting entries
//
// Positional PATTERNS and --include select entries, --exclude removes
// them, with 7-Zip's wildcard rules (internal/selection). When patterns
// were given and nothing matched, the exit code is 10 and the message
// names the patterns that matched nothing (Selector.NoMatch).
//
// # Overwriting
//
// Existing files are never overwritten silently. With -y or
// --overwrite=all they are replaced; --overwrite=skip skips them quietly,
// --overwrite=rename (-aou) writes the new file under a free name
// ("name_1.ext"), --overwrite=rename-existing (-aot) renames the existing
// file so and writes the new one under its own name, as 7-Zip does,
// --overwrite=never skips them with a warning (exit 1),
// and --overwrite=ask asks. Without any of these garc asks when stdin is
// a terminal. When stdin is not a terminal, or reaches its end at a
// question, asking behaves as --overwrite=never: the file is skipped with
// a warning (exit 1).
//
// # Extracting
//
// x and e hand each decoded entry to extract.WriteQueued: small entries
// are read (and their checksums verified) at once and their files created
// by a second goroutine while the next ones decode; the outcomes come
// back in entry order to entryRun.done, which counts them for the summary
// and reports failures, and Flush delivers the last ones after Extract.
// Device and FIFO entries a tar reader lists but never hands out for
// extraction (its Skipped) are named in one warning per archive (exit 1).
//
// # Memory
//
// All archives of a run share one archive.MemoryBudget of --max-dict
// bytes for their decoders and parsed headers, and the garbage
// collector's soft limit is --max-dict + 256 MiB (less a margin for what
// it does not see), so that a live heap of millions of entries is not
// allowed to grow to twice its size. The command layer itself keeps
// nothing per entry: t and -so allocate nothing per entry, x only what
// internal/extract does.
//
// # Passwords
//
// The password comes from --password (-p), --password-file FILE (its
// first line), or --password-stdin (the first line of stdin), in that
// order. Otherwise, when an archive turns out to need one and stdin is a
// terminal, garc prompts on stderr and reads it without echo. It never
// prompts when stdin is not a terminal: the run fails with exit 11, as it
// does for a wrong password.
//
// # Progress
//
// A progress display (internal/progress) is drawn on stderr when stderr
// is a terminal (--progress=auto), always with --progress=always, and
// never with -q or --progress=never; --progress=list names each file
// instead. Its total is the selected entries' size, unknown for a
// compressed tar read in one pass, and for a the input files' size.
// Standard output is the same with and without it.
//
// # Exit codes
//
// The codes are defined in exitcodes.go, whose exitCodeTable `garc
// --help` prints and README.md repeats (TestExitCodeTables keeps the
// three in step). exitCodeFor maps errors to them: usage errors to 7,
// archive.ErrWrongPassword and ErrPasswordRequired to 11 (before
// ErrChecksum, so a wrong password that surfaces as a checksum mismatch is
// 11), archive.ErrLimit to 8, extract.ErrCreate, archivefile.ErrWrite and
// a failed write to standard output (errStdout) to 9, extract.ErrRefused
// and ErrSkipped to 1, archive.ErrChecksum to 3, no match to 10, and
// cancellation (SIGINT, SIGTERM, SIGHUP) to 255.
//
// When several entries (or archives, with a wildcard) fail differently
// the most severe code wins, in the order 255, 7, 11, 8, 9, 2, 3, 10, 1.
// Diagnostics go to stderr as "garc: ARCHIVE: ENTRY: cause" (a file
// error as "NAME: cause", userText). One rule holds for every command
// (streams.go): stdout carries only listings and -so data; summaries,
// notes, prompts and the progress display go to stderr, the display
// cleared before each (messageWriter), and with -so or p there is no
// display unless --progress=on (progressMode). Per archive, a line is printed once and the errors
// of entries that share an earlier entry's cause are counted (repeats):
// "garc: ARCHIVE: and 7 more files with the same error as ENTRY".
//
// # Listings
//
// The table, `l -slt` and `l --format=json` are written by
// internal/listing, which documents them.
//
// # Creating archives
//
// `garc a` parses its flags into CreateOptions (the inputs, and the 7z
// writer's sevenzip.WriteOptions) and calls create, which collects the
// inputs (internal/collect) and passes them to sevenzip.Update; `garc d`
// calls sevenzip.Update with the entries to delete. Both write through
// internal/archivefile, so a failed or interrupted run leaves the
// previous archive byte-identical.
package cli
