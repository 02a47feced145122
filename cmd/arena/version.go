package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v3"
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

// versionString reports what debug.BuildInfo knows. `go run` and builds with
// -buildvcs=false carry no revision; say so instead of inventing one.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "arena (no build info)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	revision, modified, when := "unknown", "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		case "vcs.time":
			when = " " + s.Value
		}
	}
	return fmt.Sprintf("arena %s revision %s%s%s %s", version, revision, modified, when, info.GoVersion)
}
