package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

const (
	knownFile       = "testdata/known-failures.tsv"
	knownMoreFile   = "testdata/known-failures-more.tsv"
	unknownDeadline = 10 * time.Second
	// binaryUnknownDeadline is unknownDeadline with a binary: two or three
	// processes per unit, each a Windows process starting under Wine in
	// the Windows lane, two units at a time.
	binaryUnknownDeadline = 60 * time.Second
	unknownMaxDict        = 256 << 20
	// shortMaxOutput is the largest listed output x writes in -short mode.
	shortMaxOutput = 256 << 20
	// watchdog bounds a unit that ignores its context; it only stops a
	// hung run, it is not a timing assertion.
	watchdog = 120 * time.Second
)

type tally struct{ units, pass, fail, known int }

// TestConformance runs every unit of ../shared/corpus (RAR and 7z) as a
// subtest and prints the per-format table.
func TestConformance(t *testing.T) {
	runCorpus(t, testenv.CorpusRoot(t), knownFile)
}

// TestConformanceMore does the same for ../shared/corpus-more (ZIP, TAR and
// the single-stream formats), with its own known-failures list.
func TestConformanceMore(t *testing.T) {
	runCorpus(t, testenv.MoreCorpusRoot(t), knownMoreFile)
}

func runCorpus(t *testing.T, root, knownFile string) {
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	known, err := KnownFailures(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	// The expected differences of a platform (GARC_KNOWN_DIFFERENCES,
	// the Windows lane's list) name units as "corpus/unit", the corpus
	// being the directory's name.
	corpusName := filepath.Base(root)
	var diffs map[string]Difference
	if f := os.Getenv(DifferencesEnv); f != "" {
		if diffs, err = KnownDifferences(f); err != nil {
			t.Fatal(err)
		}
	}
	strict := os.Getenv("GARC_STRICT_KNOWN") == "1"
	// A binary runs as a child process: two units at a time keep both
	// processors busy while one waits for its process to start.
	parallel := binaryCommand() != nil
	inCorpus := map[string]bool{}
	table := map[string]*tally{}
	var mu sync.Mutex // table and fixed, with parallel units
	var fixed []string
	all := func(t *testing.T) {
		for i := range units {
			u := &units[i]
			inCorpus[u.Unit] = true
			tl := table[u.Format]
			if tl == nil {
				tl = &tally{}
				table[u.Format] = tl
			}
			t.Run(u.Unit, func(t *testing.T) {
				if parallel {
					t.Parallel()
				}
				problems := runUnit(t, root, u)
				mu.Lock()
				defer mu.Unlock()
				tl.units++
				reason, isKnown := known[u.Unit]
				diff, isDiff := diffs[corpusName+"/"+u.Unit]
				switch {
				case isDiff:
					// Listed differences are always checked: each must
					// still be seen, and explain every problem.
					if bad := diff.Check(problems); bad != "" {
						tl.fail++
						t.Errorf("expected difference (%s): %s\n  %s", diff.Reason, bad, strings.Join(problems, "\n  "))
					} else {
						tl.known++
						t.Logf("expected difference (%s):\n  %s", diff.Reason, strings.Join(problems, "\n  "))
					}
				case len(problems) > 0 && isKnown:
					tl.known++
					t.Logf("known failure (%s):\n  %s", reason, strings.Join(problems, "\n  "))
				case len(problems) > 0:
					tl.fail++
					for _, p := range problems {
						t.Error(p)
					}
				case isKnown:
					tl.pass++
					fixed = append(fixed, u.Unit)
					msg := fmt.Sprintf("listed as a known failure (%s) but passes: remove it from %s", reason, knownFile)
					if strict {
						t.Error(msg)
					} else {
						t.Log(msg)
					}
				default:
					tl.pass++
				}
			})
		}
	}
	if parallel {
		// The group waits for its parallel subtests.
		t.Run("unit", all)
	} else {
		all(t)
	}
	for unit := range known {
		if !inCorpus[unit] {
			t.Errorf("%s lists %s, which is not a corpus unit", knownFile, unit)
		}
	}
	for unit := range diffs {
		if rest, ok := strings.CutPrefix(unit, corpusName+"/"); ok && !inCorpus[rest] {
			t.Errorf("%s lists %s, which is not a unit of %s", os.Getenv(DifferencesEnv), unit, corpusName)
		}
	}
	printTable(table)
	if len(fixed) > 0 {
		sort.Strings(fixed)
		fmt.Printf("known failures that now pass (%d): %s\n", len(fixed), strings.Join(fixed, " "))
	}
}

func printTable(table map[string]*tally) {
	var formats []string
	for f := range table {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	fmt.Printf("%-10s %6s %6s %6s %6s\n", "format", "units", "pass", "fail", "known")
	var sum tally
	for _, f := range formats {
		c := table[f]
		if c.units == 0 {
			continue
		}
		fmt.Printf("%-10s %6d %6d %6d %6d\n", f, c.units, c.pass, c.fail, c.known)
		sum.units += c.units
		sum.pass += c.pass
		sum.fail += c.fail
		sum.known += c.known
	}
	fmt.Printf("%-10s %6d %6d %6d %6d\n", "total", sum.units, sum.pass, sum.fail, sum.known)
}

// runUnit checks one unit and returns what went wrong. It runs the work
// in a goroutine so that a hung reader is reported instead of stalling
// the whole run.
func runUnit(t *testing.T, root string, u *corpus.Unit) []string {
	tmp := t.TempDir()
	done := make(chan []string, 1)
	go func() {
		var problems []string
		if err := protect(func() error {
			problems = checkUnit(root, tmp, u)
			return nil
		}); err != nil {
			problems = append(problems, err.Error())
		}
		done <- problems
	}()
	select {
	case p := <-done:
		return p
	case <-time.After(watchdog):
		return []string{fmt.Sprintf("did not finish within %v", watchdog)}
	}
}

// unitKind classifies a unit by the README's rules.
type unitKind int

const (
	kindExact      unitKind = iota // ok, listing, no gt_note
	kindLinkEscape                 // LINK-ESCAPE gt_note
	kindLimit                      // needs a dictionary above the default limit
	kindSafety                     // other gt_note: only safety is required
	kindOKNoList                   // ok without a listing
	kindError                      // error-* without gt_note
	kindUnknown                    // unknown
)

func classify(u *corpus.Unit) unitKind {
	switch {
	case u.Expect == "unknown":
		return kindUnknown
	case strings.HasPrefix(u.GTNote, "LINK-ESCAPE:"):
		return kindLinkEscape
	case strings.Contains(u.GTNote, "exit 8"):
		return kindLimit
	case u.GTNote != "":
		return kindSafety
	case strings.HasPrefix(u.Expect, "error"):
		return kindError
	case u.Expected == "":
		return kindOKNoList
	}
	return kindExact
}

func checkUnit(root, tmp string, u *corpus.Unit) []string {
	kind := classify(u)
	ctx := context.Background()
	maxDict := int64(0)
	if kind == kindUnknown || kind == kindSafety || kind == kindError {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, deadline())
		defer cancel()
		maxDict = unknownMaxDict
	}
	sb, err := newSandbox(tmp)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	r := newRunner(root, u, maxDict)
	openErr := r.open()
	if isPanic(openErr) {
		return []string{"open: " + openErr.Error()}
	}
	defer r.close()

	switch kind {
	case kindExact, kindLinkEscape:
		if openErr != nil {
			return []string{"open: " + openErr.Error()}
		}
		list, err := corpus.Listing(root, u.Expected)
		if err != nil {
			return []string{err.Error()}
		}
		want := expectedTree(list, strings.Contains(u.GTTool, "-so"))
		var escName string // LINK-ESCAPE: the entry holding the escaping link
		if kind == kindLinkEscape {
			base := strings.Fields(strings.TrimPrefix(u.GTNote, "LINK-ESCAPE:"))[0]
			for _, n := range r.names() {
				if n == base || strings.HasSuffix(n, "/"+base) {
					escName = n
				}
			}
			if escName == "" {
				fail("l: the escaping link %s is not listed", base)
			} else if _, ok := want[escName]; !ok {
				// The reference tool left it out; it is still an entry.
				want[escName] = "escaping link"
			}
		}
		problems = append(problems, listNames(r.names(), want)...)
		// A binary's x checks every checksum as its t does: t runs for
		// the units x is not run on, which saves a third of the
		// processes (Windows processes under Wine, in the lane).
		skipX := testing.Short() && listingBytes(list) > shortMaxOutput
		if _, binary := r.(*binaryRunner); !binary || skipX {
			entryErrs, err := r.test(ctx)
			for _, e := range entryErrs {
				fail("t: %v", e)
			}
			if err != nil {
				fail("t: %v", err)
			}
		}
		if skipX {
			// -short: t and l only; x would write more than shortMaxOutput.
			break
		}
		res := r.extract(ctx, sb.dest)
		for _, e := range res.entryErr {
			fail("x: %v", e)
		}
		if res.err != nil {
			fail("x: %v", res.err)
		}
		if kind == kindLinkEscape {
			refused := map[string]bool{}
			for _, ref := range res.refused {
				refused[ref] = true
			}
			if escName != "" && !refused[escName] {
				fail("x: the escaping link %s was not refused (refused: %q)", escName, res.refused)
			}
			delete(want, escName)
			// Other links the reference tool created but whose targets
			// leave the destination (absolute, drive letter, "..") are
			// refused too under the safe policy.
			// So are links whose target climbs with ".." over a name the
			// archive does not make a directory ("sub/.." where sub is
			// missing): a later "sub -> ." would turn them into the
			// destination's parent, so the safe policy refuses them, as
			// 7-Zip does ("Dangerous link path").
			for name := range refused {
				d, ok := want[name]
				if !ok || !strings.HasPrefix(d, "symlink -> ") {
					continue
				}
				target := strings.TrimPrefix(d, "symlink -> ")
				if escapesLexically(name, target) || climbsOverNonDirectory(name, target, withParents(want)) {
					delete(want, name)
				}
			}
		} else if len(res.refused) > 0 {
			fail("x: refused %q", res.refused)
		}
		got, err := walkTree(sb.dest)
		if err != nil {
			fail("x: walking the output: %v", err)
		}
		problems = append(problems, diffTrees(withParents(want), got, 10)...)

	case kindLimit:
		if openErr != nil {
			if !errors.Is(openErr, archive.ErrLimit) {
				fail("open: %v, want a limit error", openErr)
			}
			break
		}
		entryErrs, err := r.test(ctx)
		limited := errors.Is(err, archive.ErrLimit)
		for _, e := range entryErrs {
			limited = limited || errors.Is(e, archive.ErrLimit)
		}
		if !limited {
			fail("t: no limit error under the default --max-dict (errors: %v %v)", err, entryErrs)
		}

	case kindOKNoList:
		// RARLAB's unrar is the reference for RAR: where its own t fails,
		// a clean error is as good as success (the error-unit rules).
		unrarFails := strings.HasPrefix(u.UnrarT, "fail")
		if openErr != nil {
			if !unrarFails && !errors.Is(openErr, archive.ErrPasswordRequired) && !errors.Is(openErr, archive.ErrWrongPassword) {
				fail("open: %v", openErr)
			}
			break
		}
		entryErrs, err := r.test(ctx)
		if err != nil {
			entryErrs = append(entryErrs, err)
		}
		for _, e := range entryErrs {
			if !unrarFails && !errors.Is(e, archive.ErrUnsupported) && !errors.Is(e, archive.ErrPasswordRequired) && !errors.Is(e, archive.ErrWrongPassword) {
				fail("t: %v", e)
			}
		}

	case kindError:
		failed := openErr != nil
		if openErr == nil {
			entryErrs, err := r.test(ctx)
			failed = err != nil || len(entryErrs) > 0
			res := r.extract(ctx, sb.dest)
			failed = failed || res.err != nil || len(res.entryErr) > 0
		}
		if !failed {
			fail("expected an error (%s), got none", u.Expect)
		}

	case kindSafety, kindUnknown:
		if openErr == nil {
			r.test(ctx)
			r.extract(ctx, sb.dest)
		}
		if ctx.Err() != nil {
			fail("did not finish within %v", deadline())
		}
	}
	problems = append(problems, sb.escaped()...)
	for _, l := range escapingLinks(sb.dest) {
		fail("link resolves outside the destination: %s", l)
	}
	return problems
}

// deadline bounds the run of a unit of the kinds that must merely end.
func deadline() time.Duration {
	if binaryCommand() != nil {
		return binaryUnknownDeadline
	}
	return unknownDeadline
}

// newRunner returns the runner of a unit: the binary of GARC_BINARY when
// it is set, else the packages in this process.
func newRunner(root string, u *corpus.Unit, maxDict int64) unitRunner {
	if cmd := binaryCommand(); cmd != nil {
		abs, err := filepath.Abs(u.Path(root))
		if err != nil {
			abs = u.Path(root)
		}
		return &binaryRunner{cmd: cmd, archive: abs, u: u, maxDict: maxDict}
	}
	return &inProcess{root: root, u: u, maxDict: maxDict}
}

// listingBytes is the total size of the files in a listing.
func listingBytes(list []corpus.ExpectedEntry) int64 {
	var n int64
	for _, e := range list {
		n += e.Size
	}
	return n
}
