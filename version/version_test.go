package version

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFormat(t *testing.T) {
	goVersion := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	stamped := &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/airlock/listenerset-webhook", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name            string
		version, commit string
		info            *debug.BuildInfo
		want            string
	}{
		{"linker", "v1.2.3", "91207c2", stamped, "x v1.2.3, commit 91207c2, " + goVersion},
		{"build info", "", "", stamped, "x v0.3.0, commit 0123abcd-dirty, " + goVersion},
		{"clean tree", "", "", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "false"}}},
			"x devel, commit 0123abcd, " + goVersion},
		{"go build in the repository", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "x devel, commit unknown, " + goVersion},
		{"no build info", "", "", nil, "x devel, commit unknown, " + goVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := format("x", tt.version, tt.commit, tt.info); got != tt.want {
				t.Errorf("format = %q, want %q", got, tt.want)
			}
		})
	}
}
