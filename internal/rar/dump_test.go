package rar

import (
	"os"
	"testing"
)

func TestDump(t *testing.T) {
	p := os.Getenv("RARDUMP")
	if p == "" {
		t.Skip()
	}
	r, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *r.Info())
	for _, e := range r.Entries() {
		t.Logf("%q -> %q %v size=%d pk=%d %s split=%v/%v attr=%x mode=%v", e.Name, e.LinkTarget, e.Type, e.Size, e.PackedSize, e.Method, e.SplitBefore, e.SplitAfter, e.Attributes, e.Mode)
		t.Logf("   m=%v c=%v a=%v uid=%d gid=%d owner=%q/%q crc=%v/%08x b2=%x enc=%v solid=%v ver=%d", e.ModTime, e.CreateTime, e.AccessTime, e.UID, e.GID, e.Owner, e.Group, e.HasCRC32, e.CRC32, e.BLAKE2sp, e.Encrypted, e.Solid, e.Version)
	}
}
