//go:build !windows

package extract

// applyWindowsMeta does nothing here: only Windows has the attributes
// and a creation time to set (metaOf decides them on every platform).
func applyWindowsMeta(p string, m windowsMeta) {}
