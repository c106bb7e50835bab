//go:build !linux

package extract

import (
	"math"
	"os"
	"time"
)

// nanoTimeMin and nanoTimeMax bound the times time.Time.UnixNano can
// express (the years 1678 to 2262), which os.Chtimes passes to the system
// through UnixNano.
var (
	nanoTimeMin = time.Unix(0, math.MinInt64)
	nanoTimeMax = time.Unix(0, math.MaxInt64)
)

// nanoRange returns t, or the nearest time UnixNano can express when t is
// beyond it: an archive's time of 2300 (a GNU tar base-256 or pax mtime,
// a 64-bit NTFS time) is set as the year 2262 by os.Chtimes, not as the
// garbage its overflowing UnixNano gives (1901 for 2300). The zero time,
// which os.Chtimes leaves unchanged, stays zero.
func nanoRange(t time.Time) time.Time {
	switch {
	case t.IsZero():
		return t
	case t.Before(nanoTimeMin):
		return nanoTimeMin
	case t.After(nanoTimeMax):
		return nanoTimeMax
	}
	return t
}

// chtimesRange is os.Chtimes with times beyond UnixNano's range brought
// within it (see nanoRange).
func chtimesRange(p string, atime, mtime time.Time) error {
	return os.Chtimes(p, nanoRange(atime), nanoRange(mtime))
}
