package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"arena/shop/pyexec"
)

func newShopPythonCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "python",
		Usage:     "run code as the python_execute tool does and print what it prints",
		UsageText: "arena shop python CODE\narena shop python - < FILE",
		Description: "Runs CODE (or standard input, when CODE is -) in the agents' python_execute\n" +
			"interpreter (package shop/pyexec) with the validator's default limits, and prints the\n" +
			"output the tool would return. An error (a Python exception, a refused import, a bound\n" +
			"hit) is printed on stderr as the tool reports it, and the command exits 1.\n\n" +
			"Example:\n" +
			"  arena shop python 'totals = {\"a\": 120, \"b\": 95}\n" +
			"  best = min(totals, key=lambda s: totals[s])\n" +
			"  print(f\"{best}: {totals[best]}\")'",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 1 {
				return usageError{err: fmt.Errorf("python: want one argument, the code or -, got %d", cmd.NArg()), command: "arena shop python"}
			}
			code := cmd.Args().First()
			if code == "-" {
				if env.stdin == nil {
					return errors.New("python: no standard input to read the code from")
				}
				b, err := io.ReadAll(io.LimitReader(env.stdin, int64(pyexec.DefaultLimits().MaxSourceBytes)+1))
				if err != nil {
					return fmt.Errorf("python: read standard input: %w", err)
				}
				code = string(b)
			}
			return runShopPython(ctx, env, code)
		},
	}
}

func runShopPython(ctx context.Context, env *cliEnv, code string) error {
	ev, err := pyexec.New(pyexec.Limits{})
	if err != nil {
		return err
	}
	out, err := ev.Run(ctx, code)
	if err != nil {
		return fmt.Errorf("python_execute: %w", err)
	}
	_, err = io.WriteString(env.stdout, out)
	return err
}
