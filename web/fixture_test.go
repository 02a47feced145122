package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/scoring/race"
	"arena/store"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

// fakeValidator serves the status and leaderboard a test sets, over a
// real store, records and ledger.
type fakeValidator struct {
	st     *store.Store
	rec    *records.Records
	ledger *suite.Ledger
	status validator.Status
	board  []validator.LeaderboardRow
}

func (f *fakeValidator) StatusBrief(context.Context) (validator.Status, error) { return f.status, nil }
func (f *fakeValidator) Leaderboard() ([]validator.LeaderboardRow, error)      { return f.board, nil }
func (f *fakeValidator) Store() *store.Store                                   { return f.st }
func (f *fakeValidator) Records() *records.Records                             { return f.rec }
func (f *fakeValidator) Ledger() *suite.Ledger                                 { return f.ledger }

// arenaOptions size a fixture arena.
type arenaOptions struct {
	// Races decided, each with Racers racers on Problems problems.
	Races, Racers, Problems int
	// Pool is the number of hidden problems races draw from (they are
	// reused round-robin, which a real suite never does, to keep big
	// fixtures cheap); Unexposed hidden problems are never drawn.
	Pool, Unexposed int
	// Think, if set, is every step's think (hostile content).
	Think string
	// LiveRace adds a running race after the decided ones, with one
	// episode stored.
	LiveRace bool
	// Miners is the number of miners (racers are uids 1..Racers).
	Miners int
	// Progress, if set, is called after each race is written.
	Progress func(done, total int)
}

// fixtureArena is a store filled as a validator would fill it.
type fixtureArena struct {
	v         *fakeValidator
	hidden    []suite.Problem // drawn (exposed) hidden problems
	unexposed []suite.Problem
	public    []suite.Problem
	episodes  []string // every stored episode id, in write order
	liveRace  uint64
	liveEp    string
}

// secretMarker is in every unexposed problem's query: no public page may
// ever contain it.
const secretMarker = "UNEXPOSEDSECRET"

var fixtureWords = []string{"amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
	"kelp", "lagoon", "maple", "nectar", "onyx", "prairie", "quartz", "russet", "sierra", "tundra"}

// fixtureProblem makes a problem whose query and target share nothing with
// the others' (each word carries its number), so each is its own cluster.
func fixtureProblem(typ suite.Type, tag string, n int) suite.Problem {
	lo, hi := 10.0, float64(100+n)
	w := func(k int) string { return fmt.Sprintf("%s%s%d", fixtureWords[(n*7+k)%len(fixtureWords)], tag, n) }
	item := suite.Item{ProductID: fmt.Sprintf("%s%07d", tag, n), Title: []string{w(0) + " " + w(1)},
		Price: []suite.PriceBound{{Op: suite.OpBetween, Lo: &lo, Hi: &hi}}}
	p := suite.Problem{Type: typ, Query: fmt.Sprintf("%s %s %s %s %s", w(0), w(1), w(2), w(3), w(4)), Reward: suite.Reward{Items: []suite.Item{item}}}
	switch typ {
	case suite.TypeShop:
		second := item
		second.ProductID = fmt.Sprintf("%s%07d", tag, 5_000_000+n)
		p.Reward = suite.Reward{Items: []suite.Item{item, second}, List: true}
	case suite.TypeVoucher:
		face := 5.0
		p.Reward.List = true
		p.Voucher = &suite.Voucher{VoucherType: suite.VoucherPlatform, Threshold: 20, DiscountType: suite.DiscountFixed, FaceValue: &face, PriceAfterVoucher: 45, Budget: 200}
	}
	return p
}

func openFixtureStore(tb testing.TB, dir string) (*store.Store, *suite.Ledger) {
	tb.Helper()
	st, err := store.Open(store.Options{Dir: dir}, zerolog.Nop(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	l, err := suite.NewLedger(suite.LedgerOptions{Store: st, ProblemsPerRace: 1}, zerolog.Nop(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return st, l
}

// buildArena writes a fixture arena into a fresh store in dir.
func buildArena(tb testing.TB, dir string, o arenaOptions) *fixtureArena {
	tb.Helper()
	ctx := context.Background()
	st, ledger := openFixtureStore(tb, dir)
	rec := records.New()
	f := &fixtureArena{v: &fakeValidator{st: st, rec: rec, ledger: ledger}}
	types := suite.Types()
	for i := range 6 {
		f.public = append(f.public, fixtureProblem(types[i%len(types)], "pub", i))
	}
	var hidden []suite.Problem
	for i := range o.Pool + o.Unexposed {
		hidden = append(hidden, fixtureProblem(types[i%len(types)], "hid", i))
	}
	for i := o.Pool; i < len(hidden); i++ {
		hidden[i].Query += " " + secretMarker
	}
	if _, err := ledger.Add(ctx, f.public, suite.Public); err != nil {
		tb.Fatal(err)
	}
	// The pool goes in first and is drawn whole; the unexposed problems
	// join after, so no draw can take them.
	if _, err := ledger.Add(ctx, hidden[:o.Pool], suite.Hidden); err != nil {
		tb.Fatal(err)
	}
	all, err := ledger.AllProblems(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	byQuery := map[string]suite.Problem{}
	for _, p := range all {
		byQuery[p.Query] = p
	}
	for i := range f.public {
		f.public[i] = byQuery[f.public[i].Query]
	}
	// Expose the pool as races would, with the same draw the validator
	// uses; the rest stays hidden.
	if o.Pool > 0 {
		drawn, err := ledger.Draw(suite.Hidden, o.Pool, 1)
		if err != nil {
			tb.Fatal(err)
		}
		var clusters []string
		for _, p := range drawn {
			clusters = append(clusters, p.Cluster)
		}
		if err := ledger.MarkExposed(clusters, []string{"5Fixture"}, 10); err != nil {
			tb.Fatal(err)
		}
		f.hidden = drawn
	}
	if _, err := ledger.Add(ctx, hidden[o.Pool:], suite.Hidden); err != nil {
		tb.Fatal(err)
	}
	if all, err = ledger.AllProblems(ctx); err != nil {
		tb.Fatal(err)
	}
	for _, p := range all {
		byQuery[p.Query] = p
	}
	for _, p := range hidden {
		if bq := byQuery[p.Query]; bq.ID != "" && !containsID(f.hidden, bq.ID) {
			f.unexposed = append(f.unexposed, bq)
		}
	}

	w := &bulkWriter{st: st}
	hotkey := fixtureHotkey
	miners := max(o.Miners, o.Racers)
	for uid := uint16(1); int(uid) <= miners; uid++ {
		m := records.Miner{UID: uid, Hotkey: hotkey(uid), Endpoint: fmt.Sprintf("ws://10.0.0.%d:8091", uid), FirstSeen: 1, LastSeen: 100}
		if int(uid) == miners && miners > 2 {
			m.Endpoint, m.Skipped = "", "axon 10.9.9.9:1 is a private address"
		} else {
			run := &records.QualifyingRun{Score: 0.9 - 0.1*float64(uid), Block: 5, Endpoint: m.Endpoint}
			for i, p := range f.public {
				id := fmt.Sprintf("q%02d-%02d", uid, i)
				w.episode(tb, rec, records.Episode{Kind: records.Qualifying, Hotkey: m.Hotkey, ProblemType: p.Type, Cluster: p.Cluster, Block: 5,
					Trajectory: fixtureTrajectory(id, p, uid, o.Think)}, fixtureVerdict(id, p.Type, float64((int(uid)+i)%3)/2))
				run.Episodes = append(run.Episodes, id)
				f.episodes = append(f.episodes, id)
			}
			m.Qualifying = run
		}
		w.put(tb, rec.Miners.Key(store.U16(uid)), m)
	}

	var leader *race.Leader
	for r := 1; r <= o.Races; r++ {
		id := uint64(r)
		block := uint64(20 + 40*r)
		rc := records.Race{ID: id, Window: block - 2, Phase: records.PhaseDone, StartedBlock: block, FinishedBlock: block + 30,
			StartedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r) * time.Hour), Episodes: map[string]float64{}}
		left := max(o.Pool-r*o.Problems, 0)
		rc.HiddenLeft = &left
		heat := &race.Heat{Race: id, Block: block, Problems: o.Problems}
		for k := range o.Problems {
			p := f.hidden[((r-1)*o.Problems+k)%len(f.hidden)]
			rc.Problems, rc.Clusters = append(rc.Problems, p.ID), append(rc.Clusters, p.Cluster)
		}
		out := &race.Output{Outcome: race.Defended, Ratio: 0.8, Bar: 0.2, WindowRaces: min(r, 20)}
		for u := 1; u <= o.Racers; u++ {
			uid := uint16(u)
			rc.Racers = append(rc.Racers, records.Racer{UID: uid, Hotkey: hotkey(uid), Incumbent: u == 1 && r > 1})
			hr := race.HeatRacer{UID: uid, Hotkey: hotkey(uid)}
			sum := 0.0
			for k, pid := range rc.Problems {
				p := f.hidden[((r-1)*o.Problems+k)%len(f.hidden)]
				final := float64((u*7+k*3+r)%5) / 4
				if u == 1 {
					final = min(1, final+0.5)
				}
				eid := fmt.Sprintf("r%06d-u%02d-p%03d", r, u, k)
				w.episode(tb, rec, records.Episode{Kind: records.Racing, RaceID: id, Hotkey: hotkey(uid), ProblemType: p.Type, Cluster: p.Cluster, Block: block,
					Trajectory: fixtureTrajectory(eid, p, uid, o.Think)}, fixtureVerdict(eid, p.Type, final))
				_ = pid
				rc.Episodes[eid] = final
				hr.Scores = append(hr.Scores, final)
				sum += final
				f.episodes = append(f.episodes, eid)
			}
			heat.Racers = append(heat.Racers, hr)
			rc.Results = append(rc.Results, race.RaceResult{UID: uid, Score: sum / float64(max(o.Problems, 1))})
			if u > 1 {
				out.Decision = append(out.Decision, race.Comparison{UID: uid, Against: 1, Shift: 0.01,
					Pairs: race.Pairs{N: o.Problems * min(r, 20), Sum: -0.2 * float64(o.Problems), SumSq: 0.3 * float64(o.Problems)}, Evidence: 0.01})
			}
		}
		if r == 1 {
			out.Outcome = race.Crowned
		}
		leader = &race.Leader{UID: 1, Hotkey: hotkey(1), Qualifying: 0.8, QualifiedAt: 5, Since: 60}
		out.Leader, out.Results, rc.Output, rc.Heat = leader, rc.Results, out, heat
		w.put(tb, rec.Races.Key(store.U64(id)), rc)
		if o.Progress != nil {
			o.Progress(r, o.Races)
		}
	}
	state := records.RaceState{State: race.State{Leader: leader, Races: uint64(o.Races), LastBlock: uint64(20 + 40*o.Races)}, NextRaceID: uint64(o.Races) + 1}
	if o.LiveRace && len(f.hidden) > 0 {
		id := uint64(o.Races + 1)
		p := f.hidden[0]
		rc := records.Race{ID: id, Window: 1000, Phase: records.PhaseRunning, StartedBlock: 1000, Problems: []string{p.ID}, Clusters: []string{p.Cluster},
			Racers: []records.Racer{{UID: 1, Hotkey: hotkey(1)}, {UID: 2, Hotkey: hotkey(2)}}}
		w.put(tb, rec.Races.Key(store.U64(id)), rc)
		f.liveEp = "live-episode"
		w.episode(tb, rec, records.Episode{Kind: records.Racing, RaceID: id, Hotkey: hotkey(2), ProblemType: p.Type, Cluster: p.Cluster, Block: 1000,
			Trajectory: fixtureTrajectory(f.liveEp, p, 2, o.Think)}, nil)
		f.liveRace = id
		state.Current, state.NextRaceID = id, id+1
	}
	w.put(tb, rec.State.Key(store.String("current")), state)
	w.flush(tb)

	f.v.status, f.v.board = fixtureStatus(o)
	return f
}

// fixtureStatus is what the fake validator reports for an arena built
// with o: leader uid 1, the last miner not serving.
func fixtureStatus(o arenaOptions) (validator.Status, []validator.LeaderboardRow) {
	hotkey := fixtureHotkey
	miners := max(o.Miners, o.Racers)
	var leader *race.Leader
	if o.Races > 0 {
		leader = &race.Leader{UID: 1, Hotkey: hotkey(1), Qualifying: 0.8, QualifiedAt: 5, Since: 60}
	}
	status := validator.Status{Validator: "0xfixture", Hotkey: "5Validator", Netuid: 15, Ready: false, NotReady: []string{"operator-only readiness detail"},
		HeadBlock: uint64(40 + 40*o.Races), HeadAge: 1.5, Phase: "idle", Races: uint64(o.Races), Leader: leader, NextRaceBlock: uint64(60 + 40*o.Races), BlockSeconds: 12,
		LastWeights: &records.Submission{Window: 3, Op: "commit", Status: records.StatusCommitted, Salt: []uint16{7, 7}, RawTx: "0xsigned", TxHash: "0xabc",
			UIDs: []uint16{1, 2}, Values: []uint16{65535, 4242}}}
	var board []validator.LeaderboardRow
	for uid := uint16(1); int(uid) <= miners; uid++ {
		row := validator.LeaderboardRow{UID: uid, Hotkey: hotkey(uid), Leader: leader != nil && uid == 1, Status: validator.MinerServing}
		if int(uid) == miners && miners > 2 {
			row.Status, row.Skipped = validator.MinerNotServing, "axon 10.9.9.9:1 is a private address"
		}
		board = append(board, row)
	}
	return status, board
}

func fixtureHotkey(uid uint16) string {
	return fmt.Sprintf("5Hotkey%02dxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", uid)
}

func containsID(ps []suite.Problem, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

func fixtureTrajectory(id string, p suite.Problem, uid uint16, think string) episode.Trajectory {
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	if think == "" {
		think = fmt.Sprintf("Searching for %q.", p.Query)
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	target := p.Targets[0]
	return episode.Trajectory{EpisodeID: id, ProblemID: p.ID, Query: p.Query, MinerUID: uid, ValidatorAddress: "0xfixture",
		EndReason: episode.ReasonTerminated, TerminateStatus: "success", Recommended: []string{target},
		Timings: episode.Timings{Start: t0, End: t0.Add(3 * time.Second)},
		Steps: []episode.StepRecord{
			{Think: think, TSent: t0, TReceived: t0.Add(time.Second),
				ToolCalls: []episode.ToolCall{{ID: "c1", Name: "find_product", Parameters: raw(map[string]any{"q": p.Query})}},
				Results: []episode.ToolResult{{ToolCallID: "c1", Result: raw([]map[string]any{
					{"product_id": target, "title": "widget <b>bold</b>", "price": 42.5, "shop_id": "s1"},
					{"product_id": "other", "title": think, "price": 99, "shop_id": "s2"}})}}},
			{Think: "Recommending " + target + ".", TSent: t0.Add(time.Second), TReceived: t0.Add(2 * time.Second),
				ToolCalls: []episode.ToolCall{{ID: "c2", Name: "recommend_product", Parameters: raw(map[string]any{"product_ids": target})},
					{ID: "c3", Name: "terminate", Parameters: raw(map[string]any{"status": "success"})}},
				Results: []episode.ToolResult{{ToolCallID: "c2", Result: raw(map[string]any{"accepted": []string{target}})},
					{ToolCallID: "c3", Error: &episode.ToolError{Code: "bad_args", Message: think}}}},
		}}
}

func fixtureVerdict(id string, typ suite.Type, final float64) *records.Verdict {
	return &records.Verdict{EpisodeID: id, Final: final, Block: 50,
		Metrics: scoring.Metrics{Type: typ, GT: final, Rule: final, Success: final >= 0.75, HasTrajectory: true,
			Items: []scoring.ItemScore{{Position: 1, Target: "t", Recommended: "t", GT: final >= 0.75, Hits: 1, Constraints: 2, Failed: []string{"price <= 100"}}}},
		Judge: judge.Verdict{Score: final / 2, Judge: judge.NameGrounding, PerStep: []judge.StepScore{{Step: 1, Score: 0.5, Reason: "cited a price"}}}}
}

// bulkWriter writes records in large transactions, as the validator's
// keyspaces would store them (the same keys and JSON values).
type bulkWriter struct {
	st      *store.Store
	pending []records.KV
	size    int
}

func (w *bulkWriter) put(tb testing.TB, key []byte, v any) {
	tb.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	w.add(tb, records.KV{Key: key, Value: data})
}

func (w *bulkWriter) add(tb testing.TB, x records.KV) {
	tb.Helper()
	w.pending = append(w.pending, x)
	w.size += len(x.Key) + len(x.Value) + 64
	if w.size > 4<<20 {
		w.flush(tb)
	}
}

func (w *bulkWriter) episode(tb testing.TB, rec *records.Records, e records.Episode, v *records.Verdict) {
	tb.Helper()
	writes, err := rec.EpisodeWrites(&e, v)
	if err != nil {
		tb.Fatal(err)
	}
	for _, x := range writes {
		w.add(tb, x)
	}
}

func (w *bulkWriter) flush(tb testing.TB) {
	tb.Helper()
	err := w.st.Update(func(txn *badger.Txn) error {
		for _, x := range w.pending {
			if err := txn.Set(x.Key, x.Value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	w.pending, w.size = w.pending[:0], 0
}

// newConsole builds a console over the fixture with its caches loaded.
func newConsole(tb testing.TB, f *fixtureArena, o Options) *Console {
	tb.Helper()
	o.Validator = f.v
	c, err := New(o, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Refresh(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return c
}

// get fetches path from h and returns the status and body.
func get(tb testing.TB, h http.Handler, path string) (int, string, http.Header) {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	rw := httptest.NewRecorder()
	h.ServeHTTP(rw, req)
	return rw.Code, rw.Body.String(), rw.Header()
}
