// Package security holds garc's hostile-input tests; it has no non-test
// code. The tests run the built garc binary and the in-process readers
// against archives that try to escape the destination directory:
//
//   - 7z archives made at test time with 7zz and then patched (names
//     renamed in the uncompressed header, CRCs recomputed) so that they
//     hold "../" names, absolute names, backslash names, a symbolic link
//     followed by a file "through" it, and link targets that leave the
//     destination;
//   - the RAR fixtures of the shared corpus marked SECURITY or
//     LINK-ESCAPE;
//   - truncation and bit-flip sweeps over a few real 7z and RAR archives
//     of the corpus, decoded in process with a per-case time limit, where
//     any error is acceptable but a panic or a hang is not.
//
// The rule checked everywhere: nothing is created or changed outside the
// destination, nothing is written through a symbolic link, and a refused
// entry is reported (exit code 1) by name.
package security
