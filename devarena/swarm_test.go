package devarena

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/config"
	"arena/episode"
	"arena/validator"
	"arena/validator/records"
)

// swarmRaceEvery is the race window of both runs, in blocks (FastTimings
// has 40). The validator waits up to half a window for qualifying runs in
// flight before it races; with the swarm some always are (the
// unreachable hostiles are retried without end), so the first race starts
// half a window in, and the honest miners must have qualified by then. 80
// blocks give them 4 s instead of 2 s, which keeps the test from racing
// fewer than 4 honest miners on a loaded CI machine.
const swarmRaceEvery = 80

// swarmStartBlock is the chain height both runs start their validator at.
// The race window (and so the hidden draw, seeded by the window) is a
// function of the block, and setup ends at a varying block: the devnet's
// boot loop commits a block every BlockTime while the miners announce
// their axons (~30-50 blocks) and the swarm's registrations and axon
// transactions add ~35. Without a common start the two runs would race in
// different windows, on different problems. Both are therefore advanced
// to block 161, one block into the window that opens at 160: the honest
// miners qualify from block ~161, and the first race is window 160's in
// both runs: at block ~165-175 in the clean run (as soon as qualifying is
// done), at block 200 with the swarm (half a window in).
const swarmStartBlock = 161

// swarmHostiles is the size of the hostile swarm.
const swarmHostiles = 32

// swarmSuiteSeed fixes the problem generator: both runs draw the same
// public qualifying set and the same hidden pool.
const swarmSuiteSeed = 0x5eed5a4a

// swarmRun is what one run of the scenario measured.
type swarmRun struct {
	name    string
	took    time.Duration
	rssPeak uint64
	race    records.Race
	// perProblem[uid] holds the honest racer's final per race problem, in
	// race problem order, with its end reason (diagnostics).
	perProblem map[uint16][]string
	honest     []uint16

	toolP99, overheadP99     float64 // seconds, from the registry's histograms (all miners)
	toolCount, overheadCount uint64
	// Exact, honest miners only, from their stored trajectories: the
	// validator's turnaround per step (step received → observation
	// written) and the tool time per call.
	honestTurnP99, honestToolP99 time.Duration
	honestSteps                  int

	handshakes   map[string]float64
	hostile      []hostileOutcome
	swarmSockets int64 // TCP connections the validator opened to the swarm
}

// hostileOutcome is one hostile uid's record after the swarm run.
type hostileOutcome struct {
	uid      uint16
	kind     string
	accepted int64
	reasons  map[episode.EndReason]int
}

// TestHostileSwarm runs 4 honest reference miners (skill 1) through a
// full qualifying + race cycle twice, each time in its own arena and data
// dir: first alone, then with 32 hostile miners alongside them. The
// hostile miners are raw protocol speakers on loopback that misbehave in
// every way the episode package's hostile tests cover, plus connection
// floods and handshake spam (see swarmKinds). It checks that
//   - the honest miners' scores in the first race equal those of the run
//     without the swarm (same window, same drawn hidden problems);
//   - every stored episode of a hostile miner ends with its named reason
//     and scores 0, no hostile miner qualifies or races, and the
//     unreachable ones are dialled, counted and retried, never stored;
//   - the process RSS (the validator runs in-process) stays under
//     2× the clean run's peak + 200 MB;
//   - p99 tool-call latency (arena_shop_tool_duration_seconds) and the
//     validator's per-step turnaround for honest miners stay within 2× of
//     the clean run; this is logged by default and asserted only with
//     ARENATEST_STRICT_TIMING=1 (timing on a shared 2-core box is noisy).
//
// The measured numbers are recorded in docs/benchmarks-swarm.md.
func TestHostileSwarm(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile swarm: two full dev arenas")
	}
	began := time.Now()
	settleMemory()
	clean := runSwarmScenario(t, "clean", 0)
	settleMemory()
	swarm := runSwarmScenario(t, "swarm", swarmHostiles)
	if t.Failed() {
		return
	}

	// The honest miners' race scores equal the run without the swarm.
	t.Run("honest scores unchanged", func(t *testing.T) {
		if clean.race.Window != swarm.race.Window {
			t.Fatalf("first race windows differ: %d without the swarm, %d with it (the draws are seeded by the window)", clean.race.Window, swarm.race.Window)
		}
		if !slices.Equal(clean.race.Problems, swarm.race.Problems) {
			t.Fatalf("window %d drew different problems: %v vs %v", clean.race.Window, clean.race.Problems, swarm.race.Problems)
		}
		want := resultsFor(clean.race, clean.honest)
		got := resultsFor(swarm.race, swarm.honest)
		if len(want) != len(clean.honest) || len(got) != len(swarm.honest) {
			t.Fatalf("not every honest miner raced: %v without the swarm, %v with it", want, got)
		}
		for _, uid := range clean.honest {
			if want[uid] != got[uid] {
				t.Errorf("uid %d: race score %v with the swarm, %v without\n  without: %v\n  with:    %v",
					uid, got[uid], want[uid], clean.perProblem[uid], swarm.perProblem[uid])
			}
		}
		t.Logf("race window %d, %d problems; honest scores %v (both runs)", swarm.race.Window, len(swarm.race.Problems), got)
	})

	t.Run("hostile episodes named and zero", func(t *testing.T) {
		// The per-uid checks ran inside the scenario, with the store open;
		// here the summary.
		byKind := map[string][]string{}
		for _, h := range swarm.hostile {
			byKind[h.kind] = append(byKind[h.kind], fmt.Sprintf("uid %d %v (%d dials)", h.uid, h.reasons, h.accepted))
		}
		kinds := make([]string, 0, len(byKind))
		for k := range byKind {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			t.Logf("%-42s %s", k, strings.Join(byKind[k], "; "))
		}
		t.Logf("validator handshakes by outcome: %v; %d sockets opened to the swarm, all closed by the validator", swarm.handshakes, swarm.swarmSockets)
	})

	t.Run("rss bounded", func(t *testing.T) {
		bound := 2*clean.rssPeak + 200<<20
		t.Logf("peak RSS: %s without the swarm, %s with it (bound %s)", mib(clean.rssPeak), mib(swarm.rssPeak), mib(bound))
		if swarm.rssPeak >= bound {
			t.Errorf("peak RSS with the swarm %s ≥ 2× the clean run + 200 MiB = %s", mib(swarm.rssPeak), mib(bound))
		}
	})

	t.Run("honest latency", func(t *testing.T) {
		strict := os.Getenv("ARENATEST_STRICT_TIMING") == "1"
		// The 2× bound applies to tool-call latency; the step overhead and
		// turnaround (which include encoding and writing the observation on
		// a CPU shared with the swarm) are reported.
		check := func(what string, clean, swarm float64, bounded bool) {
			ratio := swarm / clean
			t.Logf("%-50s clean %8.3fms  swarm %8.3fms  ratio %.2f", what, clean, swarm, ratio)
			if strict && bounded && ratio > 2 {
				t.Errorf("%s: %.3fms with the swarm is %.2f× the clean run's %.3fms (limit 2×)", what, swarm, ratio, clean)
			}
		}
		check("p99 tool call, all miners (histogram)", clean.toolP99*1e3, swarm.toolP99*1e3, true)
		check("p99 tool time per call, honest, race 1", ms(clean.honestToolP99), ms(swarm.honestToolP99), true)
		check("p99 step overhead, all miners (histogram)", clean.overheadP99*1e3, swarm.overheadP99*1e3, false)
		check("p99 step turnaround, honest, race 1", ms(clean.honestTurnP99), ms(swarm.honestTurnP99), false)
		t.Logf("samples: tool calls %d / %d, overhead %d / %d, honest steps %d / %d (clean / swarm); strict=%v",
			clean.toolCount, swarm.toolCount, clean.overheadCount, swarm.overheadCount, clean.honestSteps, swarm.honestSteps, strict)
	})
	t.Logf("runs took %s (clean) and %s (swarm); test %s", clean.took.Round(time.Millisecond), swarm.took.Round(time.Millisecond),
		time.Since(began).Round(time.Millisecond))
}

// settleMemory returns freed memory to the OS so that one run's peak RSS
// does not carry the previous run's garbage.
func settleMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func resultsFor(rc records.Race, uids []uint16) map[uint16]float64 {
	out := map[uint16]float64{}
	for _, r := range rc.Results {
		if slices.Contains(uids, r.UID) {
			out[r.UID] = r.Score
		}
	}
	return out
}

// runSwarmScenario starts an arena with 4 honest miners of skill 1 and
// nHostile hostile ones, runs it until its first race is judged (and, with
// a swarm, until every hostile miner was dealt with), checks the hostile
// records and returns the measurements.
func runSwarmScenario(t *testing.T, name string, nHostile int) swarmRun {
	t.Helper()
	res := swarmRun{name: name}
	rss := startRSS()
	began := time.Now()

	logs := &lockedBuffer{}
	log := zerolog.New(logs).Level(zerolog.InfoLevel)
	reg := prometheus.NewRegistry()
	events := make(chan validator.Event, 1<<14)
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Metrics.Listen = "127.0.0.1:0"
	cfg = FastTimings(cfg)
	// Stalled hostile miners cost a qualifying slot for at most a step
	// timeout per round of episodes, not FastTimings' 10 s.
	cfg.Episode.StepTimeout = config.Duration{Duration: 2 * time.Second}
	cfg.Episode.EpisodeTimeout = config.Duration{Duration: 15 * time.Second}
	cfg.Validator.SuiteSeed = swarmSuiteSeed
	cfg.Validator.RaceEveryBlocks = swarmRaceEvery

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := Start(ctx, Options{Config: cfg, KeepTimings: true, Miners: 4, Skills: []float64{1, 1, 1, 1},
		BlockTime: 100 * time.Millisecond, Registry: reg, DrawSeed: func(w uint64) uint64 { return w },
		OnEvent: func(e validator.Event) {
			select {
			case events <- e:
			default:
			}
		}}, log)
	if err != nil {
		t.Fatalf("%s: start: %v", name, err)
	}
	closed := false
	closeArena := func() {
		if !closed {
			closed = true
			a.Close()
		}
	}
	defer closeArena()
	for _, m := range a.Miners {
		res.honest = append(res.honest, m.UID)
	}

	// The swarm registers after the honest miners (uids 1..4 in both
	// runs) and announces its loopback axons before the validator's first
	// sync, which therefore sees all 36 miners.
	var swarm []*hostileMiner
	if nHostile > 0 {
		if swarm, err = newHostileSwarm(); err != nil {
			t.Fatal(err)
		}
		if len(swarm) != nHostile {
			t.Fatalf("the swarm has %d miners, want %d", len(swarm), nHostile)
		}
		addrs := make([]common.Address, len(swarm))
		for i, h := range swarm {
			if err := h.start(); err != nil {
				t.Fatal(err)
			}
			defer h.close()
			addrs[i] = h.signer.Address
		}
		uids, err := a.Devnet.RegisterNeurons(ctx, addrs, make([]uint64, len(addrs)), make([]bool, len(addrs)))
		if err != nil {
			t.Fatalf("register the swarm: %v", err)
		}
		for i, h := range swarm {
			h.uid = uids[i]
			ap := netip.MustParseAddrPort(h.endpoint())
			if err := a.Devnet.SetAxon(ctx, h.uid, chain.Axon{IP: ap.Addr(), Port: ap.Port(), Version: episode.Version}); err != nil {
				t.Fatalf("axon of hostile uid %d: %v", h.uid, err)
			}
		}
	}
	head, err := a.Devnet.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head >= swarmStartBlock {
		t.Fatalf("%s: setup reached block %d, past the common start block %d; raise swarmStartBlock by a multiple of %d", name, head, swarmStartBlock, swarmRaceEvery)
	}
	a.Devnet.AdvanceBlocks(int(swarmStartBlock - head))
	t.Logf("%s: setup took %s and %d blocks; validator starts at block %d", name, time.Since(began).Round(time.Millisecond), head, swarmStartBlock)

	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(ctx) }()

	// Wait for the first race to be judged and, with a swarm, for every
	// hostile miner to have been dealt with: qualified (stored, scored)
	// or, for the unreachable ones, dialled and refused a qualifying run.
	var firstRace uint64
	deadline := time.After(100 * time.Second)
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	pending := func() []string {
		var out []string
		err := a.Stack.Store.View(func(txn *badger.Txn) error {
			for _, h := range swarm {
				if h.kind.unreachable {
					// Dialled, and given up on by the validator at least once.
					if h.ended.Load() == 0 {
						out = append(out, fmt.Sprintf("uid %d (%s): no dial given up yet (%d dials)", h.uid, h.kind.name, h.accepted.Load()))
					}
					continue
				}
				m, ok, err := a.Stack.Validator.Records().GetMiner(txn, h.uid)
				if err != nil {
					return err
				}
				if !ok || m.Qualifying == nil {
					out = append(out, fmt.Sprintf("uid %d (%s): not qualified yet", h.uid, h.kind.name))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for {
		left := []string{"first race"}
		if firstRace != 0 {
			left = pending()
		}
		if len(left) == 0 {
			break
		}
		select {
		case e := <-events:
			switch e.Kind {
			case validator.EventRaceStart, validator.EventRaceSkipped, validator.EventRaceDone, validator.EventSync:
				if firstRace == 0 {
					t.Logf("%s: block %d %s: %s", name, e.Block, e.Kind, e.Text)
				}
			}
			if e.Kind == validator.EventRaceDone && firstRace == 0 {
				firstRace = e.RaceID
				// Latency over the same work in both runs: every qualifying
				// run and the first race (with the swarm, also whatever the
				// hostile miners cost until then).
				res.toolP99, res.toolCount = histogramQuantile(t, reg, "arena_shop_tool_duration_seconds", 0.99)
				res.overheadP99, res.overheadCount = histogramQuantile(t, reg, "arena_episode_step_overhead_seconds", 0.99)
			}
		case <-poll.C:
		case err := <-runDone:
			t.Fatalf("%s: arena stopped: %v; logs:\n%s", name, err, tail(logs.String(), 60))
		case <-deadline:
			t.Fatalf("%s: after 100 s still waiting for %v; logs:\n%s", name, left, tail(logs.String(), 60))
		}
	}
	cancel()
	if err := <-runDone; err != nil {
		t.Errorf("%s: arena run: %v", name, err)
	}

	// Read the store (still open) before closing the arena.
	rec := a.Stack.Validator.Records()
	var turn, tool []time.Duration
	err = a.Stack.Store.View(func(txn *badger.Txn) error {
		races, err := rec.ListRaces(txn, 0)
		if err != nil {
			return err
		}
		for _, rc := range races {
			if rc.ID == firstRace {
				res.race = rc
			}
			for _, r := range rc.Racers {
				if !slices.Contains(res.honest, r.UID) {
					t.Errorf("%s: race %d has a racer uid %d that is not an honest miner", name, rc.ID, r.UID)
				}
			}
		}
		if res.race.ID == 0 || res.race.Phase != records.PhaseDone {
			return fmt.Errorf("first race %d not stored as done: %+v", firstRace, res.race)
		}
		// Per-problem finals of the first race, for diagnostics.
		res.perProblem = map[uint16][]string{}
		for id, final := range res.race.Episodes {
			e, ok, err := rec.GetEpisode(txn, id)
			if err != nil || !ok {
				return fmt.Errorf("race episode %s: ok=%v err=%v", id, ok, err)
			}
			i := slices.Index(res.race.Problems, e.Trajectory.ProblemID)
			s := res.perProblem[e.Trajectory.MinerUID]
			if s == nil {
				s = make([]string, len(res.race.Problems))
			}
			s[i] = fmt.Sprintf("%.4f/%s", final, e.Trajectory.EndReason)
			res.perProblem[e.Trajectory.MinerUID] = s
		}

		// Honest miners' own latencies in the first race (with the swarm,
		// the race runs while the hostile miners are being qualified), from
		// their trajectories.
		for id := range res.race.Episodes {
			e, _, err := rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			if slices.Contains(res.honest, e.Trajectory.MinerUID) {
				for _, st := range e.Trajectory.Steps {
					if !st.TObserved.IsZero() {
						turn = append(turn, st.TObserved.Sub(st.TReceived))
					}
					if n := len(st.ToolCalls); n > 0 {
						tool = append(tool, st.ToolTime/time.Duration(n))
					}
				}
			}
		}

		// Every hostile miner: episodes end with the kind's named reason and
		// score 0; no qualifying score above 0; unreachable ones store
		// nothing (their qualifying is retried, not scored).
		for _, h := range swarm {
			out := hostileOutcome{uid: h.uid, kind: h.kind.name, accepted: h.accepted.Load(), reasons: map[episode.EndReason]int{}}
			m, ok, err := rec.GetMiner(txn, h.uid)
			if err != nil {
				return err
			}
			if !ok || m.Endpoint != h.endpoint() || m.Skipped != "" {
				t.Errorf("uid %d (%s): miner record %+v, want endpoint %s", h.uid, h.kind.name, m, h.endpoint())
			}
			ids, err := rec.MinerEpisodes(txn, h.uid)
			if err != nil {
				return err
			}
			switch {
			case h.kind.unreachable:
				if m.Qualifying != nil || len(ids) > 0 {
					t.Errorf("uid %d (%s): unreachable, yet qualifying %+v and %d stored episodes", h.uid, h.kind.name, m.Qualifying, len(ids))
				}
				if out.accepted == 0 {
					t.Errorf("uid %d (%s): never dialled", h.uid, h.kind.name)
				}
			case m.Qualifying == nil:
				t.Errorf("uid %d (%s): no qualifying run recorded", h.uid, h.kind.name)
			default:
				if m.Qualifying.Score != 0 {
					t.Errorf("uid %d (%s): qualifying score %v, want 0", h.uid, h.kind.name, m.Qualifying.Score)
				}
				if len(ids) < a.Config.Validator.QualifyingProblems {
					t.Errorf("uid %d (%s): %d stored episodes, want at least %d", h.uid, h.kind.name, len(ids), a.Config.Validator.QualifyingProblems)
				}
			}
			for _, id := range ids {
				e, ok, err := rec.GetEpisode(txn, id)
				if err != nil || !ok {
					return fmt.Errorf("episode %s: ok=%v err=%v", id, ok, err)
				}
				r := e.Trajectory.EndReason
				out.reasons[r]++
				if r != h.kind.want || !r.MinerFault() {
					t.Errorf("uid %d (%s): episode %s ended %q (%s), want %q", h.uid, h.kind.name, id, r, e.Trajectory.EndDetail, h.kind.want)
				}
				if e.Kind != records.Qualifying {
					t.Errorf("uid %d (%s): episode %s is a %s episode", h.uid, h.kind.name, id, e.Kind)
				}
				vd, ok, err := rec.GetVerdict(txn, id)
				if err != nil {
					return err
				}
				if !ok {
					t.Errorf("uid %d (%s): episode %s has no verdict", h.uid, h.kind.name, id)
				} else if vd.Final != 0 {
					t.Errorf("uid %d (%s): episode %s ended %s but scores %v", h.uid, h.kind.name, id, r, vd.Final)
				}
			}
			res.hostile = append(res.hostile, out)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: read the store: %v", name, err)
	}

	res.honestTurnP99, res.honestToolP99, res.honestSteps = exactQuantile(turn, 0.99), exactQuantile(tool, 0.99), len(turn)
	res.handshakes = labelValues(t, reg, "arena_episode_handshakes_total", "outcome")
	if nHostile > 0 {
		for _, r := range []episode.EndReason{episode.ReasonDialFailed, episode.ReasonHandshakeTimeout, episode.ReasonMalformed, episode.ReasonBadSignature} {
			if res.handshakes[string(r)] == 0 {
				t.Errorf("%s: no %s handshake counted in arena_episode_handshakes_total: %v", name, r, res.handshakes)
			}
		}
	}

	closeArena()
	// The validator closed every socket it opened to the swarm, including
	// those of axons that never close their side.
	var accepted int64
	for _, h := range swarm {
		accepted += h.accepted.Load()
	}
	for wait := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var held []string
		for _, h := range swarm {
			if n := h.held.Load(); n > 0 {
				held = append(held, fmt.Sprintf("uid %d (%s): %d", h.uid, h.kind.name, n))
			}
		}
		if len(held) == 0 {
			break
		}
		if time.Now().After(wait) {
			t.Errorf("%s: 5 s after the validator stopped, hostile axons still hold sockets it opened: %v", name, held)
			break
		}
	}
	res.swarmSockets = accepted
	for _, h := range swarm {
		h.close()
	}
	res.rssPeak = rss.Stop()
	res.took = time.Since(began)
	t.Logf("%s: first race %d (window %d, started block %d): results %+v; peak RSS %s; took %s",
		name, res.race.ID, res.race.Window, res.race.StartedBlock, res.race.Results, mib(res.rssPeak), res.took.Round(time.Millisecond))
	return res
}

// labelValues sums the counter name by one label's value.
func labelValues(t *testing.T, reg *prometheus.Registry, name, label string) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label {
					out[lp.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}
