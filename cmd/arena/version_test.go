package main

import (
	"runtime/debug"
	"testing"
)

// TestFormatVersion: a release build's -X stamp wins field by field over
// the build info, and a build with neither says what it does not know.
func TestFormatVersion(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201-ba90a84"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "ba90a84"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}}}
	bare := &debug.BuildInfo{GoVersion: "go1.26.8"}
	tests := []struct {
		name  string
		stamp buildStamp
		info  *debug.BuildInfo
		want  string
	}{
		{"build info only", buildStamp{}, vcs, "arena v0.0.0-20261201-ba90a84 revision ba90a84+dirty 2026-12-01T10:00:00Z go1.26.8"},
		{"nothing known", buildStamp{}, bare, "arena (devel) revision unknown go1.26.8"},
		{"no build info", buildStamp{}, nil, "arena (devel) revision unknown (unknown go version)"},
		{"release stamp", buildStamp{Version: "v1.2.0", Revision: "0123abc", Time: "2026-12-02T08:00:00Z"}, bare,
			"arena v1.2.0 revision 0123abc 2026-12-02T08:00:00Z go1.26.8"},
		{"stamp over vcs info", buildStamp{Version: "v1.2.0", Revision: "0123abc+dirty"}, vcs,
			"arena v1.2.0 revision 0123abc+dirty 2026-12-01T10:00:00Z go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatVersion(tt.stamp, tt.info); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
