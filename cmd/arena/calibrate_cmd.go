package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"arena/calibrate"
	"arena/knowledge"
	"arena/shop"
	"arena/suite"
)

func newSuiteCalibrateCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "calibrate",
		Usage: "measure how well a suite separates agents: baseline agents' success by type and difficulty",
		UsageText: "arena suite calibrate --catalog FILE (--suite FILE.jsonl | --data DIR) [--per-type N] [--skills 1,0.8,0.6,0.4] [--json]\n" +
			"arena suite calibrate --catalog FILE --generate N [--seed S] [--mix WEIGHTS] [--json]",
		Description: "Plays, through the real episode protocol on a loopback socket, the real shop tools and the\n" +
			"rule metrics a race uses: the lazy agent (searches the raw query, recommends the first hit),\n" +
			"the reference heuristic at each --skills value, and a solver that knows each problem's\n" +
			"constraints but not its targets. A useful suite fails the lazy agent, lets the solver\n" +
			"succeed, and orders the heuristic by skill. Also prints each agent's mean reasoning score q\n" +
			"(grounding judge, template cap over runs of 10) and query statistics: how often the\n" +
			"target's core name appears verbatim and the share of its title words in the query.\n\n" +
			"--json prints {\"agents\": {\"lazy\": {\"product\": x, \"shop\": x, \"voucher\": x,\n" +
			"\"knowledge\": x, \"all\": x}, \"heuristic:1.0\": {...}, \"solver\": {...}}} (null for a type\n" +
			"the sample lacks).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` the suite was generated from (JSON Lines, plain or gzip)", Required: true, TakesFile: true},
			&cli.IntFlag{Name: "per-type", Usage: "play the first `N` problems of each type (0: all)", Value: 300},
			&cli.IntFlag{Name: "generate", Usage: "generate `N` problems from the catalog instead of reading a suite"},
			&cli.Uint64Flag{Name: "seed", Usage: "with --generate: generator seed `S`", Value: 1},
			&cli.StringFlag{Name: "mix", Usage: "with --generate: type `WEIGHTS`", Value: "product:1,shop:1,voucher:1"},
			&cli.StringFlag{Name: "skills", Usage: "heuristic `SKILLS` to play, comma-separated in (0, 1]", Value: "1,0.8,0.6,0.4"},
			&cli.BoolFlag{Name: "json", Usage: "print the success rates as one JSON object"},
		}, suiteSourceFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			skills, err := parseSkills(cmd.String("skills"))
			if err != nil {
				return err
			}
			generate := cmd.Int("generate")
			if generate < 0 || cmd.Int("per-type") < 0 {
				return errors.New("--generate and --per-type must not be negative")
			}
			if generate > 0 && (cmd.IsSet("suite") || cmd.IsSet("data")) {
				return errors.New("give --generate N or a suite (--suite FILE.jsonl or --data DIR), not both")
			}
			var mix suite.Mix
			if generate > 0 {
				if mix, err = suite.ParseMix(cmd.String("mix")); err != nil {
					return err
				}
			}
			cat, err := loadCatalog(ctx, env, log, cmd)
			if err != nil {
				return err
			}
			prog := newProgressLine(env.stderr, "indexing")
			idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Progress: func(d, t int) { prog.update(int64(d), int64(t), "products") }}, log)
			prog.finish()
			if err != nil {
				return err
			}
			// The web behind web_search, as the validator builds it from
			// the catalog: knowledge problems are solved through it.
			web, err := knowledge.Build(ctx, cat, knowledge.Options{}, log)
			if err != nil {
				return err
			}
			var problems []suite.Problem
			if generate > 0 {
				g, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: cmd.Uint64("seed"), Knowledge: web}, log)
				if err != nil {
					return err
				}
				prog = newProgressLine(env.stderr, "generating")
				problems, _, err = g.Generate(ctx, suite.Request{Count: generate, Mix: mix,
					Progress: func(d, t int) { prog.update(int64(d), int64(t), "problems") }})
				prog.finish()
				if err != nil {
					return err
				}
			} else if problems, err = loadProblems(ctx, env, log, cmd, cfg.DataDir); err != nil {
				return err
			}
			problems = calibrate.Sample(problems, cmd.Int("per-type"))
			if len(problems) == 0 {
				return errors.New("no problems to play")
			}
			for _, p := range problems {
				if len(p.Targets) > 0 {
					if _, ok := cat.Product(p.Targets[0]); !ok {
						return fmt.Errorf("problem %s: target %s is not in --catalog: calibrate with the catalog the suite was generated from", p.ID, p.Targets[0])
					}
				}
			}
			c, err := calibrate.New(calibrate.Options{Index: idx, Knowledge: web}, log)
			if err != nil {
				return err
			}
			prog = newProgressLine(env.stderr, "playing")
			rep, err := c.Run(ctx, problems, calibrate.DefaultAgents(skills...), func(d, t int) { prog.update(int64(d), int64(t), "episodes") })
			prog.finish()
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				b, err := rep.JSON()
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(env.stdout, "%s\n", b)
				return err
			}
			printCalibration(env, rep)
			return nil
		},
	}
}

func parseSkills(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0 && x <= 1) {
			return nil, fmt.Errorf("--skills %q: each skill must be a number in (0, 1]", s)
		}
		out = append(out, x)
	}
	return out, nil
}

// printCalibration prints one row per agent: success by type, by
// difficulty and overall, with mean steps and reasoning q.
func printCalibration(env *cliEnv, rep *calibrate.Report) {
	types := suite.AllTypes()
	diffs := []suite.Difficulty{suite.Easy, suite.Medium, suite.Hard}
	fmt.Fprintf(env.stdout, "problems:")
	for _, t := range types {
		fmt.Fprintf(env.stdout, " %s %d", t, rep.Problems[t])
	}
	q := rep.Queries
	verbatim := 0.0
	if q.Items > 0 {
		verbatim = float64(q.Verbatim) / float64(q.Items)
	}
	fmt.Fprintf(env.stdout, "\nqueries (%d items): core name verbatim %.1f%%, title words in the query %.1f%% on average\n\n",
		q.Items, 100*verbatim, 100*q.TitleShare)
	fmt.Fprintf(env.stdout, "%-14s", "success")
	for _, t := range types {
		fmt.Fprintf(env.stdout, " %9s", t)
	}
	for _, d := range diffs {
		fmt.Fprintf(env.stdout, " %7s", d)
	}
	fmt.Fprintf(env.stdout, " %7s %6s %5s %9s\n", "all", "steps", "q", "templated")
	pct := func(t calibrate.Tally) string {
		if r := t.Rate(); !math.IsNaN(r) {
			return fmt.Sprintf("%.1f%%", 100*r)
		}
		return "-"
	}
	for _, a := range rep.Agents {
		fmt.Fprintf(env.stdout, "%-14s", a.Name)
		for _, t := range types {
			fmt.Fprintf(env.stdout, " %9s", pct(a.ByType[t]))
		}
		for _, d := range diffs {
			fmt.Fprintf(env.stdout, " %7s", pct(a.ByDifficulty[d]))
		}
		fmt.Fprintf(env.stdout, " %7s %6.1f %5.2f %9s\n", pct(a.All), a.Steps, a.Q, fmt.Sprintf("%d/%d", a.Templated.Solved, a.Templated.Total))
	}
}
