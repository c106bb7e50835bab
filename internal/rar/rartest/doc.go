// Package rartest is test support for garc's RAR decoder packages
// (unpack5, unpack3, unpack20, unpack15); only _test.go files import it.
//
// It holds:
//   - minimal header walkers (WalkRAR14, WalkRAR4, WalkRAR5) that find the
//     packed data of the file entries of single-volume archives without
//     encrypted headers: RAR 1.4's "RE~^" layout, the RAR 1.5-4.x block
//     chain of the technote's MAIN_HEAD, FILE_HEAD and ENDARC_HEAD
//     records, and RAR5's vint-coded header records;
//   - corpus helpers on internal/corpus: CorpusRoot/CorpusPath (skip when
//     the corpus is absent), Units and CheckUnits (decode against the
//     listings' sha256), Samples, and ContainerSweep (units through the
//     RAR container, which the caller passes in as rar.OpenFile: rartest
//     cannot import the container, which imports the decoders);
//   - hostile-input sweeps over a Resetter (a decoder that starts a file
//     from its File fields): SweepCorpus, SweepTruncated, SweepFlips,
//     SweepRandomFlips, SweepGarbage, CheckErr, CheckUnknownSize, and the
//     fuzz body FuzzSolidPair with AddFuzzSeeds;
//   - benchmark helpers: BenchDecode, BenchExtract (comparison runs; the
//     caller opens the other implementation, so that rardecode stays in
//     _test.go files) and CPUTimer, which reports process CPU time per
//     operation, meaningful on a loaded machine when wall time is not;
//   - BitWriter, for tests that build packed streams by hand.
package rartest
