//go:build !unix

package tempname

// NoFollow is not available here; the Lstat checks still apply.
const NoFollow = 0
