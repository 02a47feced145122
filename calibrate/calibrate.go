// Package calibrate measures how well a suite separates agents: it plays
// baseline agents (the lazy agent that searches the raw query and takes
// the first hit, the reference heuristic at several skills, and a solver
// that knows each problem's constraints but not its targets) over a
// sample of problems, through the real episode protocol on a loopback
// socket, the real shop tools and the real rule metrics, and reports each
// agent's success by problem type and difficulty.
//
// `arena suite calibrate` prints the report; the suite's defaults are
// chosen so that the lazy agent fails, the solver succeeds and the
// heuristic's success falls with its skill (docs/operations.md).
package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/knowledge"
	"arena/practice"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/shop"
	"arena/suite"
)

// Options configure New.
type Options struct {
	// Index is the catalog's search index the tools run on (required).
	Index *shop.Index
	// Knowledge is the web corpus web_search answers from (knowledge.Build
	// over the same catalog); knowledge problems need it.
	Knowledge *knowledge.Corpus
	// Limits bound each episode; zero fields take the episode defaults.
	Limits episode.Limits
	// Batch is how many problems run between progress reports, and the
	// size of the runs whose thinks are compared for templates (default
	// 10, a race's size).
	Batch int
}

// Calibrator runs agents over problems.
type Calibrator struct {
	opts   Options
	cat    *shop.Catalog
	tools  *shop.Tools
	runner *episode.Runner
	judge  *judge.Grounding
	log    zerolog.Logger
}

// New builds the tools and the validator side of the episodes.
func New(opts Options, log zerolog.Logger) (*Calibrator, error) {
	if opts.Index == nil {
		return nil, errors.New("calibrate: Index is required")
	}
	if opts.Batch <= 0 {
		opts.Batch = 10
	}
	if opts.Limits.MaxConcurrentEpisodes == 0 {
		// Baselines answer at once; more episodes in flight keep the tools
		// busy.
		opts.Limits.MaxConcurrentEpisodes = 16
	}
	topts := shop.ToolsOptions{Index: opts.Index}
	if opts.Knowledge != nil {
		topts.Web = opts.Knowledge
	}
	tools, err := shop.NewTools(topts, log, nil)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	runner, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(key), Tools: tools, Limits: opts.Limits}, log, nil)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	return &Calibrator{opts: opts, cat: opts.Index.Catalog(), tools: tools, runner: runner, judge: judge.NewGrounding(judge.GroundingOptions{}, log),
		log: log.With().Str("component", "suite.calibrate").Logger()}, nil
}

// Tally counts successes.
type Tally struct {
	Solved int `json:"solved"`
	Total  int `json:"total"`
}

// Rate is Solved over Total, or NaN without problems.
func (t Tally) Rate() float64 {
	if t.Total == 0 {
		return math.NaN()
	}
	return float64(t.Solved) / float64(t.Total)
}

// AgentReport is one agent's success.
type AgentReport struct {
	Name         string                                    `json:"name"`
	ByType       map[suite.Type]Tally                      `json:"by_type"`
	ByDifficulty map[suite.Difficulty]Tally                `json:"by_difficulty"`
	Cells        map[suite.Type]map[suite.Difficulty]Tally `json:"cells"`
	All          Tally                                     `json:"all"`
	// Steps is the mean number of steps per episode.
	Steps float64 `json:"steps"`
	// Q is the mean reasoning score the grounding judge gives, after the
	// template cap, over runs of Options.Batch problems (as a validator
	// judges a qualifying run or a race); Templated counts the runs
	// whose thinks follow one template.
	Q         float64 `json:"q"`
	Templated Tally   `json:"templated"`
}

// Report is a calibration run's outcome.
type Report struct {
	Agents  []AgentReport    `json:"agents"`
	Queries suite.QueryStats `json:"queries"`
	// Problems are how many problems of each type were played.
	Problems map[suite.Type]int `json:"problems"`
}

// Run plays each agent over the problems and scores every episode with
// the rule metrics, as the validator scores a race. progress, if set, is
// called with episodes done and the total.
func (c *Calibrator) Run(ctx context.Context, problems []suite.Problem, agents []Agent, progress func(done, total int)) (*Report, error) {
	rep := &Report{Queries: suite.MeasureQueries(problems, c.cat), Problems: map[suite.Type]int{}}
	for _, p := range problems {
		rep.Problems[p.Type]++
	}
	total, done := len(problems)*len(agents), 0
	for _, a := range agents {
		ar, err := c.play(ctx, a, problems, func(n int) {
			done += n
			if progress != nil {
				progress(done, total)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("calibrate %s: %w", a.Name, err)
		}
		rep.Agents = append(rep.Agents, ar)
	}
	return rep, nil
}

func (c *Calibrator) play(ctx context.Context, a Agent, problems []suite.Problem, progress func(int)) (AgentReport, error) {
	ar := AgentReport{Name: a.Name, ByType: map[suite.Type]Tally{}, ByDifficulty: map[suite.Difficulty]Tally{},
		Cells: map[suite.Type]map[suite.Difficulty]Tally{}}
	agent, err := a.New(problems)
	if err != nil {
		return ar, err
	}
	if cl, ok := agent.(interface{ Close() }); ok {
		defer cl.Close()
	}
	// The baselines' servers are part of the measurement, not services:
	// only their warnings are worth a line.
	log := c.log
	if log.GetLevel() < zerolog.WarnLevel {
		log = log.Level(zerolog.WarnLevel)
	}
	addr, stop, err := practice.Serve(ctx, agent, 64, log)
	if err != nil {
		return ar, err
	}
	defer stop()
	m := episode.Miner{UID: 1, Endpoint: addr, AnyIdentity: true}
	steps, qSum := 0, 0.0
	for batch := range slices.Chunk(problems, c.opts.Batch) {
		eps := make([]episode.Problem, len(batch))
		for i, p := range batch {
			eps[i] = episode.Problem{ID: p.ID, Query: p.Query}
		}
		trs := c.runner.Run(ctx, m, eps)
		if err := ctx.Err(); err != nil {
			return ar, err
		}
		trajs, vs := make([]*episode.Trajectory, len(trs)), make([]*judge.Verdict, len(trs))
		for i := range trs {
			v := c.judge.Score(&trs[i])
			trajs[i], vs[i] = &trs[i], &v
		}
		_, templated := judge.TemplateOptions{}.Apply(trajs, vs)
		ar.Templated.Total++
		if templated {
			ar.Templated.Solved++
		}
		for _, v := range vs {
			qSum += v.Score
		}
		for i := range trs {
			p := &batch[i]
			ok, err := c.success(ctx, p, &trs[i])
			if err != nil {
				return ar, err
			}
			steps += len(trs[i].Steps)
			add := func(t Tally) Tally {
				t.Total++
				if ok {
					t.Solved++
				}
				return t
			}
			ar.ByType[p.Type] = add(ar.ByType[p.Type])
			ar.ByDifficulty[p.Difficulty] = add(ar.ByDifficulty[p.Difficulty])
			if ar.Cells[p.Type] == nil {
				ar.Cells[p.Type] = map[suite.Difficulty]Tally{}
			}
			ar.Cells[p.Type][p.Difficulty] = add(ar.Cells[p.Type][p.Difficulty])
			ar.All = add(ar.All)
		}
		progress(len(batch))
	}
	if ar.All.Total > 0 {
		ar.Steps = float64(steps) / float64(ar.All.Total)
		ar.Q = qSum / float64(ar.All.Total)
	}
	return ar, nil
}

// success scores a trajectory with the rule metrics (lexical titles,
// grounding against the trajectory's own observations).
func (c *Calibrator) success(ctx context.Context, p *suite.Problem, tr *episode.Trajectory) (bool, error) {
	m, err := scoring.Rules(ctx, scoring.Input{Problem: p, Answers: scoring.LookupAnswers(c.cat, tr.Recommended), Trajectory: tr, Observed: scoring.ObservedIDs(tr)}, scoring.Options{})
	if err != nil {
		return false, err
	}
	return m.Success, nil
}

// Sample takes the first perType problems of each type, in suite order
// (all of them when perType <= 0).
func Sample(problems []suite.Problem, perType int) []suite.Problem {
	if perType <= 0 {
		return problems
	}
	n := map[suite.Type]int{}
	var out []suite.Problem
	for _, p := range problems {
		if n[p.Type] < perType {
			n[p.Type]++
			out = append(out, p)
		}
	}
	return out
}

// JSON is the report's rates: {"agents": {name: {type: rate, ..., "all":
// rate}}}, with every problem type (null when the sample has none of it).
func (r *Report) JSON() ([]byte, error) {
	agents := map[string]map[string]*float64{}
	for _, a := range r.Agents {
		rates := map[string]*float64{}
		for _, t := range suite.AllTypes() {
			rates[string(t)] = rateOrNil(a.ByType[t])
		}
		rates["all"] = rateOrNil(a.All)
		agents[a.Name] = rates
	}
	return json.Marshal(map[string]any{"agents": agents})
}

func rateOrNil(t Tally) *float64 {
	if t.Total == 0 {
		return nil
	}
	r := t.Rate()
	return &r
}
