//go:build !unix

package extract

// oNoFollow is not available here; the Lstat checks still apply.
const oNoFollow = 0
