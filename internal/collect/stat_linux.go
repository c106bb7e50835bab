package collect

import "syscall"

func statTimespecs(st *syscall.Stat_t) (atime, ctime syscall.Timespec) { return st.Atim, st.Ctim }
