package validator

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/validator/records"
)

// TestPlanPrune: by age, every episode the rules do not keep that is
// older than MaxAge; by size, the oldest of the rest until the others fit;
// kept episodes are never taken, whatever the limits.
func TestPlanPrune(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	ep := func(id string, daysOld int, bytes int64, kept bool) prunable {
		start := now.Add(-time.Duration(daysOld) * 24 * time.Hour)
		if daysOld < 0 {
			start = time.Time{}
		}
		return prunable{info: records.EpisodeInfo{ID: id, Start: start, Bytes: bytes}, kept: kept}
	}
	eps := []prunable{
		ep("d", 1, 100, false), ep("a", 40, 100, false), ep("k", 50, 100, true),
		ep("c", 10, 100, false), ep("b", 30, 100, false), ep("b2", 30, 100, false), ep("z", -1, 100, false),
	}
	tests := []struct {
		name string
		o    RetentionOptions
		want []string // "id:reason", in plan order
	}{
		{"off", RetentionOptions{}, nil},
		{"by age", RetentionOptions{MaxAge: 20 * 24 * time.Hour}, []string{"z:age", "a:age", "b:age", "b2:age"}},
		{"age at the edge is kept", RetentionOptions{MaxAge: 30 * 24 * time.Hour}, []string{"z:age", "a:age"}},
		{"by size, oldest first", RetentionOptions{MaxBytes: 450}, []string{"z:size", "a:size", "b:size"}},
		{"size already met", RetentionOptions{MaxBytes: 700}, nil},
		{"age then size", RetentionOptions{MaxAge: 35 * 24 * time.Hour, MaxBytes: 250}, []string{"z:age", "a:age", "b:size", "b2:size", "c:size"}},
		{"the rules outlast any size", RetentionOptions{MaxBytes: 1}, []string{"z:size", "a:size", "b:size", "b2:size", "c:size", "d:size"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, total := planPrune(eps, tt.o, now)
			var got []string
			for _, it := range plan {
				got = append(got, it.info.ID+":"+it.reason)
			}
			if !slices.Equal(got, tt.want) || total != 700 {
				t.Errorf("plan %v (total %d), want %v (total 700)", got, total, tt.want)
			}
		})
	}
}

// TestRetention runs races on a real Badger store with a short evidence
// window, then prunes everything older than a day, as measured two days
// later. Deleted: the episodes (with verdicts and index entries) of the
// decided races before the evidence window, and an old qualifying run no
// miner holds any more. Kept: every race record with its heat, results and
// scores, the weights history, the episodes of the races in the window,
// the miners' current qualifying runs and a run still in flight. The store
// checks clean afterwards, and a second run finds nothing to do. A size
// limit below what the rules keep deletes only what they let go.
func TestRetention(t *testing.T) {
	h := newHarness(t, harnessOptions{miners: 2, registered: true, edit: func(o *Options) {
		o.RaceEveryBlocks, o.WeightsEveryBlocks = 10, 10
		o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
		o.Race.WindowBlocks = 20
		o.Retention = RetentionOptions{MaxAge: 24 * time.Hour}
	}})
	h.run(1, 75)
	v := h.v
	from := v.opts.Race.EvidenceFrom(75)

	// Extra qualifying episodes: an old run of uid 1 that its current run
	// replaced, one of the same age for a uid whose run is in flight, and
	// a fresh one nobody holds.
	now := time.Now()
	extra := func(id string, uid uint16, start time.Time) {
		t.Helper()
		e := records.Episode{Kind: records.Qualifying, Hotkey: "5Old", Block: 3, Trajectory: episode.Trajectory{EpisodeID: id, ProblemID: "old-problem", MinerUID: uid,
			EndReason: episode.ReasonTerminated, Timings: episode.Timings{Start: start, End: start.Add(time.Second)}}}
		err := h.store.Update(func(txn *badger.Txn) error {
			if err := v.rec.PutEpisode(txn, &e); err != nil {
				return err
			}
			return v.rec.PutVerdict(txn, &records.Verdict{EpisodeID: id, Final: 0.5})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A race not decided yet, started (as a slow one might have) before
	// the evidence window, with an old episode of its own.
	var live uint64
	err := h.store.Update(func(txn *badger.Txn) error {
		st, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		live = st.NextRaceID
		rc := records.Race{ID: live, Window: 1, Phase: records.PhaseJudging, StartedBlock: 1, Racers: []records.Racer{{UID: 1}}}
		if err := v.rec.PutRace(txn, &rc); err != nil {
			return err
		}
		st.Current, st.NextRaceID = live, live+1
		return v.rec.PutState(txn, st)
	})
	if err != nil {
		t.Fatal(err)
	}
	start := now.Add(-10 * 24 * time.Hour)
	err = h.store.Update(func(txn *badger.Txn) error {
		return v.rec.PutEpisode(txn, &records.Episode{Kind: records.Racing, RaceID: live, Hotkey: "5Live", Trajectory: episode.Trajectory{EpisodeID: "live-race",
			ProblemID: "live-problem", MinerUID: 1, EndReason: episode.ReasonTerminated, Timings: episode.Timings{Start: start, End: start}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	extra("old-run", 1, now.Add(-10*24*time.Hour))
	extra("in-flight", 9, now.Add(-10*24*time.Hour))
	extra("fresh-orphan", 1, now.Add(47*time.Hour))
	v.mu.Lock()
	v.qualifying[9] = true
	v.mu.Unlock()

	before := h.storeView()
	var outside, inside []records.Race
	for _, rc := range before.races {
		if rc.ID == live {
			continue
		}
		if rc.Phase != records.PhaseDone {
			t.Fatalf("race %d is %s after settling", rc.ID, rc.Phase)
		}
		if rc.StartedBlock < from {
			outside = append(outside, rc)
		} else {
			inside = append(inside, rc)
		}
	}
	if len(outside) == 0 || len(inside) == 0 || len(before.submissions) == 0 {
		t.Fatalf("%d races before the evidence window (block %d), %d in it, %d weights submissions: the test needs some of each",
			len(outside), from, len(inside), len(before.submissions))
	}
	wantPruned := map[string]bool{"old-run": true}
	for _, rc := range outside {
		for _, id := range before.raceEpisodes[rc.ID] {
			wantPruned[id] = true
		}
	}

	rep, err := v.Prune(context.Background(), now.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pruned != len(wantPruned) || rep.ByAge != rep.Pruned || rep.BySize != 0 {
		t.Errorf("pruned %+v, want %d episodes by age", rep, len(wantPruned))
	}
	after := h.storeView()
	for id := range before.episodes {
		if _, stored := after.episodes[id]; stored == wantPruned[id] {
			t.Errorf("episode %s: stored %v after pruning, want %v", id, stored, !wantPruned[id])
		}
	}
	for id := range wantPruned {
		if after.indexed[id] || after.verdicts[id] {
			t.Errorf("pruned episode %s is still indexed (%v) or judged (%v)", id, after.indexed[id], after.verdicts[id])
		}
	}
	for _, rc := range before.races {
		got := after.raceByID(rc.ID)
		switch {
		case rc.ID == live:
			if got == nil || got.EpisodesPruned != 0 {
				t.Errorf("the live race: %+v, want it and its episode untouched", got)
			}
		case got == nil || got.Heat == nil || got.Output == nil || len(got.Results) != len(rc.Results) || len(got.Episodes) != len(rc.Episodes):
			t.Errorf("race %d lost its record, heat, decision or scores: %+v", rc.ID, got)
		case rc.StartedBlock < from && (got.EpisodesPruned != len(before.raceEpisodes[rc.ID]) || len(after.raceEpisodes[rc.ID]) != 0):
			t.Errorf("race %d, before the window: %d episodes pruned and %d left, want all %d pruned", rc.ID, got.EpisodesPruned, len(after.raceEpisodes[rc.ID]), len(before.raceEpisodes[rc.ID]))
		case rc.StartedBlock >= from && (got.EpisodesPruned != 0 || len(after.raceEpisodes[rc.ID]) != len(before.raceEpisodes[rc.ID])):
			t.Errorf("race %d, in the window: %d episodes pruned, %d of %d left", rc.ID, got.EpisodesPruned, len(after.raceEpisodes[rc.ID]), len(before.raceEpisodes[rc.ID]))
		}
	}
	if !slices.EqualFunc(before.submissions, after.submissions, func(a, b records.Submission) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
		t.Errorf("weights history changed:\n%v\n%v", before.submissions, after.submissions)
	}
	for _, uid := range []uint16{1, 2} {
		m := h.miner(uid)
		if m.Qualifying == nil {
			t.Fatalf("uid %d has no qualifying run", uid)
		}
		for _, id := range m.Qualifying.Episodes {
			if _, ok := after.episodes[id]; !ok {
				t.Errorf("uid %d's current qualifying episode %s was pruned", uid, id)
			}
		}
	}
	h.checkStore("after pruning by age")
	if got := h.metric("arena_validator_pruned_episodes_total"); got != float64(len(wantPruned)) {
		t.Errorf("arena_validator_pruned_episodes_total = %v, want %d", got, len(wantPruned))
	}
	if evs := h.eventsOf(EventPruned); len(evs) != 1 {
		t.Errorf("%d pruned events, want 1", len(evs))
	}
	if again, err := v.Prune(context.Background(), now.Add(48*time.Hour)); err != nil || again.Pruned != 0 {
		t.Errorf("a second run pruned %+v (%v), want nothing", again, err)
	}

	// Below what the rules keep, a size limit takes the one episode they
	// let go (the fresh one the age limit spared) and nothing else.
	v.opts.Retention = RetentionOptions{MaxBytes: 1}
	rep, err = v.Prune(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	last := h.storeView()
	if _, ok := last.episodes["fresh-orphan"]; ok || rep.Pruned != 1 || rep.BySize != 1 || len(last.episodes) != len(after.episodes)-1 || rep.Kept != rep.Bytes {
		t.Errorf("size limit: %+v, %d episodes left of %d; want the fresh orphan pruned and what the rules keep left", rep, len(last.episodes), len(after.episodes))
	}
	if got := h.metric("arena_validator_episode_bytes"); got != float64(rep.Bytes) || got <= 0 {
		t.Errorf("arena_validator_episode_bytes = %v, want %d", got, rep.Bytes)
	}
	h.checkStore("after pruning by size")
}

// storeView is what TestRetention compares before and after pruning.
type storeView struct {
	episodes     map[string]records.Episode
	verdicts     map[string]bool
	indexed      map[string]bool // named by any of the three indexes
	races        []records.Race
	raceEpisodes map[uint64][]string
	submissions  []records.Submission
}

func (s *storeView) raceByID(id uint64) *records.Race {
	for i := range s.races {
		if s.races[i].ID == id {
			return &s.races[i]
		}
	}
	return nil
}

func (h *harness) storeView() *storeView {
	h.t.Helper()
	s := &storeView{episodes: map[string]records.Episode{}, verdicts: map[string]bool{}, indexed: map[string]bool{}, raceEpisodes: map[uint64][]string{}}
	rec := h.v.rec
	err := h.store.View(func(txn *badger.Txn) error {
		err := rec.ForEachEpisode(txn, func(e *records.Episode, v *records.Verdict) error {
			s.episodes[e.Trajectory.EpisodeID] = *e
			return nil
		})
		if err != nil {
			return err
		}
		if err := rec.Verdicts.Iterate(txn, nil, func(_ []byte, v records.Verdict) error { s.verdicts[v.EpisodeID] = true; return nil }); err != nil {
			return err
		}
		if s.races, err = rec.ListRaces(txn, 0); err != nil {
			return err
		}
		for _, rc := range s.races {
			if s.raceEpisodes[rc.ID], err = rec.RaceEpisodes(txn, rc.ID); err != nil {
				return err
			}
			for _, id := range s.raceEpisodes[rc.ID] {
				s.indexed[id] = true
			}
		}
		for uid := uint16(0); uid < 16; uid++ {
			ids, err := rec.MinerEpisodes(txn, uid)
			if err != nil {
				return err
			}
			for _, id := range ids {
				s.indexed[id] = true
			}
		}
		for _, e := range s.episodes {
			ids, err := rec.ProblemEpisodes(txn, e.Trajectory.ProblemID)
			if err != nil {
				return err
			}
			for _, id := range ids {
				s.indexed[id] = true
			}
		}
		s.submissions, err = rec.ListSubmissions(txn)
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// checkStore runs what `arena store check` runs: every table verified,
// then the records' cross-references.
func (h *harness) checkStore(when string) {
	h.t.Helper()
	if err := h.store.Verify(); err != nil {
		h.t.Fatalf("%s: verify: %v", when, err)
	}
	rep, err := h.v.rec.Check(context.Background(), h.store, h.ledger)
	if err != nil {
		h.t.Fatalf("%s: check: %v", when, err)
	}
	if !rep.OK() {
		h.t.Errorf("%s: store check found %v", when, rep.Problems)
	}
	if rep.Episodes == 0 || rep.Races == 0 {
		h.t.Errorf("%s: store check read %d episodes and %d races", when, rep.Episodes, rep.Races)
	}
}

// TestRetentionRuns: a running validator with a retention limit prunes
// once it is ready, without waiting for its interval, and its retention
// loop ends with Run (the package's goleak check).
func TestRetentionRuns(t *testing.T) {
	h := newHarness(t, harnessOptions{edit: func(o *Options) {
		o.Retention = RetentionOptions{MaxAge: 24 * time.Hour, Every: time.Hour}
	}})
	start := time.Now().Add(-48 * time.Hour)
	err := h.store.Update(func(txn *badger.Txn) error {
		return h.v.rec.PutEpisode(txn, &records.Episode{Kind: records.Qualifying, Hotkey: "5Old", Trajectory: episode.Trajectory{EpisodeID: "old",
			ProblemID: "p", MinerUID: 3, EndReason: episode.ReasonTerminated, Timings: episode.Timings{Start: start, End: start}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	h.start()
	h.feed(1)
	h.until("retention prunes the old episode", func() bool { return len(h.eventsOf(EventPruned)) == 1 })
	if n := h.storeView().episodes; len(n) != 0 {
		t.Errorf("%d episodes left, want none", len(n))
	}
}
