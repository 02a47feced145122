package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"arena/config"
)

// newConfigCommand groups the commands that show and check configuration.
// They hold no logic of their own: loading, validation, redaction and the
// key list all come from package config.
func newConfigCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show, list and check arena's settings",
		Description: "Every setting is resolved in layers, each overriding the one before:\n" +
			"built-in defaults < the YAML file given with --config < ARENA_* environment variables < flags.\n\n" +
			"Each key has an environment variable: the key upper-cased, dots as underscores, prefixed\n" +
			"with ARENA_ (chain.url -> ARENA_CHAIN_URL). Unknown keys and unknown ARENA_* variables are\n" +
			"errors, so a typo never falls back to a default silently.\n\n" +
			"The keystore password can only come from ARENA_KEYSTORE_PASSWORD (or keystore.password_file);\n" +
			"it is never printed. scripts/arena.example.yaml lists every key with its default.",
		Commands: []*cli.Command{
			{
				Name:      "print",
				Usage:     "print the effective configuration as YAML, secrets redacted",
				UsageText: "arena [--config FILE] config print",
				Description: "Resolves defaults, the --config file, ARENA_* variables and flags, validates the result\n" +
					"and prints it in config-file form. Secrets are redacted: keystore.password shows as\n" +
					"[redacted] (and only when ARENA_KEYSTORE_PASSWORD is set), a password in chain.url as xxxxx.\n" +
					"If the configuration is invalid, nothing is printed and every problem is reported.",
				Action: func(_ context.Context, cmd *cli.Command) error {
					cfg, err := env.loadUnvalidated(cmd, nil)
					if err != nil {
						return listProblems(env.stderr, "", err)
					}
					if err := cfg.Validate(); err != nil {
						return listProblems(env.stderr, "invalid config", err)
					}
					text, err := cfg.MarshalYAMLText()
					if err != nil {
						return err
					}
					_, err = env.stdout.Write(text)
					return err
				},
			},
			{
				Name:  "keys",
				Usage: "list every setting with its ARENA_* environment variable, type and default",
				Description: "KEY is the name in the YAML file (a dot means nesting: chain.url is url under chain:),\n" +
					"ENV the environment variable that overrides it.",
				Action: func(_ context.Context, _ *cli.Command) error {
					return writeKeys(env.stdout, config.Keys())
				},
			},
			{
				Name:      "check",
				Usage:     "validate the configuration and report every problem",
				UsageText: "arena [--config FILE] config check",
				Description: "Resolves the configuration as every other command does and checks it. Prints\n" +
					"\"config ok\" and exits 0, or lists each problem (naming its key) and exits 1.",
				Action: func(_ context.Context, cmd *cli.Command) error {
					cfg, err := env.loadUnvalidated(cmd, nil)
					if err != nil {
						return listProblems(env.stderr, "", err)
					}
					if err := cfg.Validate(); err != nil {
						return listProblems(env.stderr, "invalid config", err)
					}
					fmt.Fprintln(env.stdout, "config ok")
					return nil
				},
			},
		},
	}
}

// writeKeys prints the key table.
func writeKeys(w io.Writer, keys []config.Key) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tENV\tTYPE\tDESCRIPTION")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Path, k.Env, k.Type, k.Help)
	}
	return tw.Flush()
}

// listProblems reports a joined config error, prefixed by what unless what
// is empty. One problem is returned as is, for run to print on its single
// error line. Several are written to w one per line, and the returned error
// only summarises them.
func listProblems(w io.Writer, what string, err error) error {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) == 1 {
		if what == "" {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	if what == "" {
		what = "cannot load config"
	}
	fmt.Fprintf(w, "%s:\n", what)
	for _, line := range lines {
		fmt.Fprintf(w, "  %s\n", line)
	}
	return &listedError{msg: fmt.Sprintf("%s: %d problems (listed above)", what, len(lines)), err: err}
}

// listedError summarises problems already printed, keeping the original
// error for errors.Is/As.
type listedError struct {
	msg string
	err error
}

func (e *listedError) Error() string { return e.msg }
func (e *listedError) Unwrap() error { return e.err }
