package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/extract"
)

// BinaryEnv names the environment variable that makes the harness drive
// a garc binary instead of the packages: a command line split at white
// space, e.g. "wine /tmp/garc.exe" (the Windows lane) or "bin/garc".
const BinaryEnv = "GARC_BINARY"

// binaryCommand returns the command of BinaryEnv split into words, or nil
// when it is not set.
func binaryCommand() []string {
	if cmd := strings.Fields(os.Getenv(BinaryEnv)); len(cmd) > 0 {
		return cmd
	}
	return nil
}

// binaryDeadline bounds one run of the binary whose context has no
// deadline of its own; it only stops a hung run.
const binaryDeadline = 2 * time.Minute

// silentTries is how often a run of the binary that fails without any
// output is made.
const silentTries = 3

// binaryRunner runs l, t and x as child processes of the command cmd
// (the binary and the words before it, such as "wine").
type binaryRunner struct {
	cmd     []string
	archive string // absolute path of the unit's archive
	u       *corpus.Unit
	maxDict int64
	entries []string
}

// exitError is a non-zero exit of the binary. Is maps the documented exit
// codes to the archive package's sentinels, so that checkUnit's
// errors.Is tests mean the same for both runners: 8 is archive.ErrLimit,
// 11 a wrong or missing password, and 2 with "unsupported" in the
// message archive.ErrUnsupported.
type exitError struct {
	args   []string
	code   int
	stderr string
}

func (e *exitError) Error() string {
	return fmt.Sprintf("garc %s: exit %d: %s", strings.Join(e.args, " "), e.code, strings.TrimSpace(e.stderr))
}

// Is reports whether the exit stands for target.
func (e *exitError) Is(target error) bool {
	switch target {
	case archive.ErrLimit:
		return e.code == 8
	case archive.ErrPasswordRequired, archive.ErrWrongPassword:
		return e.code == 11
	case archive.ErrUnsupported:
		return e.code == 2 && strings.Contains(e.stderr, archive.ErrUnsupported.Error())
	}
	return false
}

// run runs the binary with the unit's password and dictionary limit
// before args, and returns its standard output and standard error and an
// *exitError for a non-zero exit.
func (b *binaryRunner) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, binaryDeadline)
		defer cancel()
	}
	full := append([]string{}, args[0], "--progress=never")
	if b.u.Password != "" {
		full = append(full, "--password="+b.u.Password)
	}
	if b.maxDict > 0 {
		full = append(full, "--max-dict="+strconv.FormatInt(b.maxDict, 10))
	}
	full = append(full, args[1:]...)
	var out, errb bytes.Buffer
	var rerr error
	for try := 1; ; try++ {
		cmd := exec.CommandContext(ctx, b.cmd[0], append(b.cmd[1:], full...)...)
		cmd.Stdin = nil // not a terminal: no question is asked
		cmd.WaitDelay = 5 * time.Second
		out.Reset()
		errb.Reset()
		cmd.Stdout, cmd.Stderr = &out, &errb
		rerr = cmd.Run()
		// garc never fails without saying why on standard error: a
		// silent failure is the command around it (Wine's loader, once
		// in a few thousand starts under load), tried again at most
		// twice. A garc that did fail silently still fails the unit.
		if rerr == nil || out.Len() > 0 || errb.Len() > 0 || ctx.Err() != nil || try == silentTries {
			break
		}
	}
	if ctx.Err() != nil {
		return out.String(), errb.String(), fmt.Errorf("garc %s: %w", strings.Join(full, " "), ctx.Err())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(rerr, &ee):
		return out.String(), errb.String(), &exitError{args: full, code: ee.ExitCode(), stderr: errb.String()}
	case rerr != nil:
		return out.String(), errb.String(), rerr
	}
	return out.String(), errb.String(), nil
}

// open lists the archive with l --format=json and keeps the entry names.
func (b *binaryRunner) open() error {
	out, _, err := b.run(context.Background(), "l", "--format=json", b.archive)
	if err != nil {
		return err
	}
	names, err := jsonNames(out)
	b.entries = names
	return err
}

// jsonNames returns the paths of the entries of l --format=json, anti
// items left out.
func jsonNames(out string) ([]string, error) {
	var names []string
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var doc struct {
			Entries []struct {
				Path string `json:"path"`
				Anti bool   `json:"anti"`
			} `json:"entries"`
		}
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("l --format=json: %w", err)
		}
		for _, e := range doc.Entries {
			if !e.Anti {
				names = append(names, e.Path)
			}
		}
	}
	return names, nil
}

func (b *binaryRunner) names() []string { return b.entries }

// test runs t; a failure is the run's error (the binary does not say
// which entries failed in a form worth parsing).
func (b *binaryRunner) test(ctx context.Context) ([]error, error) {
	_, _, err := b.run(ctx, "t", b.archive)
	return nil, err
}

// extract runs x -y --links=safe into dest. The warnings on standard
// error name the refused entries; other diagnostics about entries are
// per-entry errors, and an exit above 1 is the run's error.
func (b *binaryRunner) extract(ctx context.Context, dest string) extractResult {
	_, stderr, err := b.run(ctx, "x", "-y", "--links=safe", "-o", dest, b.archive)
	var res extractResult
	res.refused, res.entryErr = parseDiagnostics(stderr, b.entries)
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.code != 1) {
		res.err = err
	}
	if err != nil && len(res.refused) == 0 && len(res.entryErr) == 0 && res.err == nil {
		res.err = err // exit 1 without a diagnostic about an entry
	}
	return res
}

func (b *binaryRunner) close() {}

// parseDiagnostics sorts the "garc: …" lines of standard error: those
// saying that one of the entries names was refused give its name;
// notices (an entry extracted, e.g. with its absolute path made
// relative) are left out, as the in-process run leaves them out; other
// lines are returned as errors.
func parseDiagnostics(stderr string, names []string) (refused []string, errs []error) {
	for _, line := range strings.Split(stderr, "\n") {
		msg, ok := strings.CutPrefix(line, "garc: ")
		if !ok || strings.Contains(msg, ": "+extract.ErrNotice.Error()+": ") {
			continue // the closing summary, or a notice
		}
		if i := strings.Index(msg, ": refused: "); i >= 0 {
			head := msg[:i]
			found := ""
			for _, n := range names {
				if (head == n || strings.HasSuffix(head, ": "+n)) && len(n) > len(found) {
					found = n
				}
			}
			if found != "" {
				refused = append(refused, found)
				continue
			}
		}
		errs = append(errs, errors.New(msg))
	}
	return refused, errs
}
