package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"arena/devarena"
	"arena/internal/logx"
	"arena/validator"
)

func newDevCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "dev",
		Usage:     "run a whole arena in one process: devnet, reference miners and the validator",
		UsageText: "arena dev [--miners N] [--validators N] [--races N] [--best-arrives N] [--data DIR] [--listen HOST:PORT] [--api-listen HOST:PORT]",
		Description: "Starts a local chain (the devnet) with a subnet, registers this validator and --miners\n" +
			"reference miners of spread skill (1.0 down to 0.2) serving on loopback, generates a catalog\n" +
			"and a problem suite, and runs the validator on fast timings. The terminal shows\n" +
			"the cycle live: qualifying on public problems, the race on fresh hidden problems, the\n" +
			"leaderboard, the weights transaction and the incentive the chain gives afterwards.\n\n" +
			"With --races N it exits 0 after N races (and their weights) with a summary; otherwise it\n" +
			"runs until Ctrl-C. The devnet lives in memory, so each run starts a new chain and a new\n" +
			"validator data dir, DIR/validator (the --data of `arena export` and `arena store check`).\n" +
			"arena dev owns only that and a marker file in DIR: an earlier run's validator/ is deleted\n" +
			"once the new run has started, anything else in DIR is left alone, and a non-empty DIR\n" +
			"that arena dev did not make is refused.\n\n" +
			"With --validators N (up to 16) it runs N independent validators on the same chain, each\n" +
			"with its own key, store (DIR/validator, DIR/validator-2, ...) and hidden draws; the view\n" +
			"follows the first and shows every validator's leader and the consensus the chain reaches.\n\n" +
			"With --best-arrives N the best miner (skill 1.0) announces its axon only after N race\n" +
			"windows: the others race without it, and the view shows it qualify and then take the\n" +
			"crown once its heats show it better than the leader (docs/scoring.md, \"Races: who leads\").\n" +
			"While it runs, try `arena status` (or `arena status --api http://API-LISTEN`) in another terminal.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "miners", Value: 8, Usage: "reference miners to run"},
			&cli.IntFlag{Name: "validators", Value: 1, Usage: "independent validators `N` to run (1 to 16)"},
			&cli.IntFlag{Name: "races", Usage: "exit after `N` races (0: run until interrupted)"},
			&cli.IntFlag{Name: "best-arrives", Usage: "the best miner joins after `N` race windows (0: from the start)"},
			&cli.StringFlag{Name: "data", Value: "./arena-data", Usage: "`DIR` to keep the validator's data in (as DIR/validator)", TakesFile: true},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9100", Usage: "`HOST:PORT` for /metrics, /livez and /readyz"},
			&cli.StringFlag{Name: "api-listen", Value: "127.0.0.1:9101", Usage: "`HOST:PORT` for the JSON API (arena status reads it)"},
			&cli.DurationFlag{Name: "block-time", Value: 250 * time.Millisecond, Usage: "devnet block interval"},
			&cli.BoolFlag{Name: "commit-reveal", Usage: "turn the subnet's commit-reveal on"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageError{err: fmt.Errorf("unexpected argument %q", cmd.Args().First()), command: cmd.FullName()}
			}
			if v := cmd.Int("validators"); v < 1 || v > 16 {
				return usageError{err: fmt.Errorf("--validators %d: want 1 to 16", v), command: cmd.FullName()}
			}
			if cmd.Int("races") < 0 {
				return usageError{err: errors.New("--races must not be negative"), command: cmd.FullName()}
			}
			if cmd.Int("best-arrives") < 0 {
				return usageError{err: errors.New("--best-arrives must not be negative"), command: cmd.FullName()}
			}
			cfg, err := env.loadUnvalidated(cmd, configFlags{"listen": "metrics.listen", "api-listen": "api.listen"})
			if err != nil {
				return err
			}
			if !cmd.IsSet("log-level") {
				cfg.Log.Level = "warn" // the live view tells the story; logs are for problems
			}
			home := cmd.String("data")
			cfg.DataDir = devarena.DataDir(home)
			if err := cfg.Validate(); err != nil {
				return fmt.Errorf("invalid config: %w", err)
			}
			log, err := logx.New(env.stderr, logx.Options{Level: cfg.Log.Level, Format: cfg.Log.Format})
			if err != nil {
				return err
			}
			out := env.stdout
			fmt.Fprintf(out, "arena dev: starting a devnet, %d reference miners and a validator (data in %s)\n", cmd.Int("miners"), cfg.DataDir)
			events := make(chan validator.Event, 256)
			lastStage := ""
			a, err := devarena.Start(ctx, devarena.Options{
				Config: devarena.DemoTimings(*cfg), KeepTimings: true, Skills: devarena.DemoSkills(int(cmd.Int("miners"))),
				Home: home, Miners: int(cmd.Int("miners")), Validators: int(cmd.Int("validators")), BlockTime: cmd.Duration("block-time"),
				CommitReveal: cmd.Bool("commit-reveal"), Registry: newRegistry(), BestArrivesAfter: int(cmd.Int("best-arrives")),
				OnEvent: func(e validator.Event) {
					select {
					case events <- e:
					default: // the view fell behind; the event is in the logs and the API
					}
				},
				Progress: func(stage string, done, total int) {
					if stage != lastStage {
						fmt.Fprintf(out, "  %s...\n", stage)
						lastStage = stage
					}
				},
			}, log)
			if err != nil {
				return err
			}
			begin, finish := env.boundShutdown(ctx, log, cfg.ShutdownTimeout.Duration)
			defer finish()
			defer a.Close()
			if a.Replaced {
				fmt.Fprintf(out, "arena dev: replaced the previous run's data in %s\n", cfg.DataDir)
			}
			printDevIntro(env, a)

			runCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			runErr := make(chan error, 1)
			go func() {
				err := a.Run(runCtx)
				cancel() // a validator that stopped by itself (a full disk) ends the view too
				runErr <- err
			}()
			sum, ferr := a.Follow(runCtx, events, out, int(cmd.Int("races")))
			cancel()
			begin()
			rerr := <-runErr
			if cerr := a.Close(); rerr == nil {
				rerr = cerr
			}
			if rerr != nil {
				return rerr
			}
			if ferr != nil {
				return ferr
			}
			fmt.Fprintf(out, "\nsummary: %d race(s), %d weights transaction(s)", sum.Races, sum.WeightsTx)
			if sum.Leader >= 0 {
				fmt.Fprintf(out, ", leader uid %d", sum.Leader)
			}
			fmt.Fprintf(out, "\ndata kept in %s: `arena export --data %s --format sft --out ./out/sft` turns it into training data\n",
				cfg.DataDir, cfg.DataDir)
			return nil
		},
	}
}

func printDevIntro(env *cliEnv, a *devarena.Arena) {
	w := env.stdout
	c := a.Config.Validator
	fmt.Fprintf(w, "\ndevnet %s (netuid %d, tempo %d blocks); validator uid %d\n", a.Devnet.URL(), a.Devnet.Netuid(), a.Devnet.Tempo(), a.ValidatorUID)
	for _, m := range a.Miners {
		arrives := ""
		if m.ArrivesAt > 0 {
			arrives = fmt.Sprintf("  (announces its axon at block %d)", m.ArrivesAt)
		}
		fmt.Fprintf(w, "  miner uid %d  skill %.2f  ws://%s%s\n", m.UID, m.Skill, m.Endpoint, arrives)
	}
	fmt.Fprintf(w, "\nthe cycle: each miner qualifies on %d public problems; every %d blocks the qualifiers and the\n"+
		"leader race on %d fresh hidden problems; the winner's weights go on chain and the next epoch's\n"+
		"incentive follows them. Web console: %s   operator API: http://%s/api/v1/status   (Ctrl-C to stop)\n\n",
		c.QualifyingProblems, c.RaceEveryBlocks, c.RaceProblems, consoleURL(a.Stack.API.Addr()), a.Stack.API.Addr())
	if a.Unverified() {
		fmt.Fprintf(w, "steps are unverified: %s.\n\n", devUnverified)
	}
}

// devUnverified is what arena dev says, once, when it runs without an
// inference relay (its default, so that it works offline).
const devUnverified = "this arena runs no inference relay (relay.base_url), so the miners' steps are not checked " +
	"against model completions, and its reference miners are scripts; set relay.base_url to an OpenAI-compatible " +
	"server to verify (docs/scoring.md, \"Verified inference\")"
