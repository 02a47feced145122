package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v3"

	"arena/config"
	"arena/episode"
	"arena/minercheck"
	"arena/practice"
)

// newMinerCheckCommand checks a miner endpoint against the protocol.
func newMinerCheckCommand(env *cliEnv) *cli.Command {
	var clauses strings.Builder
	for _, c := range minercheck.Clauses() {
		fmt.Fprintf(&clauses, "  %-14s %s\n", c, c.Describe())
	}
	return &cli.Command{
		Name:  "check",
		Usage: "check a miner endpoint against the episode protocol, clause by clause",
		UsageText: "arena miner check ws://HOST:PORT" + episode.Path + " [--json] [--step-timeout 10s] [--handshake-timeout 5s] [--concurrent 3]\n" +
			"                  [--max-version 2] [--relay-models M,...] [--expect-hotkey HOTKEY]",
		Description: "Plays the validator's side of docs/protocol.md against your miner, with a throwaway validator\n" +
			"key and no chain, and prints pass, fail or skip per clause with what was wrong. Episodes run\n" +
			"on a small generated catalog with the validator's real tools; nothing is scored. Each clause\n" +
			"opens its own connections, so the miner must accept up to fourteen connections in a row.\n\n" +
			"Protocol version 2 (the inference relay) is offered as a relaying validator offers it: episodes\n" +
			"announce the relay with --relay-models (default the subnet's allowlist), and the validator's own\n" +
			"relay answers infers from a scripted model in process (not a model: the check judges conduct),\n" +
			"then every step is verified as a validator verifies it. --max-version 1 checks a version-1 miner:\n" +
			"the version-2 clauses are skipped.\n\n" +
			"Clauses:\n" + clauses.String() + "\n" +
			"A violation fails the clause whose episode it ended and the clause it breaks, wherever it\n" +
			"happened. A skipped clause could not be judged (its precondition failed, or the miner gave it\n" +
			"nothing to judge). Identity (the hotkey) needs the metagraph and is not checked: the report\n" +
			"names the address the miner signed with and the hotkey it must be registered under;\n" +
			"--expect-hotkey HOTKEY (SS58, or the 0x address) fails the check, with one line naming both\n" +
			"keys, when the miner signs with another key.\n\n" +
			"Exit status: 0 when no clause fails; 1 when a clause fails or the check cannot run (a bad URL,\n" +
			"an unreachable endpoint, a path that does not upgrade); 2 for a bad command line.\n\n" +
			"Examples:\n" +
			"  arena miner --keystore ~/.arena/miner-keys --password-file ~/.arena/miner.pass --listen 127.0.0.1:8091 &\n" +
			"  arena miner check ws://127.0.0.1:8091" + episode.Path + "\n" +
			"  arena miner check ws://203.0.113.7:8091" + episode.Path + " --step-timeout 60s --json\n" +
			"  arena miner check ws://127.0.0.1:8091" + episode.Path + " --max-version 1   # a version-1 miner",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as one JSON object"},
			&cli.DurationFlag{Name: "step-timeout", Value: 10 * time.Second, Usage: "step timeout announced to the miner and enforced (a validator announces 60s)"},
			&cli.DurationFlag{Name: "handshake-timeout", Value: 5 * time.Second, Usage: "bound on waiting for hello_ack"},
			&cli.IntFlag{Name: "concurrent", Value: 3, Usage: "episodes the concurrency clause starts at once on one connection"},
			&cli.IntFlag{Name: "max-version", Value: episode.MaxVersion, Usage: "highest protocol `VERSION` offered: 2 checks the inference relay's clauses, 1 skips them"},
			&cli.StringFlag{Name: "relay-models", Value: config.DefaultRelayModels, Usage: "the relay's allowlist announced to the miner, comma-separated `MODELS`"},
			&cli.StringFlag{Name: "expect-hotkey", Usage: "fail unless the miner signs with the key of `HOTKEY` (SS58, or the 0x address)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			log, err := env.logger(cmd)
			if err != nil {
				return err
			}
			if cmd.Args().Len() != 1 {
				return usageError{err: errors.New("want one argument: the miner's ws://HOST:PORT" + episode.Path), command: cmd.FullName()}
			}
			opts := minercheck.Options{
				StepTimeout:      cmd.Duration("step-timeout"),
				HandshakeTimeout: cmd.Duration("handshake-timeout"),
				Concurrent:       int(cmd.Int("concurrent")),
				MaxVersion:       int(cmd.Int("max-version")),
				Models:           config.RelayConfig{Models: cmd.String("relay-models")}.ModelList(),
			}
			if opts.StepTimeout <= 0 || opts.HandshakeTimeout <= 0 || opts.Concurrent < 1 {
				return usageError{err: errors.New("--step-timeout and --handshake-timeout must be positive and --concurrent at least 1"), command: cmd.FullName()}
			}
			if opts.MaxVersion < episode.Version || opts.MaxVersion > episode.MaxVersion {
				return usageError{err: fmt.Errorf("--max-version %d: want %d or %d", opts.MaxVersion, episode.Version, episode.MaxVersion), command: cmd.FullName()}
			}
			if len(opts.Models) == 0 {
				return usageError{err: errors.New("--relay-models is empty: name the models the relay allows"), command: cmd.FullName()}
			}
			var expect *practice.Expect
			if s := cmd.String("expect-hotkey"); s != "" {
				e, err := practice.ParseExpect(s)
				if err != nil {
					return usageError{err: err, command: cmd.FullName()}
				}
				expect = &e
			}
			checker, err := minercheck.New(opts, log)
			if err != nil {
				return err
			}
			rep, err := checker.Run(ctx, cmd.Args().First())
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				b, err := rep.JSON()
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintf(env.stdout, "%s\n", b); err != nil {
					return err
				}
			} else {
				rep.Print(env.stdout)
			}
			if expect != nil && rep.Miner != "" {
				if err := expect.Check(common.HexToAddress(rep.Miner)); err != nil {
					return err
				}
			}
			if !rep.OK {
				var names []string
				for _, c := range rep.FailedClauses() {
					names = append(names, string(c))
				}
				return fmt.Errorf("%d of %d clauses failed: %s", rep.Failed, len(rep.Clauses), strings.Join(names, ", "))
			}
			return nil
		},
	}
}
