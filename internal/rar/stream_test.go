package rar

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// streamSentinels are the error classes a Stream must report as the
// reader of a file does.
var streamSentinels = []error{archive.ErrWrongPassword, archive.ErrPasswordRequired, archive.ErrChecksum,
	archive.ErrFormat, archive.ErrUnsupported, archive.ErrLimit, ErrMissingVolume}

// errClass names the sentinels err wraps, for comparing two readers'
// errors.
func errClass(err error) string {
	if err == nil {
		return "ok"
	}
	s := ""
	for _, c := range streamSentinels {
		if errors.Is(err, c) {
			s += "[" + c.Error() + "]"
		}
	}
	return s
}

// streamEntry is what a reading shows of one entry.
type streamEntry struct {
	desc string // the listed fields
	sum  string // the content's SHA-256
	err  string // errClass of the content's reading
}

func describe(e *archive.Entry) string {
	return fmt.Sprintf("%d %q type=%v size=%d packed=%d crc=%v/%08x mtime=%v enc=%v solid=%v method=%q split=%v/%v mode=%v attr=%x link=%q",
		e.Index, e.Name, e.Type, e.Size, e.PackedSize, e.HasCRC32, e.CRC32, e.ModTime.UTC(), e.Encrypted, e.Solid, e.Method,
		e.SplitBefore, e.SplitAfter, e.Mode, e.Attributes, e.LinkTarget)
}

// readAllEntries extracts every entry of r, returning what it shows of
// each in archive order and Extract's error.
func readAllEntries(r archive.Reader) ([]streamEntry, error) {
	var got []streamEntry
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		h := sha256.New()
		_, err := io.Copy(h, rd)
		got = append(got, streamEntry{sum: hex.EncodeToString(h.Sum(nil)), err: errClass(err)})
		// After the content: the link target of a RAR4 link is known now.
		got[len(got)-1].desc = describe(e)
		return nil
	})
	return got, err
}

// firstVolume returns the bytes a pipe brings of unit u: its first (or
// only) file, or the concatenated pieces of a raw split.
func firstVolume(t *testing.T, root string, u *corpus.Unit) []byte {
	t.Helper()
	var buf bytes.Buffer
	members := u.Members[:1]
	if u.Kind == "raw-split" {
		members = u.Members
	}
	for _, m := range members {
		b, err := os.ReadFile(root + "/" + m)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	return buf.Bytes()
}

// maxStreamTestSize bounds the unpacked size of the units
// TestStreamCorpus compares, which it decodes twice.
const maxStreamTestSize = 16 << 20

// TestStreamCorpus reads every RAR unit of the corpus whose signature
// starts the file as a stream (one byte at a time for the small ones, so
// that no read is served by a large buffer by chance) and compares the
// listing, the contents and the errors with the reader of the file: both
// agree entry by entry. For a volume set, the stream has the first volume
// only: the entries whole in it agree, the one continued in the next
// volume fails with ErrMissingVolume, and so does the reading.
func TestStreamCorpus(t *testing.T) {
	root, units := corpusUnits(t)
	n := 0
	for i := range units {
		u := &units[i]
		data := firstVolume(t, root, u)
		if !bytes.HasPrefix(data, sigRAR4[:6]) && !bytes.HasPrefix(data, sigRAR14) {
			continue // an SFX: the opener copies those
		}
		n++
		t.Run(u.Unit, func(t *testing.T) {
			opts := unitOptions(u)
			multi := u.Kind == "rar-volumes"
			var fr archive.Reader
			var ferr error
			if multi || u.Kind == "raw-split" {
				fr, ferr = openUnit(root, u, opts)
			} else {
				fr, ferr = NewReader(bytes.NewReader(data), int64(len(data)), opts)
			}
			var in io.Reader = bytes.NewReader(data)
			if len(data) < 64<<10 {
				in = iotest.OneByteReader(in)
			}
			sr, serr := NewStream(in, opts)
			if ferr != nil {
				if serr == nil {
					_, serr = readAllEntries(sr)
					sr.Close()
				}
				// A corrupt archive may fail at another check: where
				// the file reader knows the volume's size, the stream
				// reads on.
				if serr == nil || u.Expect == "ok" && !strings.Contains(errClass(serr), errClass(ferr)) {
					t.Fatalf("file: %v; stream: %v", ferr, serr)
				}
				return
			}
			defer fr.Close()
			var total int64
			for _, e := range fr.Entries() {
				total += max(e.Size, 0)
			}
			if total > maxStreamTestSize {
				t.Skipf("%d bytes to decode twice: the e2e test of a large piped RAR reads one", total)
			}
			if serr != nil {
				t.Fatalf("stream: %v (file reader opened)", serr)
			}
			defer sr.Close()
			if sr.Info().Format != fr.Info().Format || sr.Info().Solid != fr.Info().Solid ||
				sr.Info().EncryptedHeaders != fr.Info().EncryptedHeaders {
				t.Errorf("info %+v, file %+v", sr.Info(), fr.Info())
			}
			want, wantErr := readAllEntries(fr)
			got, gotErr := readAllEntries(sr)
			if multi {
				if !errors.Is(gotErr, ErrMissingVolume) && fr.Info().Volumes != nil && len(fr.Info().Volumes) > 1 {
					t.Errorf("stream of a first volume: %v, want ErrMissingVolume", gotErr)
				}
				// Entries of the first volume only: the cut one fails.
				cut := 0
				for i, g := range got {
					if i >= len(want) {
						t.Fatalf("entry %d: %s, file reader has %d entries", i, g.desc, len(want))
					}
					if strings.Contains(g.err, ErrMissingVolume.Error()) {
						cut++
						continue
					}
					if g.sum != want[i].sum || g.err != want[i].err {
						t.Errorf("entry %d: %s %s %s\nfile: %s %s %s", i, g.desc, g.sum, g.err, want[i].desc, want[i].sum, want[i].err)
					}
				}
				if cut > 1 {
					t.Errorf("%d entries cut by the missing volume", cut)
				}
				return
			}
			if u.Expect == "ok" && errClass(gotErr) != errClass(wantErr) || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("Extract: %v, file reader: %v", gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%d entries, file reader %d", len(got), len(want))
			}
			for i := range got {
				// An entry cut at the end of the stream continues in a
				// volume that cannot come.
				got[i].err = strings.Replace(got[i].err, "["+ErrMissingVolume.Error()+"]", "", 1)
				if got[i] != want[i] {
					t.Errorf("entry %d:\n%+v\nfile:\n%+v", i, got[i], want[i])
				}
			}
			if sr.Info().PhysicalSize != int64(len(data)) {
				t.Errorf("physical size %d, want %d", sr.Info().PhysicalSize, len(data))
			}
			if err := sr.Extract(context.Background(), nil, func(*archive.Entry, io.Reader) error { return nil }); !errors.Is(err, ErrReadOnce) {
				t.Errorf("second Extract: %v, want ErrReadOnce", err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no RAR units")
	}
}

// TestStreamListing checks that Entries of a stream, which skips the
// entries' data, lists what the file reader lists, and that the stream
// cannot be extracted afterwards.
func TestStreamListing(t *testing.T) {
	root, units := corpusUnits(t)
	for i := range units {
		u := &units[i]
		if u.Kind != "single" || u.Expect != "ok" {
			continue
		}
		data := firstVolume(t, root, u)
		if !bytes.HasPrefix(data, sigRAR4[:6]) && !bytes.HasPrefix(data, sigRAR14) {
			continue
		}
		t.Run(u.Unit, func(t *testing.T) {
			fr, err := NewReader(bytes.NewReader(data), int64(len(data)), unitOptions(u))
			if err != nil {
				t.Skip("the file reader fails too (TestStreamCorpus compares the errors)")
			}
			defer fr.Close()
			sr, err := NewStream(bytes.NewReader(data), unitOptions(u))
			if err != nil {
				t.Fatal(err)
			}
			defer sr.Close()
			if !sr.Streaming() {
				t.Error("a stream not read yet is not Streaming")
			}
			got, want := sr.Entries(), fr.Entries()
			if sr.Err() != nil {
				t.Errorf("Err: %v", sr.Err())
			}
			if len(got) != len(want) {
				t.Fatalf("%d entries, file reader %d", len(got), len(want))
			}
			for i := range got {
				g, w := describe(got[i]), describe(want[i])
				if got[i].LinkTarget == "" && want[i].LinkTarget != "" {
					// A link whose solid predecessors the listing skipped.
					c := *want[i]
					c.LinkTarget = ""
					w = describe(&c)
				}
				if g != w {
					t.Errorf("entry %d:\n%s\nfile:\n%s", i, g, w)
				}
			}
			if sr.Streaming() {
				t.Error("Streaming after the listing")
			}
			if err := sr.Extract(context.Background(), nil, func(*archive.Entry, io.Reader) error { return nil }); !errors.Is(err, ErrReadOnce) {
				t.Errorf("Extract after Entries: %v, want ErrReadOnce", err)
			}
		})
	}
}

// streamAgrees reads data with the reader of a file and as a stream
// (Extract, then Entries of a second stream): no panic, every error
// classified, every read ending; when the file reader reads the whole
// archive without an error, the stream lists and extracts the same.
func streamAgrees(t *testing.T, data []byte) {
	opts := &archive.Options{
		MaxDict:    4 << 20,
		MaxKDFCost: 4,
		Password:   func() (string, error) { return "password", nil },
	}
	read := func(r archive.Reader) ([]streamEntry, error) {
		var got []streamEntry
		err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
			h := sha256.New()
			limit := int64(exerciseUnknownSizeCap)
			if e.Size >= 0 {
				limit = e.Size
			}
			n, err := readBounded(io.TeeReader(rd, h), limit)
			if err == errNoProgress {
				t.Fatalf("entry %q: %d reads in a row returned nothing", e.Name, exerciseMaxEmptyReads)
			}
			if n > limit && e.Size >= 0 {
				t.Fatalf("entry %q yields more than its size %d", e.Name, e.Size)
			}
			checkSentinel(t, "entry "+e.Name, err)
			got = append(got, streamEntry{desc: describe(e), sum: hex.EncodeToString(h.Sum(nil)), err: errClass(err)})
			return nil
		})
		return got, err
	}
	sr, serr := NewStream(bytes.NewReader(data), opts)
	checkSentinel(t, "NewStream", serr)
	var got []streamEntry
	if serr == nil {
		got, serr = read(sr)
		checkSentinel(t, "stream Extract", serr)
		sr.Close()
	}
	if ls, err := NewStream(bytes.NewReader(data), opts); err == nil {
		ls.Entries()
		checkSentinel(t, "stream Entries", ls.Err())
		ls.Close()
	}
	fr, ferr := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if ferr != nil {
		return
	}
	defer fr.Close()
	want, ferr := read(fr)
	if ferr != nil || fr.(*reader).tailErr != nil {
		return
	}
	for _, w := range want {
		if w.err != "ok" {
			return
		}
	}
	if serr != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("stream: %v\n%v\nfile reader:\n%v", serr, got, want)
	}
}

// FuzzStream feeds RAR 1.4, 1.5–4 and 5 archives (small corpus files and
// their mutations) to Stream: no panic, no hang, and an archive that the
// reader of a file reads without error reads the same as a stream.
func FuzzStream(f *testing.F) {
	for _, sig := range [][]byte{sigRAR5, sigRAR4, sigRAR14} {
		for _, s := range seedFiles(f, sig, 16<<10) {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, sigRAR4[:6]) && !bytes.HasPrefix(data, sigRAR14) {
			data = append(bytes.Clone(sigRAR5), data...)
		}
		streamAgrees(t, data)
	})
}

// TestSeqSource reads a stream through a seqSource as the reader's
// windows do: back within the kept bytes, forward past bytes never asked
// for, across the end; a read before the kept bytes fails (unsupported)
// instead of returning wrong bytes.
func TestSeqSource(t *testing.T) {
	data := make([]byte, 3*seqKeep+12345)
	for i := range data {
		data[i] = byte(i * 7 / 5)
	}
	s := &seqSource{r: iotest.HalfReader(bytes.NewReader(data))}
	read := func(off int64, n int) ([]byte, error) {
		p := make([]byte, n)
		k, err := s.ReadAt(p, off)
		return p[:k], err
	}
	for _, c := range []struct {
		off  int64
		n    int
		want int // bytes read
		err  error
	}{
		{0, 100, 100, nil},
		{10, 50, 50, nil},                                   // within what was read
		{5000, maxWindow, maxWindow, nil},                   // forward, skipping
		{6000, 2000, 2000, nil},                             // back, kept
		{int64(2 * seqKeep), seqKeep + 1, seqKeep + 1, nil}, // larger than what is kept
		{int64(3*seqKeep + 1 - 10), 10, 10, nil},            // its end is kept
		{100, 10, 0, errBehind},                             // long gone
		{int64(len(data)) - 5, 10, 5, io.EOF},               // the end
		{int64(len(data)) - 5, 5, 5, nil},                   // kept after the end
		{int64(len(data)) + 5, 5, 0, io.EOF},
	} {
		got, err := read(c.off, c.n)
		if len(got) != c.want || !errors.Is(err, c.err) && err != c.err {
			t.Fatalf("ReadAt(%d, %d): %d bytes, %v; want %d, %v", c.n, c.off, len(got), err, c.want, c.err)
		}
		if len(got) > 0 && !bytes.Equal(got, data[c.off:c.off+int64(len(got))]) {
			t.Fatalf("ReadAt(%d, %d): wrong bytes", c.n, c.off)
		}
		if c.err == errBehind && !errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("a read behind: %v does not wrap ErrUnsupported", err)
		}
	}
}

// TestStreamReadError cuts the stream of corpus RARs (RAR 2.9, solid RAR5
// with -hp headers) at several points with a read error instead of the
// end: the reading ends, and the error reaches the caller (in Extract's
// result or the entry being read), never taken for the end of the archive.
func TestStreamReadError(t *testing.T) {
	root := testenv.CorpusRoot(t)
	errBoom := errors.New("boom")
	for _, c := range [][2]string{
		{"files/sharpcompress/Archives__Rar.solid.rar", ""},
		{"files/rarfile/files__rar5-hpsw.rar", "password"},
		{"files/sharpcompress/Archives__Rar15.rar", ""},
	} {
		data, err := os.ReadFile(filepath.Join(root, c[0]))
		if err != nil {
			t.Fatal(err)
		}
		pw := c[1]
		opts := &archive.Options{Password: func() (string, error) { return pw, nil }}
		for i := 1; i < 8; i++ {
			n := len(data) * i / 8
			src := io.MultiReader(bytes.NewReader(data[:n]), iotest.ErrReader(errBoom))
			s, err := NewStream(src, opts)
			if err == nil {
				var entryErr error
				err = s.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
					if _, rerr := io.Copy(io.Discard, rd); rerr != nil && entryErr == nil {
						entryErr = rerr
					}
					return nil
				})
				s.Close()
				if err == nil {
					err = entryErr
				}
			}
			if !errors.Is(err, errBoom) {
				t.Errorf("%s cut at %d: %v, want the read error", c[0], n, err)
			}
		}
	}
}
