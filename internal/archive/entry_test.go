package archive

import (
	"testing"
	"time"
	"unsafe"
)

// TestEntrySize: archives list millions of entries (issue 11.5), so an
// Entry stays within 128 bytes (one size class of the allocator); what
// few entries record lives behind Entry.Extra.
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 128 {
		t.Errorf("archive.Entry takes %d bytes, want at most 128", n)
	}
}

// TestEntryExtraAccessors: an entry without Extra reads as "not
// recorded" (UID and GID -1), and MutableExtra starts from that state.
func TestEntryExtraAccessors(t *testing.T) {
	var e Entry
	if e.UID() != -1 || e.GID() != -1 || !e.CreateTime().IsZero() || !e.AccessTime().IsZero() ||
		e.Owner() != "" || e.Group() != "" || e.BLAKE2sp() != nil || e.Comment() != "" || e.IsSparse() {
		t.Errorf("entry without Extra: uid %d gid %d ctime %v atime %v owner %q group %q blake %x comment %q",
			e.UID(), e.GID(), e.CreateTime(), e.AccessTime(), e.Owner(), e.Group(), e.BLAKE2sp(), e.Comment())
	}
	at := time.Unix(1, 0)
	e.MutableExtra().AccessTime = at
	if e.IsSparse() {
		t.Errorf("an entry with Extra but not Sparse is sparse")
	}
	if e.Extra.Sparse = true; !e.IsSparse() {
		t.Errorf("an entry with Extra.Sparse is not sparse")
	}
	e.Extra.Sparse = false
	if e.UID() != -1 || e.GID() != -1 || !e.AccessTime().Equal(at) {
		t.Errorf("after MutableExtra: uid %d gid %d atime %v", e.UID(), e.GID(), e.AccessTime())
	}
	x := e.Extra
	if e.MutableExtra().Owner = "o"; e.Extra != x || e.Owner() != "o" || !e.AccessTime().Equal(at) {
		t.Errorf("MutableExtra replaced the existing Extra")
	}
}
