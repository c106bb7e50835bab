package main

import (
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/nwaples/rardecode/v2"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/ulikunitz/xz"
	_ "golang.org/x/crypto/pbkdf2"
	_ "golang.org/x/term"
)

func main() {}
