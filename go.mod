module github.com/garc-dev/garc

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/nwaples/rardecode/v2 v2.4.6
	github.com/rivo/uniseg v0.4.7
	github.com/schollz/progressbar/v3 v3.15.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/ulikunitz/xz v0.5.17
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
)
