package validator

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/scoring/race"
	"arena/suite"
	"arena/validator/records"
)

// scheduleRace starts the race for the current window, or resumes judging
// of a race interrupted after its episodes were stored.
func (v *Validator) scheduleRace(ctx context.Context, block uint64) {
	v.mu.Lock()
	if v.raceBusy || v.meta == nil {
		v.mu.Unlock()
		return
	}
	inFlight := len(v.qualifying)
	v.mu.Unlock()

	var st records.RaceState
	if err := v.opts.Store.View(func(txn *badger.Txn) (err error) { st, err = v.rec.GetState(txn); return err }); err != nil {
		v.log.Error().Err(err).Msg("store: read race state")
		return
	}
	if st.Current != 0 {
		v.startRaceWork(func() { v.finishRace(ctx, st.Current) })
		return
	}
	window := block / v.opts.RaceEveryBlocks * v.opts.RaceEveryBlocks
	if window == 0 || window <= st.LastWindow && st.LastWindow != 0 {
		return
	}
	// Let qualifying runs that are in flight finish so their miners can
	// race in this window.
	if inFlight > 0 && block < window+v.opts.RaceEveryBlocks/2 {
		return
	}
	if v.storeBlocksNewWork() {
		return
	}
	v.startRaceWork(func() { v.runRace(ctx, window, block) })
}

func (v *Validator) startRaceWork(fn func()) {
	v.mu.Lock()
	if v.raceBusy {
		v.mu.Unlock()
		return
	}
	v.raceBusy = true
	v.mu.Unlock()
	v.spawn(func() {
		defer func() {
			v.mu.Lock()
			v.raceBusy = false
			v.mu.Unlock()
			v.m.setPhase("idle")
		}()
		fn()
	})
}

// qualifyingSnapshot lists the qualifying results of the miners currently
// registered under the same hotkey and serving.
func (v *Validator) qualifyingSnapshot(txn *badger.Txn) ([]race.Qualifying, map[uint16]records.Miner, error) {
	miners, err := v.rec.ListMiners(txn)
	if err != nil {
		return nil, nil, err
	}
	var out []race.Qualifying
	by := map[uint16]records.Miner{}
	for _, m := range miners {
		by[m.UID] = m
		if m.Qualifying == nil || m.Endpoint == "" || m.Skipped != "" {
			continue
		}
		out = append(out, race.Qualifying{UID: m.UID, Hotkey: m.Hotkey, Score: m.Qualifying.Score, QualifiedAt: m.Qualifying.Block,
			Problems: len(m.Qualifying.Episodes), RegisteredAt: m.RegisteredAt})
	}
	return out, by, nil
}

// runRace draws fresh hidden problems, records them and their exposure in
// one transaction, runs every racer on them at the same time, then judges.
func (v *Validator) runRace(ctx context.Context, window, block uint64) {
	var (
		st       records.RaceState
		quals    []race.Qualifying
		miners   map[uint16]records.Miner
		out      race.Output
		stepErr  error
		snapshot = func(txn *badger.Txn) (err error) {
			if st, err = v.rec.GetState(txn); err != nil {
				return err
			}
			quals, miners, err = v.qualifyingSnapshot(txn)
			return err
		}
	)
	if err := v.opts.Store.View(snapshot); err != nil {
		v.log.Error().Err(err).Msg("race: read state")
		return
	}
	out, _, stepErr = v.opts.Race.Step(st.State, race.Input{Block: block, Qualifying: quals})
	if stepErr != nil {
		v.log.Error().Err(stepErr).Msg("race: qualifiers")
		return
	}
	// No race without a qualified challenger: with only the leader there
	// is nothing to decide, and every race spends fresh hidden clusters.
	if len(out.Qualifiers) == 0 {
		why := "nobody qualified"
		if st.State.Leader != nil {
			why = fmt.Sprintf("no challenger for leader uid %d", st.State.Leader.UID)
		}
		v.log.Info().Uint64("window", window).Float64("bar", out.Bar).Int("qualifying", len(quals)).Msg("race window: " + why + "; no race")
		v.emit(Event{Kind: EventRaceSkipped, Block: block, Text: fmt.Sprintf("race window %d: %s at the bar %.3f; no race", window, why, out.Bar)})
		if err := v.opts.Store.Update(func(txn *badger.Txn) error {
			s, err := v.rec.GetState(txn)
			if err != nil {
				return err
			}
			s.LastWindow = window
			return v.rec.PutState(txn, s)
		}); err != nil {
			storeError(v.log, err, "race: store window")
		}
		return
	}
	var racers []records.Racer
	// The incumbent races by right, even when it does not serve: it then
	// scores 0 on every problem, which is how an absent leader loses.
	if l := st.State.Leader; l != nil {
		if m, ok := miners[l.UID]; ok && m.Hotkey == l.Hotkey {
			racers = append(racers, records.Racer{UID: m.UID, Hotkey: m.Hotkey, Endpoint: m.Endpoint, Incumbent: true})
		}
	}
	for _, q := range out.Qualifiers {
		m := miners[q.UID]
		racers = append(racers, records.Racer{UID: m.UID, Hotkey: m.Hotkey, Endpoint: m.Endpoint})
	}
	// The racer the leader's group beat races along, so that a copy of the
	// leader registered before it can be recognised (docs/scoring.md).
	if q := out.Reference; q != nil {
		m := miners[q.UID]
		racers = append(racers, records.Racer{UID: m.UID, Hotkey: m.Hotkey, Endpoint: m.Endpoint})
	}

	// The race runs on the stock of its window, whichever block it starts
	// at, so every validator racing this window serves the same shop; its
	// new hidden problems are made from that stock too.
	stock, err := v.opts.Shop.At(ctx, window)
	if err != nil {
		if ctx.Err() == nil {
			v.log.Error().Err(err).Uint64("window", window).Msg("race: restock the shop; no race this window")
		}
		return
	}
	v.opts.Shop.Release(window)
	if v.opts.Refill != nil {
		rep, err := v.opts.Ledger.Refill(ctx, max(v.opts.HiddenMinClusters, v.opts.RaceProblems), v.opts.Refill(stock))
		switch {
		case err != nil && ctx.Err() != nil:
			return // shutdown; the window races after restart
		case err != nil:
			v.log.Error().Err(err).Msg("race: refill the hidden pool")
		case rep.Generated > 0:
			v.log.Info().Int("generated", rep.Generated).Int("hidden_available", rep.HiddenAvailable).Msg("hidden pool refilled")
		}
	}
	seed := randomSeed()
	if v.opts.DrawSeed != nil {
		seed = v.opts.DrawSeed(window)
	}
	pool, poolErr := v.opts.Ledger.HiddenAvailable()
	problems, err := v.opts.Ledger.Draw(suite.Hidden, v.opts.RaceProblems, seed)
	if err != nil {
		v.log.Error().Err(err).Msg("race: draw hidden problems; no race this window")
		return
	}
	rc := records.Race{Window: window, Phase: records.PhaseRunning, StartedBlock: block, StartedAt: time.Now().UTC(), Racers: racers, Qualifying: quals}
	if poolErr == nil {
		left := max(pool-len(problems), 0)
		rc.HiddenLeft = &left
	}
	hotkeys := make([]string, len(racers))
	for i, r := range racers {
		hotkeys[i] = r.Hotkey
	}
	for _, p := range problems {
		rc.Problems = append(rc.Problems, p.ID)
		rc.Clusters = append(rc.Clusters, p.Cluster)
	}
	// The race record and the exposure commit together, before anything
	// is sent: a crash after this point can only abort the race, never
	// reuse its problems.
	err = v.opts.Store.Update(func(txn *badger.Txn) error {
		s, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		if s.Current != 0 {
			return fmt.Errorf("race %d is still in progress", s.Current)
		}
		rc.ID = max(s.NextRaceID, 1)
		s.NextRaceID = rc.ID + 1
		s.Current, s.LastWindow = rc.ID, window
		if err := v.rec.PutRace(txn, &rc); err != nil {
			return err
		}
		if err := v.opts.Ledger.MarkExposedTxn(txn, rc.Clusters, hotkeys, block); err != nil {
			return err
		}
		return v.rec.PutState(txn, s)
	})
	if err != nil {
		storeError(v.log, err, "race: record start")
		return
	}
	v.m.setPhase("running")
	v.m.hiddenUsed.Add(float64(len(rc.Clusters)))
	v.checkCapacity(ctx)
	log := v.log.With().Uint64("race", rc.ID).Logger()
	log.Info().Uint64("window", window).Int("racers", len(racers)).Int("problems", len(problems)).Float64("bar", out.Bar).Msg("race started")
	v.emit(Event{Kind: EventRaceStart, Block: block, RaceID: rc.ID, Text: fmt.Sprintf("race %d: %d racers on %d fresh hidden problems (bar %.3f)", rc.ID, len(racers), len(problems), out.Bar)})

	meta, _, _ := v.snapshot()
	var wg sync.WaitGroup
	for _, r := range racers {
		if r.Endpoint == "" {
			log.Warn().Uint16("uid", r.UID).Msg("race: the incumbent serves no axon; it scores 0 on every problem")
			continue
		}
		wg.Go(func() {
			m := episode.Miner{UID: r.UID, Endpoint: r.Endpoint}
			if n, ok := neuronByUID(meta, r.UID); ok {
				m.Hotkey = n.Hotkey
			}
			if m.Hotkey == (chain.AccountID{}) {
				var err error
				if m.Hotkey, err = chain.ParseSS58(r.Hotkey); err != nil {
					log.Error().Err(err).Uint16("uid", r.UID).Msg("race: racer hotkey")
				}
			}
			trs := v.runner.RunOn(ctx, stock.Tools, m, toEpisodeProblems(problems))
			eps := v.episodes(trs, problems, records.Racing, rc.ID, r.Hotkey, block)
			if err := v.storeEpisodes(eps); err != nil {
				log.Error().Err(err).Uint16("uid", r.UID).Msg("race: store episodes")
				return
			}
			v.emit(Event{Kind: EventRacerDone, Block: block, RaceID: rc.ID, UID: r.UID, Text: fmt.Sprintf("race %d: uid %d finished %d episodes", rc.ID, r.UID, len(eps))})
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		log.Warn().Msg("race interrupted by shutdown; it is aborted and re-run after restart")
		return
	}
	if err := v.opts.Store.Update(func(txn *badger.Txn) error {
		cur, ok, err := v.rec.GetRace(txn, rc.ID)
		if err != nil || !ok {
			return errors.Join(err, fmt.Errorf("race %d vanished", rc.ID))
		}
		cur.Phase = records.PhaseJudging
		return v.rec.PutRace(txn, &cur)
	}); err != nil {
		storeError(log, err, "race: enter judging")
		return
	}
	v.finishRace(ctx, rc.ID)
}

// finishRace judges a race's stored episodes (those without a verdict),
// then applies the results to the race state in one transaction.
func (v *Validator) finishRace(ctx context.Context, id uint64) {
	v.m.setPhase("judging")
	log := v.log.With().Uint64("race", id).Logger()
	var (
		rc  records.Race
		ids []string
	)
	err := v.opts.Store.View(func(txn *badger.Txn) error {
		var ok bool
		var err error
		if rc, ok, err = v.rec.GetRace(txn, id); err != nil || !ok {
			return errors.Join(err, fmt.Errorf("race %d is not stored", id))
		}
		ids, err = v.rec.RaceEpisodes(txn, id)
		return err
	})
	if err != nil {
		log.Error().Err(err).Msg("race: read")
		return
	}
	if rc.Phase != records.PhaseJudging {
		return
	}
	eps, vds := make([]records.Episode, len(ids)), make([]records.Verdict, len(ids))
	for i, eid := range ids {
		var judged bool
		if err := v.opts.Store.View(func(txn *badger.Txn) (err error) {
			if eps[i], _, err = v.rec.GetEpisode(txn, eid); err != nil {
				return err
			}
			vds[i], judged, err = v.rec.GetVerdict(txn, eid)
			return err
		}); err != nil {
			log.Error().Err(err).Msg("race: read episode")
			return
		}
		if !judged {
			if vds[i], err = v.evaluate(ctx, &eps[i], rc.StartedBlock); err != nil {
				if ctx.Err() == nil {
					log.Error().Err(err).Msg("race: judge")
				}
				return
			}
			if err := v.opts.Store.Update(func(txn *badger.Txn) error { return v.rec.PutVerdict(txn, &vds[i]) }); err != nil {
				storeError(log, err, "race: store verdict")
				return
			}
		}
	}
	if v.voids(refs(vds)) {
		v.voidRace(log, rc)
		return
	}
	// The judge's policy over each racer's trajectories in this race.
	byRacer := map[uint16][]int{}
	for i := range eps {
		uid := eps[i].Trajectory.MinerUID
		byRacer[uid] = append(byRacer[uid], i)
	}
	// A racer for whom the relay's provider failed is void in this race
	// (never the miner's fault): its row leaves the heat, so the race is
	// no evidence for or against it, as judge.on_unavailable: void does
	// for a whole race.
	voided := map[uint16]bool{}
	for uid, is := range byRacer {
		for _, i := range is {
			if eps[i].Trajectory.RelayFault {
				voided[uid] = true
				break
			}
		}
	}
	for _, uid := range slices.Sorted(maps.Keys(voided)) {
		v.m.void.WithLabelValues("racer").Inc()
		log.Warn().Uint16("uid", uid).Msg("race void for this racer: the relay's provider failed during its episodes (not the miner's fault)")
		v.emit(Event{Kind: EventRaceJudged, Block: rc.StartedBlock, RaceID: id, UID: uid,
			Text: fmt.Sprintf("race %d void for uid %d: the relay's provider failed", id, uid)})
	}
	var capped []records.Verdict
	for _, uid := range slices.Sorted(maps.Keys(byRacer)) {
		var re []*records.Episode
		var rv []*records.Verdict
		for _, i := range byRacer[uid] {
			re, rv = append(re, &eps[i]), append(rv, &vds[i])
		}
		if f, ok := v.judgeRun("race", re, rv); ok {
			log.Warn().Uint16("uid", uid).Str("skeleton", f.Skeleton).Float64("share", f.Share).Msg("race: the racer's thinks follow one template; reasoning score capped")
			for _, vd := range rv {
				capped = append(capped, *vd)
			}
		}
	}
	finals := map[string]float64{}
	type racerProblem struct {
		uid     uint16
		problem string
	}
	byPair := map[racerProblem]float64{}
	for i := range eps {
		finals[ids[i]] = vds[i].Final
		byPair[racerProblem{eps[i].Trajectory.MinerUID, eps[i].Trajectory.ProblemID}] = vds[i].Final
	}
	// The heat holds every racer's score on every problem, in problem
	// order; a missing episode counts as zero.
	heat := race.Heat{Race: rc.ID, Block: rc.StartedBlock, Problems: len(rc.Problems)}
	results := make([]race.RaceResult, 0, len(rc.Racers))
	for _, r := range rc.Racers {
		if voided[r.UID] {
			continue
		}
		scores := make([]float64, len(rc.Problems))
		sum := 0.0
		for k, pid := range rc.Problems {
			scores[k] = byPair[racerProblem{r.UID, pid}]
			sum += scores[k]
		}
		heat.Racers = append(heat.Racers, race.HeatRacer{UID: r.UID, Hotkey: r.Hotkey, Scores: scores})
		results = append(results, race.RaceResult{UID: r.UID, Score: sum / float64(len(rc.Problems))})
	}
	sort.Slice(results, func(i, j int) bool { return results[i].UID < results[j].UID })
	v.emit(Event{Kind: EventRaceJudged, Block: rc.StartedBlock, RaceID: id, Text: fmt.Sprintf("race %d judged: %d trajectories", id, len(ids))})

	var out race.Output
	prevLeader := -1
	err = v.opts.Store.Update(func(txn *badger.Txn) error {
		s, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		if s.State.Leader != nil {
			prevLeader = int(s.State.Leader.UID)
		}
		// Step at the race's start block with the qualifying snapshot it
		// started from and the heats stored before it, so re-running a
		// judged race gives the same result.
		block := max(rc.StartedBlock, s.State.LastBlock)
		history, err := v.history(txn, id, block)
		if err != nil {
			return err
		}
		if v.raceCache == nil {
			v.raceCache = race.NewCache()
		}
		o, next, err := v.opts.Race.Step(s.State, race.Input{Block: block, Qualifying: rc.Qualifying, Race: &heat, History: history, Cache: v.raceCache})
		if err != nil {
			return err
		}
		out = o
		if err := v.putVerdicts(txn, capped); err != nil {
			return err
		}
		cur, _, err := v.rec.GetRace(txn, id)
		if err != nil {
			return err
		}
		cur.Phase, cur.Results, cur.Output, cur.Episodes, cur.Heat = records.PhaseDone, results, &o, finals, &heat
		cur.VoidRacers = slices.Sorted(maps.Keys(voided))
		v.mu.Lock()
		cur.FinishedBlock = v.head.Number
		v.mu.Unlock()
		if err := v.rec.PutRace(txn, &cur); err != nil {
			return err
		}
		s.State, s.Current = next, 0
		if len(o.Ranked) > 0 {
			s.Ranked, s.RankedRace = o.Ranked, id
		}
		return v.rec.PutState(txn, s)
	})
	if err != nil {
		storeError(log, err, "race: apply results")
		return
	}
	v.m.races.WithLabelValues(string(out.Outcome)).Inc()
	ev := log.Info().Str("outcome", string(out.Outcome)).Interface("results", results).Int("window_races", out.WindowRaces)
	if out.Leader != nil {
		ev = ev.Uint16("leader", out.Leader.UID)
	}
	ev.Msg("race done")
	v.emit(Event{Kind: EventRaceDone, Block: rc.StartedBlock, RaceID: id, Text: raceStory(id, out, prevLeader, v.opts.Race)})
	v.updatePoolMetrics(ctx)
}

// voidRace ends a race whose every verdict was given while no llm judge
// model answered, under judge.on_unavailable: void. It is stored as done
// with the void outcome and no heat, so it is not evidence; the standing
// is unchanged and the next window races afresh.
func (v *Validator) voidRace(log zerolog.Logger, rc records.Race) {
	err := v.opts.Store.Update(func(txn *badger.Txn) error {
		s, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		cur, _, err := v.rec.GetRace(txn, rc.ID)
		if err != nil {
			return err
		}
		cur.Phase, cur.Output = records.PhaseDone, &race.Output{Outcome: race.Void, Leader: s.State.Leader}
		v.mu.Lock()
		cur.FinishedBlock = v.head.Number
		v.mu.Unlock()
		if err := v.rec.PutRace(txn, &cur); err != nil {
			return err
		}
		s.Current = 0
		return v.rec.PutState(txn, s)
	})
	if err != nil {
		storeError(log, err, "race: store void race")
		return
	}
	v.m.races.WithLabelValues(string(race.Void)).Inc()
	v.m.void.WithLabelValues("race").Inc()
	log.Warn().Msg("race void: no llm judge model answered for any of its trajectories (judge.on_unavailable: void); the standing is unchanged")
	v.emit(Event{Kind: EventRaceDone, Block: rc.StartedBlock, RaceID: rc.ID,
		Text: fmt.Sprintf("race %d void: the judge was unavailable (judge.on_unavailable: void); standing unchanged", rc.ID)})
	v.updatePoolMetrics(context.Background())
}

// relayFault reports whether the relay's provider failed in any of eps.
func relayFault(eps []*records.Episode) bool {
	for _, e := range eps {
		if e.Trajectory.RelayFault {
			return true
		}
	}
	return false
}

// refs points at each verdict.
func refs(vds []records.Verdict) []*records.Verdict {
	out := make([]*records.Verdict, len(vds))
	for i := range vds {
		out[i] = &vds[i]
	}
	return out
}

// history is the evidence of the decided races before race id that
// started within the race rule's evidence epochs at block.
func (v *Validator) history(txn *badger.Txn, id, block uint64) ([]race.Heat, error) {
	from := v.opts.Race.EvidenceFrom(block)
	if id <= 1 {
		return nil, nil
	}
	races, err := v.rec.RacesBack(txn, id-1, from)
	if err != nil {
		return nil, fmt.Errorf("race evidence: %w", err)
	}
	st, err := v.rec.GetState(txn)
	if err != nil {
		return nil, fmt.Errorf("race evidence: %w", err)
	}
	var heats []race.Heat
	for _, rc := range races {
		if rc.ID < st.FirstRace {
			continue // ran on a chain that was reset
		}
		if rc.Phase == records.PhaseDone && rc.Heat != nil {
			heats = append(heats, *rc.Heat)
		}
	}
	return heats, nil
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// updatePoolMetrics refreshes the suite pool gauges.
func (v *Validator) updatePoolMetrics(ctx context.Context) {
	stats, err := v.opts.Ledger.Stats(ctx)
	if err != nil {
		return
	}
	for p, ps := range stats.Partitions {
		v.m.pool.WithLabelValues(string(p)).Set(float64(ps.Clusters))
	}
}

// raceStory is a race's outcome in one line, with the evidence that
// decided it: with accumulated evidence a challenger that scored more in
// this race may still not take the crown, which looks arbitrary unless the
// evidence and what it needed are shown.
func raceStory(id uint64, out race.Output, prevLeader int, p race.Params) string {
	score := func(uid int) string {
		for _, r := range out.Results {
			if int(r.UID) == uid {
				return fmt.Sprintf("%.3f", r.Score)
			}
		}
		return "did not race"
	}
	single := 1 / (1 - p.Confidence)
	evidence := func(c race.Comparison) string {
		need := c.Threshold
		if need == 0 {
			need = single
		}
		return fmt.Sprintf("%+.3f a problem over %d shared problems, evidence %.3g of the %.3g needed", c.MeanDiff(), c.Pairs.N, c.Evidence, need)
	}
	group := func() string {
		if len(out.Group) < 2 {
			return ""
		}
		uids := make([]string, len(out.Group))
		for i, u := range out.Group {
			uids[i] = fmt.Sprint(u)
		}
		return fmt.Sprintf("; uids %s could not be told apart and lead as one, the earliest registered first", strings.Join(uids, ", "))
	}
	// strongest is the comparison with the most evidence, or nil.
	strongest := func() *race.Comparison {
		var best *race.Comparison
		for i := range out.Decision {
			if best == nil || out.Decision[i].Evidence > best.Evidence {
				best = &out.Decision[i]
			}
		}
		return best
	}
	text := fmt.Sprintf("race %d: %s", id, out.Outcome)
	switch out.Outcome {
	case race.Undecided:
		text += "; no racer is shown to be the best yet"
		// The comparison to name is the one still short of its threshold
		// that came closest: a comparison already shown is not what the
		// decision waits for.
		var closest *race.Comparison
		for i, c := range out.Decision {
			if !c.Confident && (closest == nil || c.Evidence > closest.Evidence) {
				closest = &out.Decision[i]
			}
		}
		if closest == nil {
			closest = strongest()
		}
		if c := closest; c != nil {
			test := "beating"
			if c.Shift < 0 {
				test = fmt.Sprintf("being no worse than (by more than %.3f)", -c.Shift)
			}
			text += fmt.Sprintf(" (closest: uid %d %s uid %d, %s)", c.UID, test, c.Against, evidence(*c))
		}
		return text
	case race.NoRacers, race.NoRace:
		return text
	}
	if out.Leader == nil {
		return text
	}
	leader := int(out.Leader.UID)
	text += fmt.Sprintf(", leader uid %d (%s this race)", leader, score(leader))
	switch out.Outcome {
	case race.Crowned:
		for _, c := range out.Decision {
			if int(c.UID) == leader {
				text += fmt.Sprintf("; shown the best, weakest against uid %d: %s", c.Against, evidence(c))
			}
		}
	case race.Defended:
		if c := strongest(); c != nil {
			text += fmt.Sprintf("; best challenger uid %d (%s): %s to show more than the %.3f margin", c.UID, score(int(c.UID)), evidence(*c), p.Margin)
		}
	case race.Dethroned:
		text += fmt.Sprintf(", over uid %d (%s): the challengers' merged evidence of beating it by more than the %.3f margin reached %.3g of the %.3g needed",
			prevLeader, score(prevLeader), p.Margin, out.MergedEvidence, single)
		for _, c := range out.Decision {
			if int(c.UID) == leader {
				text += fmt.Sprintf(" (uid %d: %s)", leader, evidence(c))
			}
		}
		text += group()
	case race.HandedOver:
		text += fmt.Sprintf(", handed over from uid %d: registered earlier, not shown worse, and shown to beat the racer uid %d's group beat", prevLeader, prevLeader)
		text += group()
	}
	return text
}
