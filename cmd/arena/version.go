package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v3"
)

// Release builds (scripts/build.sh, the Dockerfile) stamp these with
// -ldflags "-X main.version=... -X main.revision=... -X main.commitTime=...":
// a build made without the .git directory, like the Docker image's, has no
// VCS settings in its build info. They are package variables because -X
// can set nothing else.
var (
	version    string
	revision   string
	commitTime string
)

func newVersionCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the module version and VCS revision of this build",
		Action: func(_ context.Context, _ *cli.Command) error {
			fmt.Fprintln(env.stdout, versionString())
			return nil
		},
	}
}

// versionString describes this build: what the release build stamped,
// else what debug.BuildInfo knows.
func versionString() string {
	info, _ := debug.ReadBuildInfo() // nil when the binary has none
	return formatVersion(buildStamp{Version: version, Revision: revision, Time: commitTime}, info)
}

// buildStamp is what a release build sets with -ldflags -X.
type buildStamp struct{ Version, Revision, Time string }

// formatVersion prefers the stamp, field by field, to the build info.
// `go run` and builds with -buildvcs=false carry no revision; it says so
// instead of inventing one.
func formatVersion(stamp buildStamp, info *debug.BuildInfo) string {
	ver, rev, dirty, when, goVersion := "(devel)", "unknown", "", "", "(unknown go version)"
	if info != nil {
		if info.Main.Version != "" {
			ver = info.Main.Version
		}
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			case "vcs.time":
				when = s.Value
			}
		}
	}
	if stamp.Version != "" {
		ver = stamp.Version
	}
	if stamp.Revision != "" {
		rev, dirty = stamp.Revision, "" // the stamp says +dirty itself
	}
	if stamp.Time != "" {
		when = stamp.Time
	}
	if when != "" {
		when = " " + when
	}
	return fmt.Sprintf("arena %s revision %s%s%s %s", ver, rev, dirty, when, goVersion)
}
