//go:build unix

package tempname

import "syscall"

// NoFollow, an os.OpenFile flag, makes opening a symbolic link fail instead of following it.
const NoFollow = syscall.O_NOFOLLOW
