package opener

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// sample is the 7z archive the repository ships.
const sample = "../../testdata/sample.7z"

// contents reads every entry of r: name → content.
func contents(t *testing.T, r archive.Reader) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		b, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		out[e.Name] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOpenSampleVariants(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatalf("the repository's sample archive: %v", err)
	}
	r, err := Open(sample, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := contents(t, r)
	if r.Info().Format != archive.Format7z || len(want) == 0 || r.Info().SFXOffset != 0 {
		t.Fatalf("sample: %+v, %d entries", r.Info(), len(want))
	}
	fr := r.(*fileReader)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fr.files.(*os.File).Stat(); err == nil {
		t.Error("Close left the archive file open")
	}

	dir := t.TempDir()
	// Behind an executable stub.
	stub := append([]byte("MZ\x90\x00"), make([]byte, 5000)...)
	sfx := filepath.Join(dir, "sample.exe")
	os.WriteFile(sfx, append(stub, data...), 0o644)
	r, err = Open(sfx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(t, r); !reflect.DeepEqual(got, want) || r.Info().SFXOffset != int64(len(stub)) {
		t.Errorf("SFX: offset %d, contents equal %v", r.Info().SFXOffset, reflect.DeepEqual(got, want))
	}
	r.Close()

	// Split into three raw parts, opened from the second.
	var parts []string
	cut := []int{0, 100, 101, len(data)}
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, "sample.7z.00"+string(rune('1'+i)))
		os.WriteFile(p, data[cut[i]:cut[i+1]], 0o644)
		parts = append(parts, p)
	}
	r, err = Open(parts[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(t, r); !reflect.DeepEqual(got, want) {
		t.Error("split: contents differ")
	}
	if !reflect.DeepEqual(r.Info().Volumes, parts) {
		t.Errorf("split volumes %q, want %q", r.Info().Volumes, parts)
	}
	fr = r.(*fileReader)
	r.Close()
	if n := openCount(fr.files.(*splitFiles)); n != 0 {
		t.Errorf("Close left %d parts open", n)
	}

	// A truncated split is an error, not a panic.
	os.Remove(parts[2])
	if r, err := Open(parts[0], nil); err == nil {
		r.Close()
		t.Error("truncated split opened")
	}
}
