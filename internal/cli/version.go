package cli

import "runtime/debug"

// Version is garc's version; release builds set it with
// -ldflags "-X github.com/garc-dev/garc/internal/cli.Version=v1.2.3".
// When empty, the module version from the build information is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
