package conformance

import (
	"context"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// unitRunner performs garc's l, t and x on one unit: in this process
// through the packages (inProcess), or through a garc binary run as a
// child process (binaryRunner, selected with GARC_BINARY). The checks of
// checkUnit are the same for both.
type unitRunner interface {
	// open opens (in process) or lists (l, binary) the archive.
	open() error
	// names returns the names of the entries open found, anti-items
	// left out.
	names() []string
	// test reads every entry to the end (t): the per-entry errors and
	// the error of the run.
	test(ctx context.Context) (entryErrs []error, err error)
	// extract extracts every entry into dest through the safe extractor
	// (x -y --links=safe).
	extract(ctx context.Context, dest string) extractResult
	// close releases what open holds.
	close()
}

// inProcess runs the readers and the extractor in this process.
type inProcess struct {
	root    string
	u       *corpus.Unit
	maxDict int64
	r       archive.Reader
	// read says the reader has been read once: extract opens the archive
	// anew, as `garc x` does.
	read bool
}

func (p *inProcess) open() error {
	r, err := openUnit(p.root, p.u, p.maxDict)
	p.r = r
	return err
}

func (p *inProcess) names() []string {
	var out []string
	for _, e := range p.r.Entries() {
		if !e.Anti {
			out = append(out, e.Name)
		}
	}
	return out
}

func (p *inProcess) test(ctx context.Context) ([]error, error) {
	p.read = true
	return testAll(ctx, p.r)
}

func (p *inProcess) extract(ctx context.Context, dest string) extractResult {
	if p.read {
		p.r.Close()
		r, err := openUnit(p.root, p.u, p.maxDict)
		if err != nil {
			p.r = nil
			return extractResult{err: err}
		}
		p.r = r
	}
	p.read = true
	return extractAll(ctx, p.r, dest)
}

func (p *inProcess) close() {
	if p.r != nil {
		p.r.Close()
	}
}
