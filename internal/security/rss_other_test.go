//go:build !unix

package security

import "os"

// maxRSS is not measured on this system.
func maxRSS(*os.ProcessState) (int64, bool) { return 0, false }
