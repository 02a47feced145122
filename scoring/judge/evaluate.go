package judge

import (
	"context"
	"fmt"

	"arena/episode"
	"arena/scoring"
	"arena/scoring/verify"
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
	ApplyVerification(&v, tr, c.Verification)
	return Evaluation{Metrics: m, Verdict: v, Final: Credit(&m, &v)}, nil
}

// ApplyVerification checks tr's steps against its relay completions
// (package scoring/verify) under mode, recording the report and the
// unverified and dictated findings in v; under VerifyRequire a failing
// step sets v.NoCredit. It is idempotent.
func ApplyVerification(v *Verdict, tr *episode.Trajectory, mode Verification) {
	if mode == VerifyOff || tr == nil || v.Verification != nil {
		return
	}
	rep := verify.Check(tr)
	v.Verification = &rep
	if len(rep.Unverified) > 0 {
		v.Findings = append(v.Findings, Finding{Name: FindingUnverified, Detail: verify.Detail(rep.Unverified), Steps: verify.Steps(rep.Unverified)})
	}
	if len(rep.Dictated) > 0 {
		v.Findings = append(v.Findings, Finding{Name: FindingDictated, Detail: verify.Detail(rep.Dictated), Steps: verify.Steps(rep.Dictated)})
	}
	if mode == VerifyRequire && !rep.OK() {
		v.NoCredit = true
	}
}

// Credit is the episode's final score: scoring.Final, or 0 when the
// verdict gives no credit (an unverified or dictated step under
// relay.required).
func Credit(m *scoring.Metrics, v *Verdict) float64 {
	if v.NoCredit {
		return 0
	}
	return scoring.Final(m, v.Score)
}

// ApplyRun applies p's template rule to one miner's run (a qualifying run,
// or one racer's episodes in a race): when the thinks of trajs follow one
// template, every verdict gets the templated finding and a capped score,
// and finals[i] is recomputed from metrics[i]. It is idempotent.
func (p Policy) ApplyRun(trajs []*episode.Trajectory, metrics []*scoring.Metrics, verdicts []*Verdict, finals []*float64) (Finding, bool) {
	f, ok := p.Templates.Apply(trajs, verdicts)
	if ok {
		for i := range finals {
			*finals[i] = Credit(metrics[i], verdicts[i])
		}
	}
	return f, ok
}
