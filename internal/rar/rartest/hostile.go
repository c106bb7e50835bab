package rartest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// OutLimit bounds the output of one file in hostile-input tests.
const OutLimit = 64 << 20

// DecodeAll reads r, a decoder just Reset, to its end with the output
// bounded by OutLimit, and returns the byte count; the end of the stream
// is not an error.
func DecodeAll(r io.Reader) (int64, error) {
	return ReadBounded(r, OutLimit)
}

// ErrNoProgress is what ReadBounded returns for a reader that keeps
// returning neither bytes nor an error, on which io.Copy would spin
// forever. It wraps no archive sentinel, so CheckErr rejects it.
var ErrNoProgress = errors.New("rartest: reads return nothing and no error")

// maxEmptyReads is how many reads in a row may return nothing.
const maxEmptyReads = 100

// ReadBounded reads r until its end, an error, or max bytes, and returns
// the byte count; the end of the stream is not an error. To see whether
// a decoder yields more than size bytes, pass max = size+1.
func ReadBounded(r io.Reader, max int64) (int64, error) {
	var buf [32 << 10]byte
	var n int64
	empty := 0
	for n < max {
		k, err := r.Read(buf[:min(int64(len(buf)), max-n)])
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if k > 0 {
			empty = 0
		} else if empty++; empty >= maxEmptyReads {
			return n, ErrNoProgress
		}
	}
	return n, nil
}

// MaxDict caps the dictionary that Decode asks for, bounding the memory
// of hostile-input tests.
const MaxDict = 64 << 20

// Decode resets d for file f over data, with the dictionary capped at
// MaxDict, and decodes it with DecodeAll.
func Decode(d Resetter, data []byte, f File) (int64, error) {
	f.Dict = min(f.Dict, MaxDict)
	if err := d.ResetFile(bytes.NewReader(data), f); err != nil {
		return 0, err
	}
	return DecodeAll(d)
}

// ReadOneByte reads r to its end with one-byte Read calls.
func ReadOneByte(r io.Reader) ([]byte, error) {
	var got []byte
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		got = append(got, b[:n]...)
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
}

// CheckErr reports an error that wraps neither archive.ErrFormat nor
// archive.ErrUnsupported: corrupt input must be reported as such.
func CheckErr(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrUnsupported) {
		t.Errorf("%s: error %v wraps neither ErrFormat nor ErrUnsupported", what, err)
	}
}

// SweepCorpus decodes every member that keep accepts of every corpus file
// that walk understands, hostile ones included, with a new Decoder per
// archive: no panic, bounded output, errors that CheckErr accepts. With
// checkSize, a member decoded without error must have its full size.
func SweepCorpus(t *testing.T, walk func(path string) ([]File, error), keep func(File) bool, newDecoder func() Resetter, checkSize bool) {
	root := CorpusRoot(t)
	paths, _ := filepath.Glob(filepath.Join(root, "files", "*", "*"))
	n, failed := 0, 0
	for _, p := range paths {
		files, _ := walk(p)
		if len(files) == 0 {
			continue
		}
		d := newDecoder()
		for _, f := range files {
			if !keep(f) {
				continue
			}
			name := filepath.Base(p) + "/" + f.Name
			got, err := Decode(d, f.Data, f)
			CheckErr(t, name, err)
			if checkSize && err == nil && got != f.Size {
				t.Errorf("%s: %d bytes without error, want %d", name, got, f.Size)
			}
			if err != nil {
				failed++
				t.Logf("%s: %v", name, err)
			}
			n++
		}
		d.Close()
	}
	t.Logf("%d members decoded, %d with errors", n, failed)
}

// SweepTruncated decodes f's packed data cut at about steps places: an
// error that CheckErr accepts, or, only when at most slack bytes were cut,
// success with the full size.
func SweepTruncated(t *testing.T, d Resetter, f File, steps, slack int) {
	t.Helper()
	step := max(1, len(f.Data)/steps)
	for cut := 0; cut < len(f.Data); cut += step {
		n, err := Decode(d, f.Data[:cut], f)
		CheckErr(t, f.Name, err)
		CheckLocated(t, f.Name, err, cut)
		if err == nil && n != f.Size {
			t.Fatalf("%s cut at %d: %d bytes without error", f.Name, cut, n)
		}
		if err == nil && cut < len(f.Data)-slack {
			t.Errorf("%s cut at %d of %d: no error", f.Name, cut, len(f.Data))
		}
	}
}

// SweepFlips decodes f's packed data with one byte changed, at about
// steps places in turn: errors that CheckErr accepts, output within the
// size.
func SweepFlips(t *testing.T, d Resetter, f File, steps int) {
	t.Helper()
	step := max(1, len(f.Data)/steps)
	buf := make([]byte, len(f.Data))
	for i := 0; i < len(f.Data); i += step {
		copy(buf, f.Data)
		buf[i] ^= 0x5a
		n, err := Decode(d, buf, f)
		CheckErr(t, f.Name, err)
		CheckLocated(t, f.Name, err, len(buf))
		if f.Size >= 0 && n > f.Size {
			t.Fatalf("%s flipped at %d: %d bytes out, size %d", f.Name, i, n, f.Size)
		}
	}
}

// SweepRandomFlips decodes f's packed data rounds times with one to four
// random bytes changed: errors that CheckErr accepts, output within the
// size.
func SweepRandomFlips(t *testing.T, d Resetter, f File, rng *rand.Rand, rounds int) {
	t.Helper()
	buf := make([]byte, len(f.Data))
	for range rounds {
		copy(buf, f.Data)
		for range 1 + rng.IntN(4) {
			if len(buf) > 0 {
				buf[rng.IntN(len(buf))] ^= byte(1 + rng.IntN(255))
			}
		}
		n, err := Decode(d, buf, f)
		CheckErr(t, f.Name, err)
		if n > f.Size {
			t.Fatalf("%s: %d bytes out, size %d", f.Name, n, f.Size)
		}
	}
}

// SweepGarbage decodes count random inputs of up to 4 KiB as file f (every
// third one as a solid continuation): with f's size the decoder must fail
// when the input runs out; with an unknown size the stream ends with the
// input, error or not.
func SweepGarbage(t *testing.T, d Resetter, f File, rng *rand.Rand, count int) {
	t.Helper()
	for i := range count {
		data := make([]byte, 1+rng.IntN(4096))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		g := f
		g.Solid = i%3 == 2
		n, err := Decode(d, data, g)
		CheckErr(t, "garbage", err)
		if err == nil {
			t.Errorf("garbage %d: %d bytes decoded without error", i, n)
		}
		g.Size = -1
		_, err = Decode(d, data, g)
		CheckErr(t, "garbage, unknown size", err)
	}
}

// CheckLocated reports a read error of corrupt data (one wrapping
// archive.ErrFormat) that does not say where in the packed input of
// inputLen bytes it was found: decoders return *lzcore.CorruptInputError
// with an offset inside the input (its length for a stream that ends
// early).
func CheckLocated(t testing.TB, what string, err error, inputLen int) {
	t.Helper()
	if err == nil || !errors.Is(err, archive.ErrFormat) {
		return
	}
	var ce *lzcore.CorruptInputError
	if !errors.As(err, &ce) {
		t.Errorf("%s: corrupt-data error %v carries no packed offset", what, err)
		return
	}
	if ce.Offset < 0 || ce.Offset > int64(inputLen) {
		t.Errorf("%s: packed offset %d outside the %d-byte input", what, ce.Offset, inputLen)
	}
}
