package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/config"
	"arena/episode"
	"arena/internal/logx"
	"arena/knowledge"
	"arena/miner"
	"arena/practice"
	"arena/relay/standin"
	"arena/scoring/judge"
	"arena/shop"
	"arena/store"
	"arena/suite"
	"arena/validator"
)

var practiceFlags = configFlags{
	"catalog": "catalog.file", "llm-base-url": "llm.base_url", "llm-model": "llm.model", "llm-timeout": "llm.timeout",
	"relay-base-url": "relay.base_url", "relay-models": "relay.models",
}

func newPracticeCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "practice",
		Usage: "play your agent the way a validator does, with no chain, and see how it scores",
		UsageText: "arena practice --agent ws://HOST:PORT/arena/v1 [--problems N] [--types product,shop,voucher] [--catalog FILE]\n" +
			"               [--suite FILE.jsonl] [--concurrency N] [--out DIR] [--json]\n" +
			"               [--relay-base-url URL [--relay-models M,...] | --stand-in] [--require-verified] [--expect-hotkey HOTKEY]\n" +
			"arena practice --agent heuristic [--skill S] | --agent llm [--llm-base-url URL --llm-model NAME]",
		Description: "Runs the validator's own episode runner, shop tools, rule metrics and reasoning judge (judge.kind,\n" +
			"with its template cap over runs of validator.qualifying_problems) against your miner, on a local\n" +
			"catalog (catalog.file or --catalog, else the generated default) and problems generated from it\n" +
			"(or read from --suite). No chain: the handshake is signed with a throwaway validator key, and\n" +
			"the report names the address your miner signed with and the hotkey it must register (its\n" +
			"mirror). --agent heuristic or llm practises the reference agents in process, over the same\n" +
			"socket path.\n\n" +
			"The report: success and score by type and difficulty, the mean reasoning score q and the judge's\n" +
			"findings, end reasons, the slowest steps and the five worst problems with why they failed.\n" +
			"--json prints one object with episodes, success, score, q, by_type, findings, and the rest.\n" +
			"--out DIR stores the episodes and verdicts in the validator's format: `arena export --data DIR`\n" +
			"reads them. See docs/mining.md.\n\n" +
			"Verified inference (docs/scoring.md): --relay-base-url offers your agent the validator's inference\n" +
			"relay (protocol version 2) to an OpenAI-compatible provider you name, serving the models in\n" +
			"--relay-models (key from ARENA_RELAY_API_KEY); every step is then checked against the completion\n" +
			"it names, and the report gives verified_share and the unverified and dictated steps.\n" +
			"--require-verified scores as a validator under relay.required does: such steps earn nothing.\n" +
			"--agent llm with a relay and no --llm-base-url takes every completion through the relay.\n" +
			"--stand-in offers the relay with the offline stand-in behind it instead of a provider: no key, no\n" +
			"network; a script (the reference heuristic) answering as " + standin.Model + ", so your\n" +
			"agent's path through the relay can be seen working end to end. A validator refuses the stand-in.\n\n" +
			"--expect-hotkey HOTKEY (SS58, or the 0x address) stops before the first problem, with one line\n" +
			"naming both keys, when the miner signs with another key. The miner may still be starting: while\n" +
			"nothing listens at its address the dial is retried for up to --wait.\n\n" +
			"Examples:\n" +
			"  arena miner --keystore ~/.arena/miner-keys --password-file ~/.arena/miner.pass --listen 127.0.0.1:8091 &\n" +
			"  arena practice --agent ws://127.0.0.1:8091/arena/v1 --problems 30\n" +
			"  arena practice --agent ws://127.0.0.1:8091/arena/v1 --stand-in --problems 20   # an example miner, offline\n" +
			"  arena practice --agent heuristic --skill 0.6 --types voucher --json\n" +
			"  arena practice --agent llm --relay-base-url http://127.0.0.1:11434/v1 --relay-models qwen3:8b --require-verified",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Required: true, Usage: "the miner: `ws://HOST:PORT/arena/v1`, or heuristic or llm to practise a reference agent in process"},
			&cli.IntFlag{Name: "problems", Value: 30, Usage: "play `N` problems"},
			&cli.StringFlag{Name: "types", Value: "product,shop,voucher", Usage: "problem `TYPES`, comma-separated: product, shop, voucher, knowledge"},
			&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` (ShoppingBench JSON Lines, plain or gzip; overrides catalog.file)", TakesFile: true},
			&cli.StringFlag{Name: "suite", Usage: "play problems from `FILE` (arena JSON Lines, generated from the same catalog) instead of generating them", TakesFile: true},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed `S` of the generated problems"},
			&cli.IntFlag{Name: "concurrency", Usage: "episodes in flight at once (default episode.max_concurrent_episodes, as a validator)"},
			&cli.StringFlag{Name: "out", Usage: "store the episodes and verdicts in `DIR` (the validator's database format)", TakesFile: true},
			&cli.BoolFlag{Name: "json", Usage: "print the report as one JSON object"},
			&cli.FloatFlag{Name: "skill", Value: 1, Usage: "--agent heuristic: strength `S` in 0..1"},
			&cli.StringFlag{Name: "llm-base-url", Usage: "--agent llm: OpenAI-compatible endpoint `URL`, or stand-in for the offline stand-in (a script, not a model) (llm.base_url)"},
			&cli.StringFlag{Name: "llm-model", Usage: "--agent llm: model `NAME` (llm.model)"},
			&cli.DurationFlag{Name: "llm-timeout", Usage: "--agent llm: bound on one chat request (llm.timeout)"},
			&cli.StringFlag{Name: "relay-base-url", Usage: "offer the inference relay to an OpenAI-compatible provider at `URL` (relay.base_url; key from ARENA_RELAY_API_KEY)"},
			&cli.StringFlag{Name: "relay-models", Usage: "the relay's allowlist, comma-separated `MODELS` (relay.models)"},
			&cli.BoolFlag{Name: "require-verified", Usage: "score as under relay.required: an unverified or dictated step earns nothing"},
			&cli.BoolFlag{Name: "stand-in", Usage: "offer the relay with the offline stand-in behind it (no provider, no key; a script, not a model)"},
			&cli.DurationFlag{Name: "wait", Value: 10 * time.Second, Usage: "retry the dial for up to `D` while nothing listens at --agent (a miner still starting); 0 dials once"},
			&cli.StringFlag{Name: "expect-hotkey", Usage: "fail at once unless the miner signs with the key of `HOTKEY` (SS58, or the 0x address)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, practiceFlags)
			if err != nil {
				return err
			}
			n := int(cmd.Int("problems"))
			if n < 1 {
				return errors.New("--problems must be at least 1")
			}
			types, err := parsePracticeTypes(cmd.String("types"))
			if err != nil {
				return err
			}
			var expect *practice.Expect
			if s := cmd.String("expect-hotkey"); s != "" {
				e, err := practice.ParseExpect(s)
				if err != nil {
					return err
				}
				expect = &e
			}
			if cmd.Bool("stand-in") && cfg.Relay.BaseURL != "" {
				return errors.New("--stand-in and --relay-base-url (relay.base_url) both name the relay's provider: choose one")
			}
			limits := validator.EpisodeLimits(cfg.Episode)
			if c := cmd.Int("concurrency"); cmd.IsSet("concurrency") {
				if c < 1 {
					return errors.New("--concurrency must be at least 1")
				}
				limits.MaxConcurrentEpisodes = int(c)
			}
			agentKind := strings.ToLower(cmd.String("agent"))
			var endpoint string
			if agentKind != miner.AgentHeuristic && agentKind != miner.AgentLLM {
				if endpoint, err = practice.Endpoint(cmd.String("agent")); err != nil {
					return err
				}
			}
			var inProcess episode.Agent
			if endpoint == "" {
				if inProcess, err = miner.NewAgent(miner.AgentOptions{Kind: agentKind, Skill: cmd.Float("skill"),
					LLMBaseURL: cfg.LLM.BaseURL, LLMModel: cfg.LLM.Model, LLMAPIKey: cfg.LLM.APIKey.Reveal(), LLMTimeout: cfg.LLM.Timeout.Duration}, log); err != nil {
					return err
				}
			}
			// Everything below only reports: the operator's log level
			// still applies, but info lines would break the progress bar.
			quiet := log
			if log.GetLevel() < zerolog.WarnLevel {
				quiet = log.Level(zerolog.WarnLevel)
			}
			prog := newProgressLine(env.stderr, "")
			// Practice has no chain, so no block: the catalog before any restock.
			idx, web, err := validator.LoadShop(ctx, cfg.Catalog, 0, quiet, func(stage string, d, t int) {
				prog.label = stage
				prog.update(int64(d), int64(t), "products")
			})
			prog.finish()
			if err != nil {
				return err
			}
			problems, err := practiceProblems(ctx, env, quiet, cmd, idx, web, types, n)
			if err != nil {
				return err
			}
			tools, err := shop.NewTools(shop.ToolsOptions{Index: idx, Web: web}, quiet, nil)
			if err != nil {
				return err
			}
			jdg, err := validator.NewJudge(*cfg, quiet, prometheus.NewRegistry())
			if err != nil {
				return err
			}
			popts := practice.Options{Tools: tools, Judge: jdg, Limits: limits, RunSize: cfg.Validator.QualifyingProblems, Expect: expect,
				StandIn: cmd.Bool("stand-in"), DialWait: cmd.Duration("wait")}
			if popts.Relay, popts.Verification, err = practiceRelay(cfg, cmd.Bool("require-verified"), popts.StandIn, quiet); err != nil {
				return err
			}
			p, err := practice.New(popts, quiet)
			if err != nil {
				return err
			}
			if inProcess != nil {
				// The reference server frees an episode's slot a moment after the
				// validator side has seen it end: give it room beyond the
				// concurrency, as `arena miner --max-episodes` does.
				addr, stop, err := practice.Serve(ctx, inProcess, max(64, 4*limits.MaxConcurrentEpisodes), quiet)
				if err != nil {
					return err
				}
				defer stop()
				endpoint = addr
			}
			bar := newPracticeProgress(env)
			rep, err := p.Run(ctx, endpoint, problems, func(id practice.Identity) {
				if !cmd.Bool("json") {
					fmt.Fprintf(env.stdout, "miner %s: register hotkey %s (the address's mirror)\n", id.Address, id.Hotkey)
				}
			}, bar.update)
			bar.finish()
			if err != nil {
				return err
			}
			if dir := cmd.String("out"); dir != "" {
				if err := savePractice(ctx, rep, dir, cfg, quiet); err != nil {
					return err
				}
				if !cmd.Bool("json") {
					fmt.Fprintf(env.stdout, "stored %d episodes in %s (arena export --data %s ...)\n", rep.Episodes, dir, dir)
				}
			}
			if cmd.Bool("json") {
				b, err := rep.JSON()
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(env.stdout, "%s\n", b)
				return err
			}
			fmt.Fprintln(env.stdout)
			rep.Print(env.stdout)
			return nil
		},
	}
}

// practiceRelay is the relay practice offers and what scoring does with
// verification: no chain, so relay.required's auto is off; a relay
// reports findings (record) and --require-verified gates on them, with
// or without a relay (a miner with none verifies nothing).
func practiceRelay(cfg *config.Config, require, standIn bool, log zerolog.Logger) (episode.Relay, judge.Verification, error) {
	var rl episode.Relay
	mode := judge.VerifyOff
	switch {
	case standIn:
		var err error
		if rl, err = practice.StandInRelay(require, log); err != nil {
			return nil, "", err
		}
		mode = judge.VerifyRecord
	case cfg.Relay.BaseURL != "":
		rc := *cfg
		if require {
			// The relay's offer tells the agent what scoring will do.
			rc.Relay.Required = config.RelayTrue
		}
		var err error
		if rl, mode, err = validator.NewRelay(rc, 0, log, prometheus.NewRegistry()); err != nil {
			return nil, "", err
		}
	}
	if require {
		mode = judge.VerifyRequire
	}
	return rl, mode, nil
}

// parsePracticeTypes reads --types.
func parsePracticeTypes(s string) ([]suite.Type, error) {
	var out []suite.Type
	for f := range strings.SplitSeq(s, ",") {
		t, err := suite.ParseType(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--types %q: %w", s, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// practiceProblems reads --suite (the first n problems of the types) or
// generates n problems of the types from the catalog.
func practiceProblems(ctx context.Context, env *cliEnv, log zerolog.Logger, cmd *cli.Command, idx *shop.Index, web *knowledge.Corpus,
	types []suite.Type, n int) ([]suite.Problem, error) {
	want := map[suite.Type]bool{}
	for _, t := range types {
		want[t] = true
	}
	if path := cmd.String("suite"); path != "" {
		all, err := loadProblems(ctx, env, log, cmd, "")
		if err != nil {
			return nil, fmt.Errorf("--suite %s: %w", path, err)
		}
		var out []suite.Problem
		for _, p := range all {
			if !want[p.Type] {
				continue
			}
			for _, id := range p.Targets {
				if _, ok := idx.Catalog().Product(id); !ok {
					return nil, fmt.Errorf("--suite %s: problem %s: target %s is not in the catalog: practise with the catalog the suite was generated from", path, p.ID, id)
				}
			}
			if out = append(out, p); len(out) == n {
				break
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("--suite %s has no problems of types %v", path, types)
		}
		return out, nil
	}
	mix := suite.Mix{}
	for _, t := range types {
		mix[t] = 1
	}
	g, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: cmd.Uint64("seed"), Knowledge: web}, log)
	if err != nil {
		return nil, err
	}
	prog := newProgressLine(env.stderr, "generating problems")
	problems, _, err := g.Generate(ctx, suite.Request{Count: n, Mix: mix,
		Progress: func(d, t int) { prog.update(int64(d), int64(t), "problems") }})
	prog.finish()
	if err != nil {
		return nil, err
	}
	return problems, nil
}

// savePractice stores the report in dir with the configured store limits.
func savePractice(ctx context.Context, rep *practice.Report, dir string, cfg *config.Config, log zerolog.Logger) error {
	c := *cfg
	c.DataDir = dir
	st, err := store.Open(validator.StoreOptions(c), log, nil)
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if err := rep.Save(ctx, st, log); err != nil {
		st.Close()
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if err := st.Close(); err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	return nil
}

// practiceProgress is the live bar on a terminal (episodes, success so
// far, elapsed, ETA) and a plain line per tenth of the run otherwise.
type practiceProgress struct {
	env   *cliEnv
	tty   bool
	line  *progressLine
	start time.Time
	tenth int
}

func newPracticeProgress(env *cliEnv) *practiceProgress {
	return &practiceProgress{env: env, tty: logx.IsTerminal(env.stderr), line: newProgressLine(env.stderr, "practice"), start: time.Now()}
}

func (b *practiceProgress) update(p practice.Progress) {
	elapsed := time.Since(b.start)
	eta := time.Duration(0)
	if p.Done > 0 {
		eta = time.Duration(float64(elapsed) / float64(p.Done) * float64(p.Total-p.Done))
	}
	note := fmt.Sprintf("success %.0f%%  ETA %s", 100*float64(p.Succeeded)/float64(max(p.Done, 1)), eta.Round(time.Second))
	if b.tty {
		b.line.updateNote(int64(p.Done), int64(p.Total), "episodes", note)
		return
	}
	if t := 10 * p.Done / p.Total; t > b.tenth || p.Done == p.Total {
		b.tenth = t
		fmt.Fprintf(b.env.stderr, "practice: %d/%d episodes, %s, %s elapsed\n", p.Done, p.Total, note, elapsed.Round(time.Second))
	}
}

func (b *practiceProgress) finish() { b.line.finish() }
