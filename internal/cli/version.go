package cli

import (
	"runtime/debug"
	"strings"
)

// Version, Commit and Date describe the build. Release builds (goreleaser)
// and `make build` set them with
//
//	-ldflags "-X github.com/garc-dev/garc/internal/cli.Version=v1.2.3
//	          -X github.com/garc-dev/garc/internal/cli.Commit=0123abcd
//	          -X github.com/garc-dev/garc/internal/cli.Date=2026-12-01T17:00:00Z"
//
// so that they are right even when the build has no VCS information
// (GOFLAGS=-buildvcs=false, a source archive). When empty, the module
// version and the VCS stamp of the build information are used.
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// buildInfo returns the version, commit and date of this binary.
func buildInfo() (version, commit, date string) {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi, Version, Commit, Date)
}

// describeBuild returns the version, commit and date of a build: those
// set by -ldflags where given, else the module version (set by `go
// install …@v1.2.3`, or a pseudo-version made from the VCS stamp by a
// `go build` in a checkout) and the VCS stamp of bi, which may be nil.
func describeBuild(bi *debug.BuildInfo, version, commit, date string) (string, string, string) {
	if bi != nil {
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		vcs := map[string]string{}
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
		if rev := vcs["vcs.revision"]; commit == "" && rev != "" {
			commit = rev[:min(len(rev), 12)]
			if vcs["vcs.modified"] == "true" {
				commit += "-dirty"
			}
		}
		if date == "" {
			date = vcs["vcs.time"]
		}
	}
	if version == "" {
		version = "(devel)"
	}
	return version, commit, date
}

// version is what `garc --version` prints after "garc version ":
// "v1.2.3 (commit 0123abcd, 2026-12-01T17:00:00Z)".
func version() string {
	v, commit, date := buildInfo()
	var extra []string
	if commit != "" {
		extra = append(extra, "commit "+commit)
	}
	if date != "" {
		extra = append(extra, date)
	}
	if len(extra) == 0 {
		return v
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}
