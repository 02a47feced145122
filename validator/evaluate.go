package validator

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/suite"
	"arena/validator/records"
)

// evaluate scores one stored episode: rule metrics against the problem's
// ground truth (with grounding against the trajectory's own
// observations), the reasoning judge, and the final score. An ungrounded
// answer marks the problem's cluster compromised.
func (v *Validator) evaluate(ctx context.Context, e *records.Episode, block uint64) (records.Verdict, error) {
	tr := &e.Trajectory
	p, ok, err := v.opts.Ledger.Problem(tr.ProblemID)
	if err != nil {
		return records.Verdict{}, err
	}
	if !ok {
		return records.Verdict{}, fmt.Errorf("episode %s: problem %s is not in the suite", tr.EpisodeID, tr.ProblemID)
	}
	start := time.Now()
	ev, err := judge.Evaluate(ctx, v.opts.Judge, judge.Case{Problem: &p, Trajectory: tr, Answers: v.answers(tr), Verification: v.opts.Verification},
		scoring.Options{Titles: v.opts.Titles})
	if err != nil {
		return records.Verdict{}, err
	}
	m, jv := ev.Metrics, ev.Verdict
	v.m.judgeSeconds.WithLabelValues(jv.Judge).Observe(time.Since(start).Seconds())
	v.m.verdicts.WithLabelValues(jv.Judge, strconv.FormatBool(jv.Fallback)).Inc()
	if len(m.Ungrounded) > 0 && e.Kind == records.Racing {
		v.compromise(&p, tr, m.Ungrounded, block)
	}
	return records.Verdict{EpisodeID: tr.EpisodeID, Metrics: m, Judge: jv, Final: ev.Final, Block: block}, nil
}

// judgeRun applies the judge's policy to one miner's verdicts in a
// qualifying run, or one racer's in a race (kind names which, for the
// metrics): when the thinks of its trajectories follow one template,
// every verdict gets the templated finding and a capped reasoning score,
// and its final score is recomputed. Capping is idempotent, so a race
// judged again after a restart gets the same scores. It returns the
// finding, if any.
func (v *Validator) judgeRun(kind string, eps []*records.Episode, vds []*records.Verdict) (judge.Finding, bool) {
	trajs := make([]*episode.Trajectory, len(eps))
	for i, e := range eps {
		trajs[i] = &e.Trajectory
	}
	ms, jvs, finals := make([]*scoring.Metrics, len(vds)), make([]*judge.Verdict, len(vds)), make([]*float64, len(vds))
	for i, vd := range vds {
		ms[i], jvs[i], finals[i] = &vd.Metrics, &vd.Judge, &vd.Final
	}
	f, ok := v.policy.ApplyRun(trajs, ms, jvs, finals)
	if !ok {
		return f, false
	}
	v.m.templated.WithLabelValues(kind).Inc()
	return f, true
}

// voids reports whether a run's verdicts make it void: judged entirely
// while no llm judge model answered, under judge.on_unavailable: void.
func (v *Validator) voids(vds []*records.Verdict) bool {
	jvs := make([]*judge.Verdict, len(vds))
	for i, vd := range vds {
		jvs[i] = &vd.Judge
	}
	return v.policy.Voids(jvs)
}

func (v *Validator) putVerdicts(txn *badger.Txn, vds []records.Verdict) error {
	for i := range vds {
		if err := v.rec.PutVerdict(txn, &vds[i]); err != nil {
			return err
		}
	}
	return nil
}

// answers looks the recommended ids up in the catalog. The newest stock
// holds every product an older one did, unchanged, so it answers for the
// stock the episode ran on.
func (v *Validator) answers(tr *episode.Trajectory) []scoring.Answer {
	return scoring.LookupAnswers(v.opts.Shop.Current().Tools.Catalog(), tr.Recommended)
}

// compromise marks the problem's cluster compromised: an agent named a
// product it never observed, so it knew the answer from elsewhere.
func (v *Validator) compromise(p *suite.Problem, tr *episode.Trajectory, ids []string, block uint64) {
	if p.Cluster == "" {
		return
	}
	reason := fmt.Sprintf("uid %d answered %v without observing it (episode %s, block %d)", tr.MinerUID, ids, tr.EpisodeID, block)
	if err := v.opts.Ledger.MarkCompromised(p.Cluster, reason); err != nil {
		v.log.Error().Err(err).Str("cluster", p.Cluster).Msg("mark cluster compromised")
		return
	}
	v.m.compromised.Inc()
	v.emit(Event{Kind: EventClusterCompromised, Block: block, UID: tr.MinerUID, Text: fmt.Sprintf("cluster %s compromised: %s", p.Cluster, reason)})
}
