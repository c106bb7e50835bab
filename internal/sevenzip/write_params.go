package sevenzip

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/ppmd"
)

// ErrMethodParam is wrapped by the errors of malformed or unknown method
// parameters ("-m0=LZMA2:fb=999"), so that callers can report them as
// command-line errors.
var ErrMethodParam = errors.New("invalid method parameter")

// methodParam is one KEY=VALUE (or KEYVALUE) parameter of a method spec.
type methodParam struct{ key, value string }

// splitMethod splits 7-Zip's method spec "NAME:KEY=VALUE:…" into the
// upper-cased name and its parameters. A parameter may also be written
// without "=", as 7-Zip accepts ("d64m", "fb64", "o8", "mem256m"): the key
// is then the leading letters.
func splitMethod(spec string) (string, []methodParam, error) {
	parts := strings.Split(spec, ":")
	name := strings.ToUpper(strings.TrimSpace(parts[0]))
	var ps []methodParam
	for _, p := range parts[1:] {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "" {
			return "", nil, fmt.Errorf("%w: empty parameter in %q", ErrMethodParam, spec)
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			i := strings.IndexFunc(p, func(r rune) bool { return r < 'a' || r > 'z' })
			if i < 0 {
				i = len(p)
			}
			k, v = p[:i], p[i:]
		}
		ps = append(ps, methodParam{k, v})
	}
	return name, ps, nil
}

// setupMethod sets the method and its coder settings from the level, the
// DictSize option and the method spec's parameters (which win).
func (w *writer) setupMethod() error {
	o := &w.opts
	if o.Level <= 0 || o.Level > 9 {
		o.Level = 5
	}
	name, params, err := splitMethod(o.Method)
	if err != nil {
		return err
	}
	bad := func(p methodParam, why string) error {
		return fmt.Errorf("%w: %s:%s=%s: %s", ErrMethodParam, name, p.key, p.value, why)
	}
	// The level parameter applies first: the others refine it.
	for _, p := range params {
		if p.key == "x" {
			n, err := strconv.Atoi(p.value)
			if err != nil || n < 1 || n > 9 {
				return bad(p, "want a level from 1 to 9")
			}
			o.Level = n
		}
	}
	m, ok := writeMethodNames[name]
	if !ok {
		return &archive.UnsupportedError{What: "7z write method " + name}
	}
	w.method = m
	switch m {
	case writePPMd:
		w.ppmdOrder, w.ppmdMem = ppmd.LevelProps7z(o.Level)
		if o.DictSize != 0 {
			if err := checkPPMdMem(o.DictSize); err != nil {
				return err
			}
			w.ppmdMem = uint32(o.DictSize)
		}
	case writeDeflate:
		w.flateLevel = deflateLevel(o.Level)
	case writeBZip2:
		w.bzLevel = bzip2Level(o.Level)
	}
	w.lopts = lzma.LevelOptions(o.Level)
	if o.DictSize != 0 && (m == writeLZMA || m == writeLZMA2) {
		if err := checkDictSize(o.DictSize); err != nil {
			return fmt.Errorf("%w: dictionary %d bytes: %v", ErrMethodParam, o.DictSize, err)
		}
		w.lopts.DictSize = uint32(o.DictSize)
		w.lopts.BlockSize = 0
	}
	w.lopts.Threads = max(o.Threads, 1)
	// mf before mc (choosing a finder resets the cycles to its default)
	// and c after d (a dictionary resets the block size to its default).
	order := func(k string) int {
		switch k {
		case "mf":
			return 0
		case "c":
			return 2
		}
		return 1
	}
	for pass := 0; pass < 3; pass++ {
		for _, p := range params {
			if order(p.key) != pass {
				continue
			}
			if err := w.applyParam(p); err != nil {
				return bad(p, err.Error())
			}
		}
	}
	if w.method == writeLZMA2 || w.method == writeLZMA {
		// Let the codec check the combination (fb, mc, lc+lp for LZMA2 …).
		var err error
		if w.method == writeLZMA2 {
			_, err = lzma.NewWriter2(nil, w.lopts)
		} else {
			_, err = lzma.NewWriter(nil, w.lopts)
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrMethodParam, name, err)
		}
	}
	return nil
}

// applyParam applies one method parameter, 7-Zip's names and meanings:
//
//	all methods       x=LEVEL (applied first), mt=N (threads)
//	LZMA, LZMA2       d=SIZE dictionary, fb=N fast bytes, mc=N match-finder cycles,
//	                  mf=hc4|hc5|bt4|bt5, lc=N, lp=N, pb=N, a=0|1 (fast or optimal parsing),
//	                  c=SIZE LZMA2 block size
//	PPMd              o=N model order, mem=SIZE model memory
//	BZip2             d=SIZE block size (100k to 900k), pass=N (accepted; one pass is made)
//
// SIZE is a number with an optional b, k, m or g suffix; without one, a
// number up to 40 means that power of two (7-Zip's "d=24" is 16 MiB).
func (w *writer) applyParam(p methodParam) error {
	num := func(lo, hi int) (int, error) {
		n, err := strconv.Atoi(p.value)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("want a number from %d to %d", lo, hi)
		}
		return n, nil
	}
	if p.key == "x" {
		return nil // applied before the defaults
	}
	if p.key == "mt" {
		n, err := num(1, 256)
		if err != nil {
			if b, ok := parseOnOff(p.value); ok {
				n, err = 1, nil
				if b {
					n = max(w.opts.Threads, 1)
				}
			} else {
				return err
			}
		}
		w.opts.Threads = n
		w.lopts.Threads = n
		return nil
	}
	var err error
	switch w.method {
	case writeLZMA, writeLZMA2:
		lo := &w.lopts
		switch p.key {
		case "d":
			var d int64
			if d, err = ParseMethodSize(p.value); err == nil {
				if err := checkDictSize(d); err != nil {
					return err
				}
				lo.DictSize = uint32(d)
				lo.BlockSize = 0
			}
		case "fb":
			lo.FastBytes, err = num(5, 273)
		case "mc":
			lo.Cycles, err = num(1, 1<<30)
		case "lc":
			lo.LC, err = num(0, 8)
		case "lp":
			lo.LP, err = num(0, 4)
		case "pb":
			lo.PB, err = num(0, 4)
		case "mf":
			switch p.value {
			case "hc4", "hc5", "bt4", "bt5":
				lo.MatchFinder = p.value
				lo.Cycles = 0 // the finder's own default unless mc says
			default:
				return errors.New("want hc4, hc5, bt4 or bt5")
			}
		case "a":
			var a int
			if a, err = num(0, 1); err == nil {
				lo.Algorithm = lzma.AlgorithmFast
				if a == 1 {
					lo.Algorithm = lzma.AlgorithmOptimal
				}
			}
		case "c":
			if w.method != writeLZMA2 {
				return errors.New("only LZMA2 has a block size")
			}
			var c int64
			if c, err = ParseMethodSize(p.value); err == nil {
				if c < 1<<16 || c > 1<<32 {
					return errors.New("want a block size from 64 KiB to 4 GiB")
				}
				lo.BlockSize = c
			}
		case "eos":
			// 7z stores the unpacked size; an end marker adds nothing.
		default:
			return errors.New("unknown parameter")
		}
	case writePPMd:
		switch p.key {
		case "o":
			w.ppmdOrder, err = num(2, 32)
		case "mem":
			var m int64
			if m, err = ParseMethodSize(p.value); err == nil {
				if m > int64(ppmd.MaxMemSize) {
					return fmt.Errorf("want at most %d bytes", uint32(ppmd.MaxMemSize))
				}
				err = checkPPMdMem(m)
				w.ppmdMem = uint32(m)
			}
		default:
			return errors.New("unknown parameter")
		}
	case writeBZip2:
		switch p.key {
		case "d":
			var d int64
			if d, err = ParseMethodSize(p.value); err == nil {
				if d < 100000 || d > 900000 {
					return errors.New("want a block size from 100k to 900k bytes")
				}
				w.bzLevel = int((d + 99999) / 100000)
			}
		case "pass":
			_, err = num(1, 10)
		default:
			return errors.New("unknown parameter")
		}
	default:
		return errors.New("the method takes no parameters")
	}
	return err
}

// checkPPMdMem checks a PPMd model memory size as 7-Zip accepts it.
func checkPPMdMem(m int64) error {
	if m < 1<<16 || m > ppmd.MaxMemSize || m&3 != 0 {
		return fmt.Errorf("%w: PPMd memory size %d: want 64 KiB to %d, a multiple of 4", ErrMethodParam, m, uint32(ppmd.MaxMemSize))
	}
	return nil
}

// checkDictSize checks an LZMA or LZMA2 dictionary size.
func checkDictSize(d int64) error {
	if d < lzma.MinDictSize || d > lzma.MaxDictSize {
		return fmt.Errorf("want a dictionary from %d KiB to %d MiB", lzma.MinDictSize>>10, lzma.MaxDictSize>>20)
	}
	return nil
}

// ParseMethodSize parses a 7-Zip size value: a number with an optional b,
// k, m or g suffix (powers of 1024); without a suffix a number up to 40
// is a power of two, as in "-md=24" or "d=24" (16 MiB).
func ParseMethodSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	suffix := false
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'b':
			suffix = true
		case 'k':
			mult, suffix = 1<<10, true
		case 'm':
			mult, suffix = 1<<20, true
		case 'g':
			mult, suffix = 1<<30, true
		}
		if suffix {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<40)/mult {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	if !suffix && v <= 40 {
		return 1 << v, nil
	}
	return v * mult, nil
}

// parseOnOff reads 7-Zip's on/off spellings.
func parseOnOff(s string) (bool, bool) {
	switch s {
	case "on", "+", "true":
		return true, true
	case "off", "-", "false":
		return false, true
	}
	return false, false
}
