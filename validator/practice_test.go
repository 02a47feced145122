package validator

import (
	"math"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/examples/tsminer"
	"arena/practice"
	"arena/scoring/judge"
	"arena/suite"
	"arena/validator/records"
)

// TestPracticeMatchesValidator: `arena practice` scores an agent as the
// validator scores it. A validator runs a miner's qualifying run; then
// practice plays the same problems, in the same order, against the same
// miner endpoint, and must give every problem the success, reasoning
// score, findings and final score the validator stored: for the
// reference miner, for one whose thinks follow a template (capped on
// both sides), and for the example TypeScript miner (examples/ts-miner, a
// separate node process) playing a deterministic fake model (its thinks
// are one template too).
func TestPracticeMatchesValidator(t *testing.T) {
	reference := func(wrap func(uint16, episode.Agent) episode.Agent) func(*testing.T) harnessOptions {
		return func(*testing.T) harnessOptions { return harnessOptions{miners: 1, wrapAgent: wrap} }
	}
	for _, tc := range []struct {
		name      string
		miners    func(*testing.T) harnessOptions
		templated bool
	}{
		{"reference", reference(nil), false},
		{"templated", reference(func(_ uint16, a episode.Agent) episode.Agent { return templater{a} }), true},
		{"typescript example", func(t *testing.T) harnessOptions {
			llm := tsminer.NewFakeLLM(t, 0, tsminer.Deterministic)
			m := tsminer.Launch(t, tsminer.Options{LLMBaseURL: llm.URL(), LLMModel: tsminer.FakeModel, LLMAPIKey: tsminer.FakeKey})
			return harnessOptions{external: []externalMiner{{hotkey: chain.Mirror(common.HexToAddress(m.Address)), endpoint: m.Endpoint}}}
		}, true}, // the fake model says the same sentence on every problem: both sides cap it
	} {
		t.Run(tc.name, func(t *testing.T) {
			const problems = 6
			ho := tc.miners(t)
			ho.edit = func(o *Options) { o.QualifyingProblems = problems }
			h := newHarness(t, ho)
			h.run(1, 15)
			stored := h.qualifyingRun(1)
			if len(stored) != problems {
				t.Fatalf("%d qualifying episodes stored, want %d", len(stored), problems)
			}
			ps := make([]suite.Problem, len(stored))
			for i, s := range stored {
				p, ok, err := h.ledger.Problem(s.e.Trajectory.ProblemID)
				if err != nil || !ok {
					t.Fatalf("problem %s: %v %v", s.e.Trajectory.ProblemID, ok, err)
				}
				ps[i] = p
			}
			p, err := practice.New(practice.Options{Tools: loadTestSuite(t).tools, Judge: h.v.opts.Judge,
				Limits: h.v.opts.Limits, RunSize: problems}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			n := h.chain.neuronByUID(1)
			if n == nil {
				t.Fatal("uid 1 not in the metagraph")
			}
			rep, err := p.Run(h.ctx, n.Axon.HostPort(), ps, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := n.Hotkey.SS58(); rep.Miner.Hotkey != want {
				t.Errorf("practice names hotkey %s, the miner's is %s", rep.Miner.Hotkey, want)
			}
			sumV, sumP := 0.0, 0.0
			for i, s := range stored {
				got, want := rep.Results[i], s.v
				if got.ProblemID != s.e.Trajectory.ProblemID {
					t.Fatalf("result %d is problem %s, want %s", i, got.ProblemID, s.e.Trajectory.ProblemID)
				}
				if got.Success != want.Metrics.Success || math.Abs(got.Final-want.Final) > 1e-9 || math.Abs(got.Q-want.Judge.Score) > 1e-9 ||
					!slices.Equal(got.Findings, want.Judge.FindingNames()) {
					t.Errorf("problem %s: practice success %v q %.3f final %.4f findings %v; validator success %v q %.3f final %.4f findings %v",
						got.ProblemID, got.Success, got.Q, got.Final, got.Findings,
						want.Metrics.Success, want.Judge.Score, want.Final, want.Judge.FindingNames())
				}
				sumV += want.Final
				sumP += got.Final
			}
			if math.Abs(rep.Score-sumP/problems) > 1e-9 || math.Abs(sumP-sumV) > 1e-9 {
				t.Errorf("practice score %.4f (sum %.4f), validator's finals sum to %.4f", rep.Score, sumP, sumV)
			}
			if got := rep.Findings[judge.FindingTemplated]; (got == problems) != tc.templated {
				t.Errorf("practice counts %d templated episodes of %d, templated miner: %v", got, problems, tc.templated)
			}
			t.Logf("%s: practice score %.3f, validator %.3f over %d problems (findings %v)", tc.name, sumP/problems, sumV/problems, problems, rep.Findings)
		})
	}
}

type storedEpisode struct {
	e records.Episode
	v records.Verdict
}

// qualifyingRun reads uid's qualifying episodes and verdicts, in the
// order they started.
func (h *harness) qualifyingRun(uid uint16) []storedEpisode {
	h.t.Helper()
	var out []storedEpisode
	err := h.store.View(func(txn *badger.Txn) error {
		ids, err := h.v.rec.MinerEpisodes(txn, uid)
		if err != nil {
			return err
		}
		for _, id := range ids {
			e, _, err := h.v.rec.GetEpisode(txn, id)
			if err != nil || e.Kind != records.Qualifying {
				continue
			}
			vd, ok, err := h.v.rec.GetVerdict(txn, id)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, storedEpisode{e: e, v: vd})
			}
		}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
	slices.SortStableFunc(out, func(a, b storedEpisode) int {
		return a.e.Trajectory.Timings.Start.Compare(b.e.Trajectory.Timings.Start)
	})
	return out
}
