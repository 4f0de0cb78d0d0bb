package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version and Commit are set with -ldflags -X by make release; they are
// variables, not constants, because the linker can set only those.
var (
	Version string
	Commit  string
)

// unknown stands for what neither the linker nor the build info tells.
const unknown = "unknown"

// String is the line `--version` prints for program: its version, commit
// and Go version, e.g.
//
//	listenerset-webhook v1.2.3, commit 91207c2..., go1.26.8 linux/amd64
func String(program string) string {
	info, _ := debug.ReadBuildInfo()
	return format(program, Version, Commit, info)
}

// format is String on given inputs: the linker's values win, then the build
// info's (the main module's version, vcs.revision with vcs.modified).
func format(program, version, commit string, info *debug.BuildInfo) string {
	if info != nil {
		if version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		if commit == "" {
			commit = vcsRevision(info)
		}
	}
	if version == "" {
		version = "devel"
	}
	if commit == "" {
		commit = unknown
	}
	return fmt.Sprintf("%s %s, commit %s, %s %s/%s", program, version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// vcsRevision is the build's vcs.revision, "-dirty" appended when
// vcs.modified says the tree had changes, or "" when the build has none
// (go build -buildvcs=false, go install from the module proxy).
func vcsRevision(info *debug.BuildInfo) string {
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" && modified == "true" {
		rev += "-dirty"
	}
	return rev
}
