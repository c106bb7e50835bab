//go:build !unix

package cli

// fileKey identifies a file for hard links (none here).
type fileKey struct{}

// fileInfo is what a tar entry takes from a file's stat beyond what
// collect records; nothing on this system.
type fileInfo struct {
	ok       bool
	uid, gid int
	nlink    uint64
	key      fileKey
	sparse   bool
}

// statFile returns nothing on this system.
func statFile(string, bool) fileInfo { return fileInfo{} }
