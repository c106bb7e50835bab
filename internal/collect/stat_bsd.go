//go:build darwin || freebsd || netbsd || openbsd

package collect

import "syscall"

func statTimespecs(st *syscall.Stat_t) (atime, ctime syscall.Timespec) {
	return st.Atimespec, st.Ctimespec
}
