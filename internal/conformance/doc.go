// Package conformance runs garc's readers and its safe extractor over the
// shared corpus of real archives (../shared/corpus, indexed by units.tsv)
// and compares the results with the corpus's ground-truth listings, as the
// corpus README prescribes. It is test support only; the harness lives in
// conformance_test.go and uses the helpers here.
//
// Per unit, in process (opener.Open, archive.Reader, extract.Extractor):
//
//   - expect=ok with a listing and no gt_note: `t` reads every entry
//     without error; `x` into a temporary directory produces exactly the
//     listed paths, sizes, SHA-256 digests, directories and symlink
//     targets; `l` lists the same names.
//   - gt_note "LINK-ESCAPE: NAME …": the link NAME is refused
//     (extract.ErrRefused) and everything else matches the listing, except
//     that other listed links may be refused too when their targets leave
//     the destination lexically or climb with ".." over a name the archive
//     does not make a directory ("sub/..": the safe policy refuses these,
//     as 7-Zip does).
//   - gt_note naming a dictionary that needs "exit 8": opening or reading
//     fails with archive.ErrLimit under the default limit.
//   - any other gt_note (SECURITY fixtures, archives the source expects to
//     fail): no panic, nothing created outside the destination, and no
//     symbolic link inside it that resolves outside.
//   - expect=ok without a listing: the archive opens and lists; reading
//     fails, if at all, only with unsupported-method or password errors.
//     For RAR units whose unrar_t column says RARLAB's unrar fails them
//     too, a clean error is accepted (unrar is the reference for RAR).
//   - error-*: open, test or extract fails; no panic; nothing outside the
//     destination.
//   - unknown: the run ends within a bounded time (context deadline 10 s,
//     MaxDict 256 MiB) without a panic and without writing outside.
//
// With -short, x is left out for units whose listed output exceeds
// 256 MiB (t and l still run); `make conformance` runs the full check.
//
// With GARC_BINARY set to a command (e.g. "wine /tmp/garc.exe", the
// Windows lane of .ci/windows), the same checks drive that garc binary
// instead: l --format=json for the names, x -y --links=safe, whose
// warnings name the refused entries and which checks every checksum, and
// t for the units that are not extracted; exit codes 8 and 11 stand for
// the limit and password errors. Units then run two at a time. The output
// tree is compared on this side.
//
// GARC_KNOWN_DIFFERENCES names a platform's list of expected differences
// (corpus/unit TAB pattern TAB reason, see KnownDifferences): a listed
// unit must show at least one problem and every problem must match the
// pattern, so that a difference that disappears or changes fails too.
//
// Units that do not pass yet are listed, with the reason, in
// testdata/known-failures.tsv (unit path TAB reason). A listed unit that
// passes is logged, and fails the run under GARC_STRICT_KNOWN=1 so the
// list stays honest; every unlisted unit must pass. TestConformance prints
// a per-format table (format, units, pass, fail, known) on stdout.
package conformance
