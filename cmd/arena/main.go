package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"
)

func main() {
	os.Exit(runProcess(os.Args, os.Stdout, os.Stderr, os.Environ(), os.Exit))
}

// runProcess is main with the process's signals: the first SIGINT or
// SIGTERM stops gracefully within shutdown_timeout, a second exits at once.
func runProcess(args []string, stdout, stderr io.Writer, environ []string, exit func(int)) int {
	ctx, stop := signalContext(stderr, exit)
	defer stop()
	return runEnv(ctx, args, &cliEnv{stdin: os.Stdin, stdout: stdout, stderr: stderr, environ: environ, exit: exit})
}

// run executes the CLI and turns any error into one line on stderr and a
// non-zero exit code. Tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, environ []string) int {
	return runEnv(ctx, args, &cliEnv{stdout: stdout, stderr: stderr, environ: environ})
}

// runEnv runs the CLI with the given streams; stdin is nil except in the
// real process.
func runEnv(ctx context.Context, args []string, env *cliEnv) int {
	stderr := env.stderr
	app := newApp(env)
	if err := app.Run(ctx, args); err != nil {
		var exit cli.ExitCoder
		code := 1
		if errors.As(err, &exit) && exit.ExitCode() != 0 {
			code = exit.ExitCode()
		}
		fmt.Fprintf(stderr, "arena: %s\n", oneLine(err))
		return code
	}
	return 0
}

func newApp(env *cliEnv) *cli.Command {
	app := &cli.Command{
		Name:      "arena",
		Usage:     "validator daemon for the arena shopping-agent subnet",
		UsageText: "arena [global options] command [command options]",
		Description: "arena follows a subtensor chain over its EVM JSON-RPC, runs shopping problems against\n" +
			"miners' agents, judges the trajectories and sets weights on chain.\n\n" +
			"Try the whole arena on a local chain with `arena dev`; run a validator with `arena run`.\n" +
			"See docs/ for the protocol, operations, scoring and dataset formats.",
		Writer:                env.stdout,
		ErrWriter:             env.stderr,
		EnableShellCompletion: false,
		HideVersion:           true,
		Flags:                 env.globalFlags(),
		ExitErrHandler:        func(context.Context, *cli.Command, error) {},
		Commands: []*cli.Command{
			newDevCommand(env),
			newRunCommand(env),
			newStatusCommand(env),
			newVersionCommand(env),
			newConfigCommand(env),
			newKeysCommand(env),
			newChainCommand(env),
			newDevnetCommand(env),
			newShopCommand(env),
			newSuiteCommand(env),
			newMinerCommand(env),
			newPracticeCommand(env),
			newScoreCommand(env),
			newSimulateCommand(env),
			newExportCommand(env),
			newStoreCommand(env),
			newBackupCommand(env),
			newRestoreCommand(env),
		},
	}
	oneLineUsage(app)
	return app
}

// usageError is a mistake in the command line. The full help is one
// --help away, so the error is a single line that says where.
type usageError struct {
	err     error
	command string
}

func (e usageError) Error() string { return fmt.Sprintf("%v (see %s --help)", e.err, e.command) }

// ExitCode is 2, the status getopt-style tools give a bad command line.
func (e usageError) ExitCode() int { return 2 }

func (e usageError) Unwrap() error { return e.err }

// oneLineUsage makes cmd and every command under it answer a bad flag, a
// missing argument or an unknown subcommand with a usageError instead of
// urfave/cli's "Incorrect Usage" followed by the whole help page (and,
// for an unknown subcommand, "No help topic" with exit status 3).
func oneLineUsage(cmd *cli.Command) {
	cmd.OnUsageError = func(_ context.Context, c *cli.Command, err error, _ bool) error {
		return usageError{err: err, command: c.FullName()}
	}
	if len(cmd.Commands) > 0 && cmd.Action == nil {
		cmd.Action = func(_ context.Context, c *cli.Command) error {
			if c.Args().Present() {
				return usageError{err: fmt.Errorf("unknown command %q", c.Args().First()), command: c.FullName()}
			}
			if c.Root() == c {
				return cli.ShowRootCommandHelp(c)
			}
			return cli.ShowSubcommandHelp(c)
		}
	}
	for _, sub := range cmd.Commands {
		oneLineUsage(sub)
	}
}

// oneLine flattens joined or wrapped errors so an operator sees a single line.
func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
