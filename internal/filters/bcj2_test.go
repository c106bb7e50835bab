package filters

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

var bcj2ID = []byte{3, 3, 1, 0x1B}

// bcj2Fixture holds the four streams 7-Zip made for data.
type bcj2Fixture struct {
	data    []byte
	streams [][]byte
}

func makeBCJ2(t testing.TB, data []byte, methods ...string) bcj2Fixture {
	t.Helper()
	arc := make7z(t, data, methods...)
	s, err := folderStreams(arc, bcj2ID)
	if err != nil || len(s) != 4 {
		t.Fatalf("cannot find BCJ2 streams: %v", err)
	}
	return bcj2Fixture{data, s}
}

func decodeBCJ2(s [][]byte, size int64, wrap func(io.Reader) io.Reader) ([]byte, error) {
	if wrap == nil {
		wrap = func(r io.Reader) io.Reader { return r }
	}
	r, err := NewBCJ2Reader(wrap(bytes.NewReader(s[0])), wrap(bytes.NewReader(s[1])),
		wrap(bytes.NewReader(s[2])), wrap(bytes.NewReader(s[3])), size)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func bcj2Inputs(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewSource(11))
	in := map[string][]byte{}
	for _, n := range []int{1, 5, 6, 100, 70000} {
		b := make([]byte, n)
		rng.Read(b)
		plantX86(rng, b)
		in["planted-"+string(rune('a'+len(in)))] = b
	}
	in["e8-run"] = bytes.Repeat([]byte{0xE8}, 1000)
	if code := goBinary(t, 1<<20); len(code) > 0 {
		in["go-binary"] = code
	}
	return in
}

func TestBCJ2Against7zz(t *testing.T) {
	need7zz(t)
	layouts := [][]string{
		{"-m0=BCJ2", "-m1=Copy"},
		{"-m0=BCJ2", "-m1=Copy", "-m2=Copy", "-m3=Copy", "-mb0s0:1", "-mb0s1:2", "-mb0s2:3"},
	}
	for name, data := range bcj2Inputs(t) {
		for li, layout := range layouts {
			if li == 1 && name != "go-binary" {
				continue
			}
			f := makeBCJ2(t, data, layout...)
			if name == "go-binary" && len(f.streams[1])+len(f.streams[2]) == 0 {
				t.Errorf("%s: 7-Zip converted no call or jump; the test proves little", name)
			}
			got, err := decodeBCJ2(f.streams, int64(len(data)), nil)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s layout %d: err %v, equal %v (%d of %d bytes)", name, li, err, bytes.Equal(got, data), len(got), len(data))
			}
			got, err = decodeBCJ2(f.streams, int64(len(data)), iotest.OneByteReader)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: 1-byte input reads: err %v", name, err)
			}
			// Unknown size: until the main stream ends.
			got, err = decodeBCJ2(f.streams, -1, nil)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: unknown size: err %v, %d bytes", name, err, len(got))
			}
			// 1-byte output reads.
			r, _ := NewBCJ2Reader(bytes.NewReader(f.streams[0]), bytes.NewReader(f.streams[1]),
				bytes.NewReader(f.streams[2]), bytes.NewReader(f.streams[3]), int64(len(data)))
			got, err = io.ReadAll(iotest.OneByteReader(r))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: 1-byte output reads: err %v", name, err)
			}
		}
	}
}

func TestBCJ2Corrupt(t *testing.T) {
	need7zz(t)
	data := goBinary(t, 200<<10)
	f := makeBCJ2(t, data, "-m0=BCJ2", "-m1=Copy")
	for i := range f.streams {
		if len(f.streams[i]) < 8 {
			continue
		}
		s := append([][]byte(nil), f.streams...)
		s[i] = s[i][:len(s[i])/2]
		_, err := decodeBCJ2(s, int64(len(data)), nil)
		if !errors.Is(err, archive.ErrFormat) {
			t.Errorf("stream %d truncated: err = %v, want ErrFormat", i, err)
		}
	}
	s := append([][]byte(nil), f.streams...)
	s[3] = append([]byte{1}, s[3][1:]...)
	if _, err := decodeBCJ2(s, int64(len(data)), nil); !errors.Is(err, archive.ErrFormat) {
		t.Errorf("bad range coder start: err = %v", err)
	}
	if _, err := NewBCJ2Reader(bytes.NewReader(nil), bytes.NewReader(nil), bytes.NewReader(nil), bytes.NewReader(nil), -5); err == nil {
		t.Error("negative size accepted")
	}
	// A reader error is passed on, not turned into ErrFormat.
	boom := errors.New("boom")
	r, _ := NewBCJ2Reader(iotest.ErrReader(boom), bytes.NewReader(f.streams[1]), bytes.NewReader(f.streams[2]), bytes.NewReader(f.streams[3]), 100)
	if _, err := io.ReadAll(r); !errors.Is(err, boom) {
		t.Errorf("reader error: got %v", err)
	}
}

// TestBCJ2Corpus decodes the Copy-coded BCJ2 archives of the corpus, whose
// headers are not compressed, and compares with 7zz's extraction.
func TestBCJ2Corpus(t *testing.T) {
	need7zz(t)
	root := filepath.Join(testenv.CorpusRoot(t), "files", "libarchive")
	for _, name := range []string{"test_read_format_7zip_bcj2_copy_1.7z", "test_read_format_7zip_bcj2_copy_2.7z"} {
		path := filepath.Join(root, name)
		arc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exec.Command(need7zz(t), "x", "-so", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		s, err := folderStreams(arc, bcj2ID)
		if err != nil {
			if name == "test_read_format_7zip_bcj2_copy_1.7z" {
				t.Fatalf("%s: %v", name, err)
			}
			t.Logf("%s: header layout not handled by the test parser: %v", name, err)
			continue
		}
		// The folder may hold several files; decode its whole output.
		got, err := decodeBCJ2(s, -1, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.HasPrefix(got, want) && !bytes.Equal(got, want) {
			t.Fatalf("%s: output differs from 7zz (%d vs %d bytes)", name, len(got), len(want))
		}
		t.Logf("%s: %d bytes decoded", name, len(got))
	}
}
