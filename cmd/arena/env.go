package main

import (
	"fmt"
	"io"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/config"
	"arena/internal/logx"
)

// cliEnv carries the process's streams and environment so commands never
// touch os.* directly and tests can run the CLI in-process.
type cliEnv struct {
	stdin   io.Reader // nil reads nothing
	stdout  io.Writer
	stderr  io.Writer
	environ []string
	// exit ends the process (os.Exit) when a shutdown overruns its bound;
	// nil, in tests that run the CLI in process, arms no bound.
	exit func(int)
}

func (e *cliEnv) globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "YAML config `FILE` (defaults < file < ARENA_* env < flags)"},
		&cli.StringFlag{Name: "log-level", Usage: "trace, debug, info, warn or error (overrides log.level)"},
		&cli.StringFlag{Name: "log-format", Usage: "auto (console on a TTY, JSON otherwise), json or console"},
	}
}

// configFlags maps a command's flag names to the config keys they override.
type configFlags map[string]string

// globalConfigFlags are honoured by every command that loads the config.
var globalConfigFlags = configFlags{"log-level": "log.level", "log-format": "log.format"}

// load builds the effective config for cmd: defaults, then --config, then
// ARENA_* env, then the flags in flags that the user actually set. It also
// returns the logger configured from it. The config is validated.
func (e *cliEnv) load(cmd *cli.Command, flags configFlags) (*config.Config, zerolog.Logger, error) {
	cfg, err := e.loadUnvalidated(cmd, flags)
	if err != nil {
		return nil, zerolog.Nop(), err
	}
	if err := cfg.Validate(); err != nil {
		return nil, zerolog.Nop(), fmt.Errorf("invalid config: %w", err)
	}
	log, err := logx.New(e.stderr, logx.Options{Level: cfg.Log.Level, Format: cfg.Log.Format})
	if err != nil {
		return nil, zerolog.Nop(), err
	}
	return cfg, log, nil
}

func (e *cliEnv) loadUnvalidated(cmd *cli.Command, flags configFlags) (*config.Config, error) {
	overrides := map[string]string{}
	for _, set := range []configFlags{globalConfigFlags, flags} {
		for name, key := range set {
			if cmd.IsSet(name) {
				overrides[key] = fmt.Sprint(cmd.Value(name))
			}
		}
	}
	return config.Load(config.LoadOptions{
		Path:      cmd.String("config"),
		Environ:   e.environ,
		Overrides: overrides,
	})
}

// logger is for commands that need no config beyond logging.
func (e *cliEnv) logger(cmd *cli.Command) (zerolog.Logger, error) {
	_, log, err := e.load(cmd, nil)
	return log, err
}
