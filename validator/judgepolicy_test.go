package validator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/scoring/race"
	"arena/validator/records"
)

// templater plays the reference agent but replaces every think with the
// one line a templated miner writes: it cites the first two products of
// the last result and a price, compares them and names a word of the
// query, so each think alone passes every gate of the ladder; only the
// run shows it is the same sentence on every step of every problem.
type templater struct{ episode.Agent }

func (a templater) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	act, err := a.Agent.Step(ctx, v)
	var hits []struct {
		ID    string  `json:"product_id"`
		Price float64 `json:"price"`
	}
	if n := len(v.History); n > 0 && len(v.History[n-1].Results) > 0 {
		_ = json.Unmarshal(v.History[n-1].Results[0].Result, &hits)
	}
	word := ""
	for _, w := range strings.Fields(v.Query) {
		if len(w) > len(word) {
			word = strings.Trim(w, ",.?!")
		}
	}
	if len(hits) < 2 {
		act.Think = "Searching for the " + word + " now."
		return act, err
	}
	act.Think = fmt.Sprintf("Product %s costs %.2f, cheaper than %s, so it fits the %s request.", hits[0].ID, hits[0].Price, hits[1].ID, word)
	return act, err
}

// verdictsOf reads the stored verdicts of uid's episodes of one kind.
func (h *harness) verdictsOf(uid uint16, kind records.Kind) []records.Verdict {
	h.t.Helper()
	var out []records.Verdict
	err := h.store.View(func(txn *badger.Txn) error {
		ids, err := h.v.rec.MinerEpisodes(txn, uid)
		if err != nil {
			return err
		}
		for _, id := range ids {
			e, _, err := h.v.rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			if e.Kind != kind {
				continue
			}
			vd, ok, err := h.v.rec.GetVerdict(txn, id)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, vd)
			}
		}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// TestTemplatedRunsCapped: a miner whose thinks follow one template
// across its qualifying run and its race gets the templated finding on
// every verdict, a reasoning score at the cap and a final score that
// follows from it; the reference miner next to it, playing the same
// moves with its own thinks, keeps its scores.
func TestTemplatedRunsCapped(t *testing.T) {
	h := newHarness(t, harnessOptions{miners: 2,
		wrapAgent: func(uid uint16, a episode.Agent) episode.Agent {
			if uid == 2 {
				return templater{a}
			}
			return a
		},
		edit: func(o *Options) {
			o.QualifyingProblems, o.RaceProblems, o.RaceEveryBlocks = 4, 4, 10
			o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
		}})
	h.run(1, 15)
	capped := 0
	for _, kind := range []records.Kind{records.Qualifying, records.Racing} {
		for uid, templated := range map[uint16]bool{1: false, 2: true} {
			vds := h.verdictsOf(uid, kind)
			if len(vds) != 4 {
				t.Fatalf("uid %d: %d %s verdicts, want 4", uid, len(vds), kind)
			}
			for _, vd := range vds {
				if vd.Judge.Has(judge.FindingTemplated) != templated {
					t.Errorf("uid %d %s episode %s: templated %v, want %v (q %.2f, findings %v)", uid, kind, vd.EpisodeID,
						!templated, templated, vd.Judge.Score, vd.Judge.FindingNames())
				}
				if templated && vd.Judge.Score > judge.DefaultTemplateCap {
					t.Errorf("uid %d %s: q %.2f above the cap %.2f", uid, kind, vd.Judge.Score, judge.DefaultTemplateCap)
				}
				if templated && vd.Judge.Score == judge.DefaultTemplateCap {
					capped++
				}
				if success := vd.Metrics.ASR(); templated && vd.Final > 0.65*success+1e-12 {
					t.Errorf("uid %d %s: final %.4f is more than 65%% of its success %.4f", uid, kind, vd.Final, success)
				}
				if want := scoring.Final(&vd.Metrics, vd.Judge.Score); math.Abs(vd.Final-want) > 1e-12 {
					t.Errorf("uid %d %s: final %.4f, want %.4f from q %.2f", uid, kind, vd.Final, want, vd.Judge.Score)
				}
			}
		}
	}
	if capped == 0 {
		t.Error("no templated verdict was at the cap: the template's thinks never scored above it, so the cap was not tested")
	}
	if m1, m2 := h.miner(1), h.miner(2); m2.Qualifying.Score >= m1.Qualifying.Score {
		t.Errorf("templated uid 2 qualified at %.3f, not below the reference miner's %.3f", m2.Qualifying.Score, m1.Qualifying.Score)
	}
	if got := h.metric("arena_validator_templated_runs_total"); got != 2 {
		t.Errorf("arena_validator_templated_runs_total %v, want 2 (uid 2's qualifying run and its race)", got)
	}
}

// TestJudgeUnavailable: with the llm judge's endpoint down, a qualifying
// run is void under judge.on_unavailable: void (no qualifying score; the
// miner is retried) and scored by the grounding fallback under
// "grounding"; a race judged entirely while the endpoint is down is void:
// stored with the void outcome and no heat, and the standing unchanged.
func TestJudgeUnavailable(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"upstream unavailable"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	llm := func(t *testing.T, onUnavailable string) judge.Judge {
		t.Helper()
		j, err := judge.NewLLM(judge.LLMOptions{BaseURL: down.URL, Models: []string{"m1", "m2"}, Retries: -1,
			Timeout: 5 * time.Second, OnUnavailable: onUnavailable}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	for _, tt := range []struct {
		policy    string
		qualified bool
	}{{judge.UnavailableVoid, false}, {judge.UnavailableGrounding, true}} {
		t.Run("qualifying, "+tt.policy, func(t *testing.T) {
			h := newHarness(t, harnessOptions{miners: 1, edit: func(o *Options) { o.Judge = llm(t, tt.policy) }})
			h.run(1, 3)
			if got := h.miner(1).Qualifying != nil; got != tt.qualified {
				t.Fatalf("qualified %v, want %v", got, tt.qualified)
			}
			vds := h.verdictsOf(1, records.Qualifying)
			if len(vds) == 0 {
				t.Fatal("no verdicts stored")
			}
			for _, vd := range vds {
				if !vd.Judge.Unavailable || !vd.Judge.Fallback {
					t.Errorf("verdict %s: unavailable %v, fallback %v; want both", vd.EpisodeID, vd.Judge.Unavailable, vd.Judge.Fallback)
				}
			}
			wantVoid := 0.0
			if !tt.qualified {
				wantVoid = 1
			}
			if got := h.metric("arena_validator_void_runs_total"); got != wantVoid {
				t.Errorf("arena_validator_void_runs_total %v, want %v", got, wantVoid)
			}
		})
	}

	t.Run("race, void", func(t *testing.T) {
		h := newHarness(t, harnessOptions{miners: 2, edit: func(o *Options) {
			o.RaceEveryBlocks = 10
			o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
		}})
		h.run(1, 5) // qualified under the grounding judge
		// The operator restarts with the llm judge, whose endpoint is down.
		opts := h.v.opts
		opts.Judge = llm(t, judge.UnavailableVoid)
		v, err := New(opts, zerolog.Nop(), nil)
		if err != nil {
			t.Fatal(err)
		}
		h.v = v
		h.run(6, 15)
		var races []records.Race
		var st records.RaceState
		if err := h.store.View(func(txn *badger.Txn) (err error) {
			if races, err = h.v.rec.ListRaces(txn, 0); err != nil {
				return err
			}
			st, err = h.v.rec.GetState(txn)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(races) != 1 {
			t.Fatalf("%d races, want 1", len(races))
		}
		rc := races[0]
		if rc.Phase != records.PhaseDone || rc.Output == nil || rc.Output.Outcome != race.Void || rc.Heat != nil {
			t.Fatalf("race %d: phase %s, output %+v, heat %v; want done, void, no heat", rc.ID, rc.Phase, rc.Output, rc.Heat != nil)
		}
		if st.Current != 0 || st.State.Leader != nil {
			t.Errorf("state after a void race: current %d, leader %+v; want none", st.Current, st.State.Leader)
		}
	})
}
