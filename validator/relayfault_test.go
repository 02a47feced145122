package validator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/internal/llmclient/llmtest"
	"arena/relay"
	"arena/scoring/judge"
	"arena/validator/records"
)

// inferring asks the relay for one completion before each step, its uid
// in the prompt so the provider can tell the miners apart, and plays the
// reference agent's move whatever the answer.
type inferring struct {
	episode.Agent
	uid uint16
}

func (a inferring) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	if v.Infer != nil {
		body, err := json.Marshal(map[string]any{"model": "m",
			"messages": []map[string]string{{"role": "user", "content": fmt.Sprintf("uid-%d: %s", a.uid, v.Query)}}})
		if err != nil {
			return episode.Action{}, err
		}
		_, _ = v.Infer(ctx, body)
	}
	return a.Agent.Step(ctx, v)
}

// flakyProvider answers every request, except that once armed it answers
// 500 to uid 1's failAt-th request from then on (only that one): the
// provider failing in the middle of a run.
type flakyProvider struct {
	mu     sync.Mutex
	armed  bool
	seen   int
	failAt int
	failed int
}

func (p *flakyProvider) arm(failAt int) {
	p.mu.Lock()
	p.armed, p.seen, p.failAt = true, 0, failAt
	p.mu.Unlock()
}

func (p *flakyProvider) answer(r llmtest.Request) llmtest.Reply {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.armed && strings.Contains(string(r.Raw), "uid-1:") {
		p.seen++
		if p.seen == p.failAt {
			p.failed++
			return llmtest.Reply{Status: 500}
		}
	}
	return llmtest.Reply{Content: "ok", PromptTokens: 20, CompletionTokens: 2}
}

func (p *flakyProvider) failures() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

func flakyRelay(t *testing.T) (*relay.Relay, *flakyProvider) {
	t.Helper()
	p := &flakyProvider{}
	srv := llmtest.NewServer(t, p.answer)
	rl, err := relay.New(relay.Options{BaseURL: srv.URL + "/v1", Models: []string{"m"},
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rl, p
}

// TestRelayFaultVoidsRacer: the provider answering 500 to one of uid 1's
// completions in the middle of a race voids that race for uid 1 alone:
// its episodes are stored and flagged, its row is not in the heat, the
// race names it void, and uid 2 is scored as usual.
func TestRelayFaultVoidsRacer(t *testing.T) {
	rl, prov := flakyRelay(t)
	h := newHarness(t, harnessOptions{miners: 2,
		wrapAgent: func(uid uint16, a episode.Agent) episode.Agent { return inferring{a, uid} },
		edit: func(o *Options) {
			o.Relay, o.Verification = rl, judge.VerifyRecord
			o.RaceEveryBlocks, o.RaceProblems = 10, 3
			o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
		}})
	h.run(1, 5)
	for uid := uint16(1); uid <= 2; uid++ {
		if h.miner(uid).Qualifying == nil {
			t.Fatalf("uid %d did not qualify before the race", uid)
		}
	}
	prov.arm(3)
	h.run(6, 15)
	if prov.failures() != 1 {
		t.Fatalf("the provider failed %d times, want once", prov.failures())
	}

	var races []records.Race
	if err := h.store.View(func(txn *badger.Txn) (err error) { races, err = h.v.rec.ListRaces(txn, 0); return err }); err != nil {
		t.Fatal(err)
	}
	if len(races) != 1 || races[0].Phase != records.PhaseDone || races[0].Heat == nil {
		t.Fatalf("races %+v, want one done with a heat", races)
	}
	rc := races[0]
	if !slices.Equal(rc.VoidRacers, []uint16{1}) {
		t.Errorf("void racers %v, want [1]", rc.VoidRacers)
	}
	if len(rc.Heat.Racers) != 1 || rc.Heat.Racers[0].UID != 2 {
		t.Fatalf("heat racers %+v, want uid 2 alone", rc.Heat.Racers)
	}
	if len(rc.Results) != 1 || rc.Results[0].UID != 2 {
		t.Errorf("results %+v, want uid 2 alone", rc.Results)
	}
	// uid 2 is scored from its verdicts, as in any race.
	vds := h.verdictsOf(2, records.Racing)
	if len(vds) != 3 {
		t.Fatalf("uid 2: %d race verdicts, want 3", len(vds))
	}
	sum := 0.0
	for _, vd := range vds {
		sum += vd.Final
	}
	heatSum := 0.0
	for _, s := range rc.Heat.Racers[0].Scores {
		heatSum += s
	}
	if sum == 0 || heatSum != sum {
		t.Errorf("uid 2's heat sums to %v, its verdicts to %v; want equal and positive", heatSum, sum)
	}
	// uid 1's episodes are kept, one of them flagged.
	faults := 0
	for _, vd := range h.verdictsOf(1, records.Racing) {
		if err := h.store.View(func(txn *badger.Txn) error {
			e, _, err := h.v.rec.GetEpisode(txn, vd.EpisodeID)
			if e.Trajectory.RelayFault {
				faults++
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if faults != 1 {
		t.Errorf("uid 1: %d race episodes flagged relay_fault, want 1", faults)
	}
	if got := h.metric("arena_validator_void_runs_total"); got != 1 {
		t.Errorf("arena_validator_void_runs_total %v, want 1 (uid 1 in this race)", got)
	}
}

// TestRelayFaultVoidsQualifying: a provider failure during a qualifying
// run voids the run (no score, the miner is not blamed) and the miner is
// qualified by a later attempt.
func TestRelayFaultVoidsQualifying(t *testing.T) {
	rl, prov := flakyRelay(t)
	prov.arm(2)
	h := newHarness(t, harnessOptions{miners: 1,
		wrapAgent: func(uid uint16, a episode.Agent) episode.Agent { return inferring{a, uid} },
		edit:      func(o *Options) { o.Relay, o.Verification = rl, judge.VerifyRecord }})
	h.run(1, 3)
	if prov.failures() != 1 {
		t.Fatalf("the provider failed %d times, want once", prov.failures())
	}
	if q := h.miner(1).Qualifying; q != nil {
		t.Fatalf("qualified on a run the provider failed in: %+v", q)
	}
	if got := h.metric("arena_validator_void_runs_total"); got != 1 {
		t.Errorf("arena_validator_void_runs_total %v, want 1", got)
	}
	h.run(4, 30)
	q := h.miner(1).Qualifying
	if q == nil {
		t.Fatal("not qualified by the retry")
	}
	if starts := filterUID(h.eventsOf(EventQualifyStart), 1); len(starts) != 2 {
		t.Errorf("%d qualifying starts, want 2 (the void run and its retry)", len(starts))
	}
	if q.Score == 0 {
		t.Errorf("the retry scored 0: %+v", q)
	}
}
