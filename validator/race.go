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
		v.startRaceWork(ctx, func(ctx context.Context) error { return v.finishRace(ctx, st.Current) })
		return
	}
	w := nextRaceWindow(block, v.opts.RaceEveryBlocks, st)
	if !w.OpenNow {
		return
	}
	window := w.Window
	// Let qualifying runs that are in flight finish so their miners can
	// race in this window.
	if inFlight > 0 && block < window+v.opts.RaceEveryBlocks/2 {
		return
	}
	if v.storeBlocksNewWork() {
		return
	}
	v.startRaceWork(ctx, func(ctx context.Context) error { return v.runRace(ctx, window, block) })
}

// A race phase's failure. The phase is the label of
// arena_validator_race_errors_total and leads the logged error.
const (
	phasePlan  = "plan"
	phaseStart = "start"
	phaseRun   = "run"
	phaseJudge = "judge"
	phaseApply = "apply"
)

// raceErrorPhases lists the phases, for the counter's series.
var raceErrorPhases = []string{phasePlan, phaseStart, phaseRun, phaseJudge, phaseApply}

type phaseError struct {
	phase string
	err   error
}

func (e *phaseError) Error() string { return e.phase + ": " + e.err.Error() }
func (e *phaseError) Unwrap() error { return e.err }

// inPhase wraps err, if any, as a failure of phase.
func inPhase(phase string, err error) error {
	if err == nil {
		return nil
	}
	return &phaseError{phase, err}
}

// startRaceWork runs one race step in the background, one at a time, and
// is the one place its failure is logged and counted: a step that fails
// leaves the store as it was before the failing transaction, and the next
// head schedules it again (or, past the start, resume aborts it).
func (v *Validator) startRaceWork(ctx context.Context, fn func(context.Context) error) {
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
		err := fn(ctx)
		if err == nil || ctx.Err() != nil {
			return // a step cut short by shutdown is re-run after restart
		}
		var pe *phaseError
		phase := phaseRun
		if errors.As(err, &pe) {
			phase = pe.phase
		}
		v.m.raceErrors.WithLabelValues(phase).Inc()
		storeError(v.log.With().Str("phase", phase).Logger(), err, "race step failed")
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

// racePlan is who races in a window and why, read from the store and the
// race rule before anything is drawn.
type racePlan struct {
	window, block uint64
	state         race.State
	quals         []race.Qualifying
	out           race.Output
	racers        []records.Racer
}

// runRace draws fresh hidden problems, records them and their exposure in
// one transaction, runs every racer on them at the same time, then judges.
func (v *Validator) runRace(ctx context.Context, window, block uint64) error {
	plan, err := v.planRace(window, block)
	if err != nil {
		return fmt.Errorf("race window %d: %w", window, inPhase(phasePlan, err))
	}
	if len(plan.racers) == 0 {
		if err := v.closeWindow(plan); err != nil {
			return fmt.Errorf("race window %d: %w", window, inPhase(phasePlan, err))
		}
		return nil
	}
	rc, problems, stock, err := v.startRace(ctx, plan)
	if err != nil {
		return fmt.Errorf("race window %d: %w", window, inPhase(phaseStart, err))
	}
	if rc == nil {
		return nil // shutdown came first
	}
	if err := v.runRacers(ctx, rc, problems, stock); err != nil {
		return fmt.Errorf("race %d: %w", rc.ID, inPhase(phaseRun, err))
	}
	return v.finishRace(ctx, rc.ID)
}

// planRace reads the race state and the qualifying snapshot and applies
// the race rule at block.
func (v *Validator) planRace(window, block uint64) (racePlan, error) {
	var (
		st     records.RaceState
		miners map[uint16]records.Miner
		plan   = racePlan{window: window, block: block}
	)
	err := v.opts.Store.View(func(txn *badger.Txn) (err error) {
		if st, err = v.rec.GetState(txn); err != nil {
			return err
		}
		plan.quals, miners, err = v.qualifyingSnapshot(txn)
		return err
	})
	if err != nil {
		return plan, fmt.Errorf("read state: %w", err)
	}
	plan.state = st.State
	if plan.out, _, err = v.opts.Race.Step(st.State, race.Input{Block: block, Qualifying: plan.quals}); err != nil {
		return plan, fmt.Errorf("qualifiers: %w", err)
	}
	plan.racers = planRacers(st.State.Leader, plan.out, miners)
	return plan, nil
}

// planRacers lists who races: nobody without a qualified challenger (with
// only the leader there is nothing to decide, and every race spends fresh
// hidden clusters); otherwise the incumbent, the qualifiers, then the
// racer the leader's group beat.
func planRacers(leader *race.Leader, out race.Output, miners map[uint16]records.Miner) []records.Racer {
	if len(out.Qualifiers) == 0 {
		return nil
	}
	var racers []records.Racer
	// The incumbent races by right, even when it does not serve: it then
	// scores 0 on every problem, which is how an absent leader loses.
	if leader != nil {
		if m, ok := miners[leader.UID]; ok && m.Hotkey == leader.Hotkey {
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
	return racers
}

// skipReason says why a window has no race.
func skipReason(leader *race.Leader) string {
	if leader != nil {
		return fmt.Sprintf("no challenger for leader uid %d", leader.UID)
	}
	return "nobody qualified"
}

// closeWindow records a window without a race, so it is not planned again.
func (v *Validator) closeWindow(plan racePlan) error {
	why := skipReason(plan.state.Leader)
	v.log.Info().Uint64("window", plan.window).Float64("bar", plan.out.Bar).Int("qualifying", len(plan.quals)).Str("why", why).Msg("race window without a race")
	v.emit(Event{Kind: EventRaceSkipped, Block: plan.block, Text: fmt.Sprintf("race window %d: %s at the bar %.3f; no race", plan.window, why, plan.out.Bar)})
	err := v.opts.Store.Update(func(txn *badger.Txn) error {
		s, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		s.LastWindow = plan.window
		return v.rec.PutState(txn, s)
	})
	if err != nil {
		return fmt.Errorf("store window: %w", err)
	}
	return nil
}

// startRace restocks the shop for the window, draws the hidden problems
// and records the race with their exposure. A nil race and nil error mean
// shutdown came first; the window races after restart.
func (v *Validator) startRace(ctx context.Context, plan racePlan) (*records.Race, []suite.Problem, *Stock, error) {
	// The race runs on the stock of its window, whichever block it starts
	// at, so every validator racing this window serves the same shop; its
	// new hidden problems are made from that stock too.
	stock, err := v.opts.Shop.At(ctx, plan.window)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("restock the shop: %w", err)
	}
	v.opts.Shop.Release(plan.window)
	if v.opts.Refill != nil {
		rep, err := v.opts.Ledger.Refill(ctx, max(v.opts.HiddenMinClusters, v.opts.RaceProblems), v.opts.Refill(stock))
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, nil, nil, nil
		case err != nil:
			// A short pool still races on what it has; the draw says when
			// it has too little.
			v.log.Error().Err(err).Msg("race: refill the hidden pool")
		case rep.Generated > 0:
			v.log.Info().Int("generated", rep.Generated).Int("hidden_available", rep.HiddenAvailable).Msg("hidden pool refilled")
		}
	}
	seed := randomSeed()
	if v.opts.DrawSeed != nil {
		seed = v.opts.DrawSeed(plan.window)
	}
	pool, poolErr := v.opts.Ledger.HiddenAvailable()
	problems, err := v.opts.Ledger.Draw(suite.Hidden, v.opts.RaceProblems, seed)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("draw hidden problems: %w", err)
	}
	left := -1
	if poolErr == nil {
		left = max(pool-len(problems), 0)
	}
	rc := newRace(plan, problems, left, time.Now().UTC())
	if err := v.recordRaceStart(&rc); err != nil {
		return nil, nil, nil, fmt.Errorf("record start: %w", err)
	}
	v.m.setPhase("running")
	v.m.hiddenUsed.Add(float64(len(rc.Clusters)))
	v.checkCapacity(ctx)
	v.log.Info().Uint64("race", rc.ID).Uint64("window", plan.window).Int("racers", len(rc.Racers)).Int("problems", len(problems)).Float64("bar", plan.out.Bar).Msg("race started")
	v.emit(Event{Kind: EventRaceStart, Block: plan.block, RaceID: rc.ID, Text: fmt.Sprintf("race %d: %d racers on %d fresh hidden problems (bar %.3f)", rc.ID, len(rc.Racers), len(problems), plan.out.Bar)})
	return &rc, problems, stock, nil
}

// newRace is the race record of plan on problems, before it has an id;
// hiddenLeft < 0 means the pool's size could not be read.
func newRace(plan racePlan, problems []suite.Problem, hiddenLeft int, at time.Time) records.Race {
	rc := records.Race{Window: plan.window, Phase: records.PhaseRunning, StartedBlock: plan.block, StartedAt: at,
		Racers: plan.racers, Qualifying: plan.quals}
	if hiddenLeft >= 0 {
		rc.HiddenLeft = &hiddenLeft
	}
	for _, p := range problems {
		rc.Problems = append(rc.Problems, p.ID)
		rc.Clusters = append(rc.Clusters, p.Cluster)
	}
	return rc
}

// recordRaceStart gives rc its id and stores it with its clusters'
// exposure in one transaction, before anything is sent: a crash after
// this point can only abort the race, never reuse its problems.
func (v *Validator) recordRaceStart(rc *records.Race) error {
	hotkeys := make([]string, len(rc.Racers))
	for i, r := range rc.Racers {
		hotkeys[i] = r.Hotkey
	}
	return v.opts.Store.Update(func(txn *badger.Txn) error {
		s, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		if s.Current != 0 {
			return fmt.Errorf("race %d is still in progress", s.Current)
		}
		rc.ID = max(s.NextRaceID, 1)
		s.NextRaceID = rc.ID + 1
		s.Current, s.LastWindow = rc.ID, rc.Window
		if err := v.rec.PutRace(txn, rc); err != nil {
			return err
		}
		if err := v.opts.Ledger.MarkExposedTxn(txn, rc.Clusters, hotkeys, rc.StartedBlock); err != nil {
			return err
		}
		return v.rec.PutState(txn, s)
	})
}

// runRacers plays every serving racer on the problems at the same time,
// stores each racer's episodes as it finishes, then moves the race to
// judging. A racer whose episodes cannot be stored scores 0, as a missing
// episode does; the race goes on.
func (v *Validator) runRacers(ctx context.Context, rc *records.Race, problems []suite.Problem, stock *Stock) error {
	log := v.log.With().Uint64("race", rc.ID).Logger()
	meta, _, _ := v.snapshot()
	var wg sync.WaitGroup
	for _, r := range rc.Racers {
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
			eps := v.episodes(trs, problems, records.Racing, rc.ID, r.Hotkey, rc.StartedBlock)
			if err := v.storeEpisodes(eps); err != nil {
				storeError(log.With().Uint16("uid", r.UID).Logger(), err, "race: store episodes")
				return
			}
			v.emit(Event{Kind: EventRacerDone, Block: rc.StartedBlock, RaceID: rc.ID, UID: r.UID, Text: fmt.Sprintf("race %d: uid %d finished %d episodes", rc.ID, r.UID, len(eps))})
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		log.Warn().Msg("race interrupted by shutdown; it is aborted and re-run after restart")
		return ctx.Err()
	}
	err := v.opts.Store.Update(func(txn *badger.Txn) error {
		cur, ok, err := v.rec.GetRace(txn, rc.ID)
		if err != nil || !ok {
			return errors.Join(err, fmt.Errorf("race %d vanished", rc.ID))
		}
		cur.Phase = records.PhaseJudging
		return v.rec.PutRace(txn, &cur)
	})
	if err != nil {
		return fmt.Errorf("enter judging: %w", err)
	}
	return nil
}

// judgedRace is a race in judging with its stored episodes and their
// verdicts, in the same order.
type judgedRace struct {
	rc  records.Race
	ids []string
	eps []records.Episode
	vds []records.Verdict
}

// finishRace judges a race's stored episodes (those without a verdict),
// then applies the results to the race state in one transaction.
func (v *Validator) finishRace(ctx context.Context, id uint64) error {
	v.m.setPhase("judging")
	jr, err := v.judgeStored(ctx, id)
	if err != nil {
		return fmt.Errorf("race %d: %w", id, inPhase(phaseJudge, err))
	}
	if jr == nil {
		return nil // not in judging: nothing to do
	}
	if v.voids(refs(jr.vds)) {
		return fmt.Errorf("race %d: %w", id, inPhase(phaseApply, v.voidRace(jr.rc)))
	}
	voided := v.voidRacers(jr)
	capped := v.capTemplates(jr)
	heat, results, finals := buildHeat(jr, voided)
	v.emit(Event{Kind: EventRaceJudged, Block: jr.rc.StartedBlock, RaceID: id, Text: fmt.Sprintf("race %d judged: %d trajectories", id, len(jr.ids))})
	if err := v.applyRace(ctx, jr.rc, raceResult{heat, results, finals, capped, slices.Sorted(maps.Keys(voided))}); err != nil {
		return fmt.Errorf("race %d: %w", id, inPhase(phaseApply, err))
	}
	return nil
}

// judgeStored reads a race in judging and gives each of its episodes a
// verdict, judging and storing the ones without. It returns nil when the
// race is not in judging.
func (v *Validator) judgeStored(ctx context.Context, id uint64) (*judgedRace, error) {
	jr := &judgedRace{}
	err := v.opts.Store.View(func(txn *badger.Txn) error {
		var ok bool
		var err error
		if jr.rc, ok, err = v.rec.GetRace(txn, id); err != nil || !ok {
			return errors.Join(err, fmt.Errorf("race %d is not stored", id))
		}
		jr.ids, err = v.rec.RaceEpisodes(txn, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if jr.rc.Phase != records.PhaseJudging {
		return nil, nil
	}
	jr.eps, jr.vds = make([]records.Episode, len(jr.ids)), make([]records.Verdict, len(jr.ids))
	for i, eid := range jr.ids {
		var judged bool
		if err := v.opts.Store.View(func(txn *badger.Txn) (err error) {
			if jr.eps[i], _, err = v.rec.GetEpisode(txn, eid); err != nil {
				return err
			}
			jr.vds[i], judged, err = v.rec.GetVerdict(txn, eid)
			return err
		}); err != nil {
			return nil, fmt.Errorf("read episode %s: %w", eid, err)
		}
		if judged {
			continue
		}
		if jr.vds[i], err = v.evaluate(ctx, &jr.eps[i], jr.rc.StartedBlock); err != nil {
			return nil, fmt.Errorf("episode %s: %w", eid, err)
		}
		if err := v.opts.Store.Update(func(txn *badger.Txn) error { return v.rec.PutVerdict(txn, &jr.vds[i]) }); err != nil {
			return nil, fmt.Errorf("store verdict of episode %s: %w", eid, err)
		}
	}
	return jr, nil
}

// byRacer groups a race's episodes by racer uid, as indexes into jr.eps.
func byRacer(eps []records.Episode) map[uint16][]int {
	out := map[uint16][]int{}
	for i := range eps {
		uid := eps[i].Trajectory.MinerUID
		out[uid] = append(out[uid], i)
	}
	return out
}

// relayVoided lists the racers for whom the relay's provider failed
// during any of their episodes.
func relayVoided(eps []records.Episode) map[uint16]bool {
	voided := map[uint16]bool{}
	for i := range eps {
		if eps[i].Trajectory.RelayFault {
			voided[eps[i].Trajectory.MinerUID] = true
		}
	}
	return voided
}

// voidRacers finds the racers void in this race: for whom the relay's
// provider failed (never the miner's fault). Their rows leave the heat, so
// the race is no evidence for or against them, as judge.on_unavailable:
// void does for a whole race.
func (v *Validator) voidRacers(jr *judgedRace) map[uint16]bool {
	voided := relayVoided(jr.eps)
	for _, uid := range slices.Sorted(maps.Keys(voided)) {
		v.m.void.WithLabelValues("racer").Inc()
		v.log.Warn().Uint64("race", jr.rc.ID).Uint16("uid", uid).Msg("race void for this racer: the relay's provider failed during its episodes (not the miner's fault)")
		v.emit(Event{Kind: EventRaceJudged, Block: jr.rc.StartedBlock, RaceID: jr.rc.ID, UID: uid,
			Text: fmt.Sprintf("race %d void for uid %d: the relay's provider failed", jr.rc.ID, uid)})
	}
	return voided
}

// capTemplates applies the judge's policy over each racer's trajectories
// in the race and returns the verdicts it capped.
func (v *Validator) capTemplates(jr *judgedRace) []records.Verdict {
	groups := byRacer(jr.eps)
	var capped []records.Verdict
	for _, uid := range slices.Sorted(maps.Keys(groups)) {
		var re []*records.Episode
		var rv []*records.Verdict
		for _, i := range groups[uid] {
			re, rv = append(re, &jr.eps[i]), append(rv, &jr.vds[i])
		}
		if f, ok := v.judgeRun("race", re, rv); ok {
			v.log.Warn().Uint64("race", jr.rc.ID).Uint16("uid", uid).Str("skeleton", f.Skeleton).Float64("share", f.Share).Msg("race: the racer's thinks follow one template; reasoning score capped")
			for _, vd := range rv {
				capped = append(capped, *vd)
			}
		}
	}
	return capped
}

// buildHeat is the race's heat: every racer not voided, with its score on
// every problem in problem order (a missing episode counts as zero), its
// mean per racer in uid order, and each episode's final score by id.
func buildHeat(jr *judgedRace, voided map[uint16]bool) (race.Heat, []race.RaceResult, map[string]float64) {
	rc := jr.rc
	type racerProblem struct {
		uid     uint16
		problem string
	}
	finals := map[string]float64{}
	byPair := map[racerProblem]float64{}
	for i := range jr.eps {
		finals[jr.ids[i]] = jr.vds[i].Final
		byPair[racerProblem{jr.eps[i].Trajectory.MinerUID, jr.eps[i].Trajectory.ProblemID}] = jr.vds[i].Final
	}
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
	return heat, results, finals
}

// raceResult is what judging a race gives applyRace.
type raceResult struct {
	heat    race.Heat
	results []race.RaceResult
	finals  map[string]float64
	capped  []records.Verdict
	voided  []uint16
}

// applyRace steps the race rule with the race's heat and stores the
// outcome, the capped verdicts and the new state in one transaction.
func (v *Validator) applyRace(ctx context.Context, rc records.Race, res raceResult) error {
	var out race.Output
	prevLeader := -1
	err := v.opts.Store.Update(func(txn *badger.Txn) error {
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
		history, err := v.history(txn, rc.ID, block)
		if err != nil {
			return err
		}
		if v.raceCache == nil {
			v.raceCache = race.NewCache()
		}
		o, next, err := v.opts.Race.Step(s.State, race.Input{Block: block, Qualifying: rc.Qualifying, Race: &res.heat, History: history, Cache: v.raceCache})
		if err != nil {
			return err
		}
		out = o
		if err := v.putVerdicts(txn, res.capped); err != nil {
			return err
		}
		cur, _, err := v.rec.GetRace(txn, rc.ID)
		if err != nil {
			return err
		}
		cur.Phase, cur.Results, cur.Output, cur.Episodes, cur.Heat = records.PhaseDone, res.results, &o, res.finals, &res.heat
		cur.VoidRacers = res.voided
		cur.FinishedBlock = v.headNumber()
		if err := v.rec.PutRace(txn, &cur); err != nil {
			return err
		}
		s.State, s.Current = next, 0
		if len(o.Ranked) > 0 {
			s.Ranked, s.RankedRace = o.Ranked, rc.ID
		}
		return v.rec.PutState(txn, s)
	})
	if err != nil {
		return err
	}
	v.m.races.WithLabelValues(string(out.Outcome)).Inc()
	ev := v.log.Info().Uint64("race", rc.ID).Str("outcome", string(out.Outcome)).Interface("results", res.results).Int("window_races", out.WindowRaces)
	if out.Leader != nil {
		ev = ev.Uint16("leader", out.Leader.UID)
	}
	ev.Msg("race done")
	v.emit(Event{Kind: EventRaceDone, Block: rc.StartedBlock, RaceID: rc.ID, Text: raceStory(rc.ID, out, prevLeader, v.opts.Race)})
	v.updatePoolMetrics(ctx)
	return nil
}

// headNumber is the last head seen.
func (v *Validator) headNumber() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.head.Number
}

// voidRace ends a race whose every verdict was given while no llm judge
// model answered, under judge.on_unavailable: void. It is stored as done
// with the void outcome and no heat, so it is not evidence; the standing
// is unchanged and the next window races afresh.
func (v *Validator) voidRace(rc records.Race) error {
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
		cur.FinishedBlock = v.headNumber()
		if err := v.rec.PutRace(txn, &cur); err != nil {
			return err
		}
		s.Current = 0
		return v.rec.PutState(txn, s)
	})
	if err != nil {
		return fmt.Errorf("store void race: %w", err)
	}
	v.m.races.WithLabelValues(string(race.Void)).Inc()
	v.m.void.WithLabelValues("race").Inc()
	v.log.Warn().Uint64("race", rc.ID).Msg("race void: no llm judge model answered for any of its trajectories (judge.on_unavailable: void); the standing is unchanged")
	v.emit(Event{Kind: EventRaceDone, Block: rc.StartedBlock, RaceID: rc.ID,
		Text: fmt.Sprintf("race %d void: the judge was unavailable (judge.on_unavailable: void); standing unchanged", rc.ID)})
	v.updatePoolMetrics(context.Background())
	return nil
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
	text := fmt.Sprintf("race %d: %s", id, out.Outcome)
	switch out.Outcome {
	case race.Undecided:
		return text + undecidedStory(out, p)
	case race.NoRacers, race.NoRace:
		return text
	}
	if out.Leader == nil {
		return text
	}
	return text + leaderStory(out, prevLeader, p)
}

// storyScore is uid's score in the race as the story prints it.
func storyScore(out race.Output, uid int) string {
	for _, r := range out.Results {
		if int(r.UID) == uid {
			return fmt.Sprintf("%.3f", r.Score)
		}
	}
	return "did not race"
}

// singleThreshold is the evidence one comparison needs at p's confidence.
func singleThreshold(p race.Params) float64 { return 1 / (1 - p.Confidence) }

func storyEvidence(c race.Comparison, p race.Params) string {
	need := c.Threshold
	if need == 0 {
		need = singleThreshold(p)
	}
	return fmt.Sprintf("%+.3f a problem over %d shared problems, evidence %.3g of the %.3g needed", c.MeanDiff(), c.Pairs.N, c.Evidence, need)
}

func storyGroup(out race.Output) string {
	if len(out.Group) < 2 {
		return ""
	}
	uids := make([]string, len(out.Group))
	for i, u := range out.Group {
		uids[i] = fmt.Sprint(u)
	}
	return fmt.Sprintf("; uids %s could not be told apart and lead as one, the earliest registered first", strings.Join(uids, ", "))
}

// strongest is the comparison with the most evidence among those keep
// accepts, or nil.
func strongest(out race.Output, keep func(race.Comparison) bool) *race.Comparison {
	var best *race.Comparison
	for i, c := range out.Decision {
		if keep(c) && (best == nil || c.Evidence > best.Evidence) {
			best = &out.Decision[i]
		}
	}
	return best
}

func anyComparison(race.Comparison) bool { return true }

func undecidedStory(out race.Output, p race.Params) string {
	text := "; no racer is shown to be the best yet"
	// The comparison to name is the one still short of its threshold that
	// came closest: a comparison already shown is not what the decision
	// waits for.
	c := strongest(out, func(c race.Comparison) bool { return !c.Confident })
	if c == nil {
		c = strongest(out, anyComparison)
	}
	if c == nil {
		return text
	}
	test := "beating"
	if c.Shift < 0 {
		test = fmt.Sprintf("being no worse than (by more than %.3f)", -c.Shift)
	}
	return text + fmt.Sprintf(" (closest: uid %d %s uid %d, %s)", c.UID, test, c.Against, storyEvidence(*c, p))
}

func leaderStory(out race.Output, prevLeader int, p race.Params) string {
	leader := int(out.Leader.UID)
	text := fmt.Sprintf(", leader uid %d (%s this race)", leader, storyScore(out, leader))
	switch out.Outcome {
	case race.Crowned:
		for _, c := range out.Decision {
			if int(c.UID) == leader {
				text += fmt.Sprintf("; shown the best, weakest against uid %d: %s", c.Against, storyEvidence(c, p))
			}
		}
	case race.Defended:
		if c := strongest(out, anyComparison); c != nil {
			text += fmt.Sprintf("; best challenger uid %d (%s): %s to show more than the %.3f margin", c.UID, storyScore(out, int(c.UID)), storyEvidence(*c, p), p.Margin)
		}
	case race.Dethroned:
		text += fmt.Sprintf(", over uid %d (%s): the challengers' merged evidence of beating it by more than the %.3f margin reached %.3g of the %.3g needed",
			prevLeader, storyScore(out, prevLeader), p.Margin, out.MergedEvidence, singleThreshold(p))
		for _, c := range out.Decision {
			if int(c.UID) == leader {
				text += fmt.Sprintf(" (uid %d: %s)", leader, storyEvidence(c, p))
			}
		}
		text += storyGroup(out)
	case race.HandedOver:
		text += fmt.Sprintf(", handed over from uid %d: registered earlier, not shown worse, and shown to beat the racer uid %d's group beat", prevLeader, prevLeader)
		text += storyGroup(out)
	}
	return text
}
