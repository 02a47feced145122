package judge

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"arena/episode"
	"arena/scoring"
	"arena/suite"
)

// Case is one recorded episode to score: the problem, the agent's
// trajectory and its answer (the recommended products in order, with
// their catalog documents).
type Case struct {
	Problem    *suite.Problem
	Trajectory *episode.Trajectory
	Answers    []scoring.Answer
	// Group names the miner's run the case belongs to (its qualifying
	// run or its episodes of one race, e.g. "uid 7 race 12"): the
	// trajectories of one group are checked for a shared template and,
	// when templated, capped (TemplateOptions.Apply, with the judge's
	// GroundingOptions.Templates). Empty: not grouped.
	Group string
	// Verification says whether Evaluate checks the trajectory's steps
	// against the relay's completions (package scoring/verify). Only
	// Evaluate applies it; EvaluateBatch scores recorded episodes as
	// they were judged.
	Verification Verification
}

// Verification is what Evaluate does with verified inference.
type Verification string

const (
	// VerifyOff: no relay; steps are not checked (version 1 as before).
	VerifyOff Verification = ""
	// VerifyRecord: steps are checked and the findings recorded, with no
	// effect on the score (relay.required false).
	VerifyRecord Verification = "record"
	// VerifyRequire: an unverified or dictated step gives the episode no
	// credit (relay.required).
	VerifyRequire Verification = "require"
)

// Evaluation is the score of one Case.
type Evaluation struct {
	// Metrics are the rule metrics, grounding checked against the
	// trajectory's observations.
	Metrics scoring.Metrics
	// Verdict is the grounding judge's verdict on the trajectory,
	// capped when its group is templated.
	Verdict Verdict
	// Final is scoring.Final(&Metrics, Verdict.Score), 0 when Err is set.
	Final float64
	// Err is scoring.Rules's error (unusable problem, title matcher
	// failure) or the context's error for a case not scored because ctx
	// ended; Metrics is then the zero value.
	Err error
}

// BatchOptions configure EvaluateBatch. The zero value scores with
// Lexical titles on GOMAXPROCS goroutines.
type BatchOptions struct {
	// Rules are the rule metrics' options (title matcher).
	Rules scoring.Options
	// Workers is the number of goroutines; zero or less means
	// runtime.GOMAXPROCS(0).
	Workers int
}

// batchChunk is how many consecutive cases a worker claims at a time.
const batchChunk = 8

// EvaluateBatch scores many recorded episodes: out[i] is the evaluation
// of cases[i]. It gives exactly what the existing functions give one by
// one:
//
//	observed := scoring.ObservedAmong(c.Trajectory, answeredIDs)
//	m, err := scoring.Rules(ctx, scoring.Input{Problem: c.Problem, Answers: c.Answers,
//		Trajectory: c.Trajectory, Observed: observed}, opt.Rules)
//	v := g.Score(c.Trajectory)
//	final := scoring.Final(&m, v.Score)
//
// (a nil trajectory therefore grounds no answer), then, per Group, what
// g's TemplateOptions.Apply gives on the group's verdicts with the final
// scores recomputed, but faster: cases are
// scored on opt.Workers goroutines, and the answered ids are looked for
// first in the last few steps (where a recommended product is normally
// seen), then in each earlier result right after the judge has read it,
// while it is in cache, so no result is scanned for ids twice.
//
// When ctx ends, the cases not yet started get ctx's error. The title
// matcher of opt.Rules is called from several goroutines at once; the
// package's matchers are safe for that.
func (g *Grounding) EvaluateBatch(ctx context.Context, cases []Case, opt BatchOptions) []Evaluation {
	out := make([]Evaluation, len(cases))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, (len(cases)+batchChunk-1)/batchChunk)
	var next atomic.Int64
	work := func() {
		s := g.getScan()
		defer g.putScan(s)
		var gr grounding
		for {
			from := int(next.Add(batchChunk)) - batchChunk
			if from >= len(cases) {
				return
			}
			for i := from; i < min(from+batchChunk, len(cases)); i++ {
				if err := ctx.Err(); err != nil {
					out[i].Err = err
					continue
				}
				out[i] = evaluate(ctx, s, &gr, &cases[i], opt.Rules)
			}
		}
	}
	run(workers, work)
	g.capGroups(cases, out, max(opt.Workers, 0))
	return out
}

// run calls work on n goroutines (on this one when n ≤ 1) and waits.
func run(n int, work func()) {
	if n <= 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(work)
	}
	wg.Wait()
}

// capGroups detects templates in each group of cases and caps the
// evaluations of the templated ones, on workers goroutines (0:
// GOMAXPROCS).
func (g *Grounding) capGroups(cases []Case, out []Evaluation, workers int) {
	o := g.opts.Templates
	if o.Off {
		return
	}
	index := map[string]int{}
	var groups [][]int
	for i := range cases {
		if cases[i].Group == "" || cases[i].Trajectory == nil || errors.Is(out[i].Err, context.Canceled) || errors.Is(out[i].Err, context.DeadlineExceeded) {
			continue
		}
		k, ok := index[cases[i].Group]
		if !ok {
			k = len(groups)
			index[cases[i].Group] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], i)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	run(min(workers, len(groups)), func() {
		var d detector
		var trajs []*episode.Trajectory
		for {
			k := int(next.Add(1)) - 1
			if k >= len(groups) {
				return
			}
			trajs = trajs[:0]
			for _, i := range groups[k] {
				trajs = append(trajs, cases[i].Trajectory)
			}
			f, ok := d.detect(trajs, o)
			if !ok {
				continue
			}
			for _, i := range groups[k] {
				CapTemplated(&out[i].Verdict, f, o.Cap)
				if out[i].Err == nil {
					out[i].Final = scoring.Final(&out[i].Metrics, out[i].Verdict.Score)
				}
			}
		}
	})
}

// evaluate scores one case with the worker's scan and grounding buffers.
func evaluate(ctx context.Context, s *scan, gr *grounding, c *Case, opt scoring.Options) Evaluation {
	var ev Evaluation
	gr.reset(c.Answers)
	t := c.Trajectory
	if t == nil {
		ev.Verdict = Verdict{Judge: NameGrounding, Score: Ladder(Gates{})}
	} else {
		// Answers are usually observed in the last steps (a search or a
		// product page just before recommending): look there first, then
		// read the earlier results while the judge reads them. Each
		// result is scanned for ids at most once.
		from := max(len(t.Steps)-groundingTail, 0)
		for i := len(t.Steps) - 1; i >= from && gr.left > 0; i-- {
			gr.readStep(&t.Steps[i])
		}
		gr.upTo = from
		s.ground = gr
		ev.Verdict = s.verdict(t)
		s.ground, s.t = nil, nil
		if !gr.done { // the judge read no result (no think tokens)
			for i := 0; i < from && gr.left > 0; i++ {
				gr.readStep(&t.Steps[i])
			}
		}
	}
	observed := make(map[string]bool, len(gr.ids))
	for j, id := range gr.ids {
		if gr.seen[j] {
			observed[id] = true
		}
	}
	ev.Metrics, ev.Err = scoring.Rules(ctx, scoring.Input{Problem: c.Problem, Answers: c.Answers, Trajectory: t, Observed: observed}, opt)
	if ev.Err == nil {
		ev.Final = scoring.Final(&ev.Metrics, ev.Verdict.Score)
	}
	return ev
}

// groundingTail is how many final steps are scanned for the answered ids
// before the judge reads the trajectory.
const groundingTail = 3

// grounding collects which answered ids a tool returned
// (scoring.ObservedAmong): first in the last groundingTail steps, then in
// the judge's pass over the steps before upTo.
type grounding struct {
	ids  []string
	seen []bool
	left int  // ids not seen yet
	upTo int  // the judge's pass scans the results of steps < upTo
	done bool // the judge's pass ran
}

// readStep scans the successful results of one step.
func (gr *grounding) readStep(st *episode.StepRecord) {
	for _, r := range st.Results {
		if r.Error != nil || len(r.Result) == 0 {
			continue
		}
		gr.read(r.Result)
	}
}

func (gr *grounding) reset(answers []scoring.Answer) {
	gr.ids = gr.ids[:0]
	for _, a := range answers {
		gr.ids = append(gr.ids, a.ID)
	}
	gr.seen = append(gr.seen[:0], make([]bool, len(gr.ids))...)
	gr.left = len(gr.ids)
	gr.done = false
}

// read marks the answered ids that the tool result b returned.
func (gr *grounding) read(b []byte) {
	if gr.left == 0 {
		return
	}
	scoring.MarkObserved(b, gr.ids, gr.seen)
	gr.left = 0
	for _, ok := range gr.seen {
		if !ok {
			gr.left++
		}
	}
}
