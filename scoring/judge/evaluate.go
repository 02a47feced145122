package judge

import (
	"context"
	"fmt"

	"arena/episode"
	"arena/scoring"
)

// Evaluate scores one episode the way a validator does: the rule metrics
// against c.Problem (answers must be grounded in the trajectory's own
// observations), j's verdict on the trajectory, and the final score. The
// run-level policy (templates across a miner's run, void runs) is the
// caller's to apply over the whole run (Policy, ApplyRun). Evaluation.Err
// is left nil: a failure is the returned error.
func Evaluate(ctx context.Context, j Judge, c Case, opts scoring.Options) (Evaluation, error) {
	tr := c.Trajectory
	m, err := scoring.Rules(ctx, scoring.Input{Problem: c.Problem, Answers: c.Answers, Trajectory: tr,
		Observed: scoring.ObservedIDs(tr)}, opts)
	if err != nil {
		return Evaluation{}, fmt.Errorf("episode %s: rule metrics: %w", tr.EpisodeID, err)
	}
	v, err := j.Judge(ctx, tr)
	if err != nil {
		return Evaluation{}, fmt.Errorf("episode %s: judge: %w", tr.EpisodeID, err)
	}
	return Evaluation{Metrics: m, Verdict: v, Final: scoring.Final(&m, v.Score)}, nil
}

// ApplyRun applies p's template rule to one miner's run (a qualifying run,
// or one racer's episodes in a race): when the thinks of trajs follow one
// template, every verdict gets the templated finding and a capped score,
// and finals[i] is recomputed from metrics[i]. It is idempotent.
func (p Policy) ApplyRun(trajs []*episode.Trajectory, metrics []*scoring.Metrics, verdicts []*Verdict, finals []*float64) (Finding, bool) {
	f, ok := p.Templates.Apply(trajs, verdicts)
	if ok {
		for i := range finals {
			*finals[i] = scoring.Final(metrics[i], verdicts[i].Score)
		}
	}
	return f, ok
}
