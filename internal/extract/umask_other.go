//go:build !unix

package extract

import "io/fs"

// processUmask is 0 where files have no Unix modes.
func processUmask() fs.FileMode { return 0 }
