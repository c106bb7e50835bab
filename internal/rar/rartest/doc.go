// Package rartest is test support for garc's RAR decoder packages
// (unpack5, unpack3, unpack20, unpack15); only _test.go files import it.
//
// It holds minimal header walkers that find the packed data of the file
// entries of single-volume archives without encrypted headers (RAR 1.4's
// "RE~^" layout, the RAR 1.5-4.x block chain of the technote's MAIN_HEAD,
// FILE_HEAD and ENDARC_HEAD records, and RAR5's vint-coded header
// records), corpus helpers built on internal/corpus, and a benchmark
// timer that reports process CPU time per operation, which stays
// meaningful on a loaded machine when wall time does not.
package rartest
