package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"arena/simulate"
	"arena/validator"
)

func newSimulateCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "Monte Carlo of independent validators racing the same miners (do they crown the best one, and agree?)",
		UsageText: "arena simulate [--validators K] [--leader-success P] [--challenger-success P] [--miners N] [--days D] [--runs R] [--json]\n" +
			"arena simulate --validators 8 --leader-success 0.50 --challenger-success 0.60 --days 1 --runs 200 --json",
		Description: "Runs the validator's own race rule (scoring/race), weights policy and SDK weight conversion\n" +
			"for K validators, each drawing its own hidden problems, against the same simulated miners,\n" +
			"and the devnet's Yuma consensus (kappa 0.5, equal stake) on the weights they would set.\n\n" +
			"Miners: uid 1 is the leader (the incumbent on every validator unless --no-incumbent), uid 2\n" +
			"the challenger, uids 3.. its --clones copies (the same skill, each with its own luck), then\n" +
			"the field, with success rates spread over --field-success; --miners counts them all.\n" +
			"Registration follows that order (the field first with --field-first). A success rate is\n" +
			"one number or per type, e.g. product=0.6,shop=0.4,voucher=0.5. On each problem a miner's\n" +
			"outcome follows the problem's shared difficulty with probability --correlation, its own\n" +
			"luck otherwise; with --scores judged (the default, as the daemon scores) a solved problem\n" +
			"scores c(q) for a q drawn from the miner's --quality over the judge's ladder.\n\n" +
			"The race settings default to the config (--config, ARENA_* env); timing defaults to\n" +
			"finney (a race every 360-block tempo of 12 s blocks). The output gives, at each checkpoint\n" +
			"day, who the validators crown and whether they agree, then the time to crown the best\n" +
			"miner, false crowns, flaps and the cost. Every run's randomness comes from --seed and the\n" +
			"run number, so a result replays exactly. See docs/scoring.md (\"Races: who leads\").",
		Flags: append(env.globalFlags(),
			&cli.IntFlag{Name: "validators", Usage: "independent validators `K`, equal stake", Value: 8},
			&cli.IntFlag{Name: "miners", Usage: "miners `N`: the leader, the challenger, its copies and the field (at least 2 + --clones)", Value: 2},
			&cli.StringFlag{Name: "leader-success", Usage: "the leader's true success `P` (one number or type=P,...)", Value: "0.5"},
			&cli.StringFlag{Name: "challenger-success", Usage: "the challenger's true success `P` (one number or type=P,...)", Value: "0.6"},
			&cli.StringFlag{Name: "field-success", Usage: "field miners' success, spread evenly over `LO-HI`", Value: "0.2-0.45"},
			&cli.Float64Flag{Name: "challenger-arrives", Usage: "`DAY` the challenger registers", Value: 0},
			&cli.BoolFlag{Name: "no-incumbent", Usage: "nobody leads at the start (the first crown)"},
			&cli.StringFlag{Name: "types", Usage: "problem types and shares, type:share,... or equal shares type,type,... (`LIST`; default: validator.problem_mix)"},
			&cli.StringFlag{Name: "scores", Usage: "`MODEL` of a problem's score: judged (success × c(q), q from the judge's ladder, as the daemon scores) or binary (pass/fail)", Value: simulate.ScoresJudged},
			&cli.StringFlag{Name: "quality", Usage: "with judged scores, every miner's chances of the judge's rungs q=0.3,0.5,0.7,0.9 (`P,P,P,P`)", Value: formatFloats(simulate.DefaultQuality)},
			&cli.StringFlag{Name: "challenger-quality", Usage: "the challenger's (and its copies') rung chances (`P,P,P,P`; default: --quality)"},
			&cli.IntFlag{Name: "clones", Usage: "`N` more miners running the challenger's agent (each with its own luck), registered one after another after it"},
			&cli.BoolFlag{Name: "field-first", Usage: "the field registered before the leader and the challenger (default: after them)"},
			&cli.Float64Flag{Name: "leader-stops", Usage: "`DAY` from which the leader stops serving (0: never)"},
			&cli.Float64Flag{Name: "void-share", Usage: "chance `P` that a race is void (judge unavailable): no heat, standing unchanged"},
			&cli.Uint64Flag{Name: "race-blocks", Usage: "`B` blocks a race takes; above race_every_blocks the next race starts when it ends (0: within its window)"},
			&cli.Float64Flag{Name: "correlation", Usage: "per-problem difficulty correlation `C` in [0, 1]", Value: 0.5},
			&cli.Float64Flag{Name: "days", Usage: "simulated `DAYS` of races", Value: 7},
			&cli.StringFlag{Name: "checkpoints", Usage: "`DAYS` (comma list) at which to report; the last day is always one", Value: "1,3,7"},
			&cli.IntFlag{Name: "runs", Usage: "independent `RUNS`", Value: 200},
			&cli.Uint64Flag{Name: "seed", Usage: "`SEED` of every run (printed with the result; the same seed replays it)", Value: 1},
			&cli.Float64Flag{Name: "block-seconds", Usage: "block time `S` (finney: 12)", Value: 12},
			&cli.Uint64Flag{Name: "race-every-blocks", Usage: "race cadence `B` in blocks (validator.race_every_blocks)", DefaultText: "from the config"},
			&cli.IntFlag{Name: "race-problems", Usage: "hidden problems `N` per race (validator.race_problems)", DefaultText: "from the config"},
			&cli.IntFlag{Name: "qualifying-problems", Usage: "public problems `N` per qualifying run (validator.qualifying_problems)", DefaultText: "from the config"},
			&cli.Float64Flag{Name: "margin", Usage: "race.margin `M`", DefaultText: "from the config"},
			&cli.Float64Flag{Name: "confidence", Usage: "race.confidence `C`", DefaultText: "from the config"},
			&cli.Float64Flag{Name: "tie-margin", Usage: "race.tie_margin `M`", DefaultText: "from the config"},
			&cli.Uint64Flag{Name: "window-blocks", Usage: "race.window_blocks `B`", DefaultText: "from the config"},
			&cli.StringFlag{Name: "policy", Usage: "weights.policy `KIND` (winner_take_all or taper)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, _, err := env.load(cmd, configFlags{
				"race-every-blocks": "validator.race_every_blocks", "race-problems": "validator.race_problems",
				"qualifying-problems": "validator.qualifying_problems", "margin": "race.margin", "confidence": "race.confidence",
				"tie-margin": "race.tie_margin", "window-blocks": "race.window_blocks", "policy": "weights.policy",
			})
			if err != nil {
				return fmt.Errorf("simulate: %w", err)
			}
			sc, err := scenarioFromFlags(cmd, cfg.Validator.ProblemMix)
			if err != nil {
				return fmt.Errorf("simulate: %w", err)
			}
			sc.RaceEveryBlocks = cfg.Validator.RaceEveryBlocks
			sc.RaceProblems = cfg.Validator.RaceProblems
			sc.QualifyingProblems = cfg.Validator.QualifyingProblems
			sc.Race = validator.RaceParams(cfg.Race)
			sc.Policy = validator.WeightsPolicy(cfg.Weights)
			if err := sc.Validate(); err != nil {
				return fmt.Errorf("simulate: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
			}
			prog := newProgressLine(env.stderr, "simulating")
			res, err := simulate.Run(ctx, sc, func(done, total int) { prog.update(int64(done), int64(total), "runs") })
			prog.finish()
			if err != nil {
				return fmt.Errorf("simulate: %w", err)
			}
			if cmd.Bool("json") {
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			printSimulation(env.stdout, sc, res)
			return nil
		},
	}
}

// scenarioFromFlags builds the miners, types and schedule; race settings
// come from the config.
func scenarioFromFlags(cmd *cli.Command, mix string) (simulate.Scenario, error) {
	sc := simulate.Scenario{
		Validators: int(cmd.Int("validators")), Correlation: cmd.Float64("correlation"), Days: cmd.Float64("days"),
		BlockSeconds: cmd.Float64("block-seconds"), Runs: int(cmd.Int("runs")), Seed: cmd.Uint64("seed"),
		Scores: cmd.String("scores"), VoidShare: cmd.Float64("void-share"), RaceBlocks: cmd.Uint64("race-blocks"),
	}
	types := cmd.String("types")
	if types == "" {
		types = mix
	}
	var err error
	if sc.Types, err = parseTypes(types); err != nil {
		return sc, err
	}
	miners := int(cmd.Int("miners"))
	if !cmd.IsSet("miners") {
		miners = max(miners, 2+int(cmd.Int("clones")))
	}
	o := simulate.CrowdOptions{
		Miners: miners, Clones: int(cmd.Int("clones")), ChallengerArrivesDay: cmd.Float64("challenger-arrives"),
		NoIncumbent: cmd.Bool("no-incumbent"), LeaderStopsDay: cmd.Float64("leader-stops"), FieldRegisteredFirst: cmd.Bool("field-first"),
	}
	if o.Leader, err = parseSuccess("--leader-success", cmd.String("leader-success"), sc.Types); err != nil {
		return sc, err
	}
	if o.Challenger, err = parseSuccess("--challenger-success", cmd.String("challenger-success"), sc.Types); err != nil {
		return sc, err
	}
	if o.FieldLow, o.FieldHigh, err = parseRange("--field-success", cmd.String("field-success")); err != nil {
		return sc, err
	}
	if o.Quality, err = parseFloats("--quality", cmd.String("quality"), len(simulate.QualityLadder)); err != nil {
		return sc, err
	}
	if q := cmd.String("challenger-quality"); q != "" {
		if o.ChallengerQuality, err = parseFloats("--challenger-quality", q, len(simulate.QualityLadder)); err != nil {
			return sc, err
		}
	}
	if sc.Miners, err = simulate.Crowd(o); err != nil {
		return sc, fmt.Errorf("--miners %d --clones %d: %w", o.Miners, o.Clones, err)
	}
	for _, f := range strings.Split(cmd.String("checkpoints"), ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return sc, fmt.Errorf("--checkpoints: %q is not a number of days", f)
		}
		if d <= sc.Days {
			sc.Checkpoints = append(sc.Checkpoints, d)
		}
	}
	return sc, nil
}

// parseSuccess reads "0.6" (every type) or "product=0.6,shop=0.4,...".
func parseSuccess(flag, s string, types []simulate.Type) ([]float64, error) {
	out := make([]float64, len(types))
	if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		for i := range out {
			out[i] = v
		}
		return out, nil
	}
	set := make([]bool, len(types))
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		v, err := strconv.ParseFloat(val, 64)
		i := slices.IndexFunc(types, func(t simulate.Type) bool { return t.Name == name })
		if !ok || err != nil || i < 0 {
			return nil, fmt.Errorf("%s %q: want a number or type=number pairs over the types %s", flag, s, typeNames(types))
		}
		out[i], set[i] = v, true
	}
	for i, ok := range set {
		if !ok {
			return nil, fmt.Errorf("%s %q: no rate for type %s", flag, s, types[i].Name)
		}
	}
	return out, nil
}

// parseTypes reads "product:0.4,shop:0.3,..." or "product,shop,..."
// (equal shares).
func parseTypes(s string) ([]simulate.Type, error) {
	var out []simulate.Type
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, share, weighted := strings.Cut(part, ":")
		t := simulate.Type{Name: strings.TrimSpace(name), Share: 1}
		if weighted {
			v, err := strconv.ParseFloat(strings.TrimSpace(share), 64)
			if err != nil || !(v > 0) {
				return nil, fmt.Errorf("--types %q: %q is not type:share with a positive share", s, part)
			}
			t.Share = v
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--types %q names no type", s)
	}
	return out, nil
}

// parseFloats reads n comma-separated numbers.
func parseFloats(flag, s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%s %q: want %d comma-separated numbers", flag, s, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %q is not a number", flag, s, p)
		}
		out[i] = v
	}
	return out, nil
}

func formatFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func typeNames(types []simulate.Type) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name
	}
	return strings.Join(names, ",")
}

func parseRange(flag, s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, "-")
	lo, err1 := strconv.ParseFloat(a, 64)
	hi, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || lo > hi {
		return 0, 0, fmt.Errorf("%s %q: want LO-HI, e.g. 0.2-0.45", flag, s)
	}
	return lo, hi, nil
}

func printSimulation(w io.Writer, sc simulate.Scenario, res simulate.Result) {
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	fmt.Fprintf(w, "%d runs × %d validators, %d miners (best: uid %d), %.3g days at %.0f races a day, %s scores, seed %d\n",
		res.Runs, res.Validators, res.Miners, res.Best, sc.Days, 86400/sc.BlockSeconds/float64(sc.RaceEveryBlocks), sc.Scores, res.Seed)
	fmt.Fprintf(w, "race: %d hidden problems, margin %.3g, confidence %.3g, tie margin %.3g, window %d blocks\n\n",
		sc.RaceProblems, sc.Race.Margin, sc.Race.Confidence, sc.Race.TieMargin, sc.Race.WindowBlocks)
	fmt.Fprintf(w, "%-5s %-9s %-9s %-12s %-10s %-10s %s\n", "day", "crowned", "all agree", "agree on best", "incentive", "vtrust", "leaders")
	for _, cp := range res.Checkpoints {
		keys := make([]string, 0, len(cp.Leaders))
		for k := range cp.Leaders {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return cp.Leaders[keys[i]] > cp.Leaders[keys[j]] })
		var leaders []string
		for _, k := range keys[:min(4, len(keys))] {
			leaders = append(leaders, fmt.Sprintf("%s %s", k, pct(cp.Leaders[k])))
		}
		fmt.Fprintf(w, "%-5.3g %-9s %-9s %-12s %-10.3f %-10.3f %s\n", cp.Day, pct(cp.CrownedShare), pct(cp.AllAgreeShare),
			pct(cp.AllAgreeBestShare), cp.BestIncentive, cp.ValidatorVtrust, strings.Join(leaders, ", "))
	}
	fmt.Fprintf(w, "\nat the end: the best miner's incentive %.3f, mean validator trust %.3f\n", res.BestIncentive, res.MeanVtrust)
	if q := res.TimeToCrownHours; q.N > 0 {
		fmt.Fprintf(w, "time to crown the best miner: median %.1f h, 90th percentile %.1f h; never crowned: %s\n", *q.Median, *q.P90, pct(res.NeverCrownedShare))
	} else if res.NeverCrownedShare > 0 {
		fmt.Fprintf(w, "time to crown the best miner: never crowned in %s\n", pct(res.NeverCrownedShare))
	}
	if res.HonestLeaderKeptShare >= 0 {
		fmt.Fprintf(w, "the best miner, leading from the start, kept the crown throughout: %s\n", pct(res.HonestLeaderKeptShare))
	}
	fmt.Fprintf(w, "false crowns: %.4f per validator-day (%.2f%% of validator-days have one); crown changes: %.4f per validator-day\n",
		res.FalseCrownsPerDay, 100*res.FalseCrownDayShare, res.FlapsPerDay)
	fmt.Fprintf(w, "cost per validator: %.1f races and %.0f hidden problems a day; a racing miner runs %.0f episodes a day\n",
		res.RacesPerDay, res.HiddenPerDay, res.EpisodesPerMinerDay)
	if math.IsNaN(res.CrownedShare) {
		fmt.Fprintln(w, "no checkpoint")
	}
}
