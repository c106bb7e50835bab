package zip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Changes.AddFrom, items given one at a time, writes the same archive as
// Add with the same items, for every way of writing it; it is refused
// with a base, and its error aborts the archive.
func TestWriterAddFrom(t *testing.T) {
	items, _ := testItems()
	for _, o := range []WriteOptions{{}, {Method: "Store"}, {Streamed: true}, {ForceZip64: true}, {Password: "pw", rand: bytes.NewReader(make([]byte, 1<<12))}} {
		o.Location = time.UTC
		want := writeZip(t, items, o)
		if o.Password != "" {
			o.rand = bytes.NewReader(make([]byte, 1<<12))
		}
		var m memTarget
		_, err := Update(context.Background(), &m, nil, &Changes{AddFrom: func(add func(*WriteItem) error) error {
			for i := range items {
				it := items[i]
				if err := add(&it); err != nil {
					return err
				}
			}
			return nil
		}}, &o)
		if err != nil || !m.committed {
			t.Fatalf("%+v: %v", o, err)
		}
		if !bytes.Equal(m.b, want) {
			t.Errorf("%+v: AddFrom wrote %d bytes, Add %d, not the same", o, len(m.b), len(want))
		}
	}
	stop := errors.New("stop")
	var m memTarget
	if _, err := Update(context.Background(), &m, nil, &Changes{AddFrom: func(func(*WriteItem) error) error { return stop }}, &WriteOptions{}); !errors.Is(err, stop) || !m.aborted {
		t.Errorf("AddFrom's error: %v, aborted %v", err, m.aborted)
	}
	base := writeZip(t, items, WriteOptions{})
	m = memTarget{}
	if _, err := Update(context.Background(), &m, &Existing{R: bytes.NewReader(base), Size: int64(len(base))},
		&Changes{AddFrom: func(func(*WriteItem) error) error { return nil }}, &WriteOptions{}); err == nil || !m.aborted {
		t.Errorf("AddFrom with a base: %v", err)
	}
}

// The central directory is kept encoded as the entries are written: per
// entry its 46 bytes, the name and the extra fields, in blocks that are
// filled before the next is made, not a record of a few hundred bytes.
func TestCentralDirPerEntry(t *testing.T) {
	var c centralDir
	const n = 50000
	t0 := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for i := range n {
		r := record{name: fmt.Sprintf("d/%05d", i), extra: utField(t0, time.Time{}, true), unpacked: 1}
		c.add(&r, false)
	}
	used, held := 0, 0
	for _, b := range c.blocks {
		used += len(b)
		held += cap(b)
	}
	if per := 46 + 7 + 9; used != n*per || held > used+centralBlock {
		t.Errorf("%d entries: %d bytes encoded, %d held; want %d (%d a entry) and at most one block more", n, used, held, n*per, per)
	}
	if c.count != n || c.files != n || c.unpacked != n {
		t.Errorf("counts: %d entries, %d files, %d bytes", c.count, c.files, c.unpacked)
	}
}
