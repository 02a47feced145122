package simulate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"arena/chain/devnet"
	"arena/scoring/race"
	"arena/scoring/weights"
)

// Type is a problem type and its share of the hidden problems.
type Type struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

// Miner is one simulated miner.
type Miner struct {
	UID uint16 `json:"uid"`
	// Success is the true chance of solving a problem, per Scenario.Types
	// entry.
	Success []float64 `json:"success"`
	// Quality is, with judged scores, the chance of each rung of the
	// judge's ladder (QualityLadder) on a solved problem; nil takes
	// DefaultQuality.
	Quality []float64 `json:"quality,omitempty"`
	// ArrivesDay is when the miner registers and runs its qualifying set.
	ArrivesDay float64 `json:"arrives_day"`
	// RegisteredAt orders the miners' registrations on chain (subtensor's
	// BlockAtRegistration): racers the rule cannot tell apart are ordered
	// by it, then by uid.
	RegisteredAt uint64 `json:"registered_at"`
	// StopsDay, when positive, is the day from which the miner no longer
	// serves: every problem it races scores 0.
	StopsDay float64 `json:"stops_day,omitempty"`
	// Incumbent miners lead on every validator at the start (at most one).
	Incumbent bool `json:"incumbent,omitempty"`
}

// QualityLadder is the judge's q for each rung (docs/scoring.md, "Reasoning
// judge"): a think that does not refer to results, one that refers but
// cites no datum, one that cites but does not compare, one that compares.
var QualityLadder = []float64{0.3, 0.5, 0.7, 0.9}

// DefaultQuality is the rung mix of a careful agent: the reference
// heuristic at full skill averages q 0.81 (docs/scoring.md), this mix 0.78.
var DefaultQuality = []float64{0.05, 0.10, 0.25, 0.60}

// coefficient is ORO's reasoning coefficient c(q) (scoring.Final).
func coefficient(q float64) float64 {
	if q >= 0.8 {
		return 1
	}
	return 0.3 + 0.7*q/0.8
}

func (m Miner) quality() []float64 {
	if m.Quality == nil {
		return DefaultQuality
	}
	return m.Quality
}

// meanCoefficient is the miner's expected c(q) on a solved problem.
func (m Miner) meanCoefficient() float64 {
	var c float64
	for i, p := range m.quality() {
		c += p * coefficient(QualityLadder[i])
	}
	return c
}

// mean is the miner's expected score per problem over the type mix: its
// success, times its expected c(q) when scores are judged.
func (m Miner) mean(sc Scenario) float64 {
	var s, w float64
	for i, t := range sc.Types {
		s += t.Share * m.Success[i]
		w += t.Share
	}
	if sc.Scores == ScoresJudged {
		return s / w * m.meanCoefficient()
	}
	return s / w
}

// Score models.
const (
	// ScoresBinary scores a problem 1 when solved, else 0.
	ScoresBinary = "binary"
	// ScoresJudged scores it success × c(q), q drawn from the miner's
	// Quality: the daemon's final score.
	ScoresJudged = "judged"
)

// Scenario is one simulated subnet.
type Scenario struct {
	Validators int     `json:"validators"`
	Miners     []Miner `json:"miners"`
	Types      []Type  `json:"types"`
	// Scores is ScoresJudged (the daemon's final scores) or ScoresBinary.
	Scores string `json:"scores"`
	// VoidShare is the chance that a race is void (its trajectories could
	// not be judged): no heat, the standing unchanged.
	VoidShare float64 `json:"void_share,omitempty"`
	// RaceBlocks is how long a race takes; when it is longer than
	// RaceEveryBlocks the next race starts when it ends, as the daemon
	// does (0: a race ends within its window).
	RaceBlocks uint64 `json:"race_blocks,omitempty"`
	// Correlation is the per-problem difficulty correlation: with this
	// probability a problem is decisive, and its shared difficulty decides
	// every miner's outcome on it (a miner of success p solves it when the
	// difficulty is below p); otherwise each miner draws its own luck. Two
	// miners with equal success are then correlated by exactly this much,
	// and a miner's success rate stays p.
	Correlation float64 `json:"correlation"`
	Days        float64 `json:"days"`
	// RaceEveryBlocks and BlockSeconds set the race cadence (finney: a
	// race per 360-block tempo of 12 s blocks, 20 a day).
	RaceEveryBlocks    uint64         `json:"race_every_blocks"`
	BlockSeconds       float64        `json:"block_seconds"`
	RaceProblems       int            `json:"race_problems"`
	QualifyingProblems int            `json:"qualifying_problems"`
	Race               race.Params    `json:"race"`
	Policy             weights.Policy `json:"policy"`
	// Checkpoints are the days at which leaders, agreement and incentive
	// are read; the last day is always one.
	Checkpoints []float64 `json:"checkpoints"`
	Runs        int       `json:"runs"`
	Seed        uint64    `json:"seed"`
}

// Validate reports the first problem with the scenario.
func (sc Scenario) Validate() error {
	var errs []error
	if sc.Validators < 1 || sc.Validators > 256 {
		errs = append(errs, fmt.Errorf("validators %d must be in [1, 256]", sc.Validators))
	}
	if len(sc.Miners) < 1 || len(sc.Miners)+sc.Validators >= 4096 {
		errs = append(errs, fmt.Errorf("miners %d must be at least 1 and fit a subnet with the validators", len(sc.Miners)))
	}
	if len(sc.Types) == 0 {
		errs = append(errs, errors.New("at least one problem type is needed"))
	}
	if sc.Scores != ScoresBinary && sc.Scores != ScoresJudged {
		errs = append(errs, fmt.Errorf("scores %q must be %q or %q", sc.Scores, ScoresJudged, ScoresBinary))
	}
	if !(sc.VoidShare >= 0 && sc.VoidShare < 1) {
		errs = append(errs, fmt.Errorf("void share %v must be in [0, 1)", sc.VoidShare))
	}
	for _, t := range sc.Types {
		if !(t.Share > 0) || math.IsInf(t.Share, 0) {
			errs = append(errs, fmt.Errorf("type %q share %v must be positive", t.Name, t.Share))
		}
	}
	incumbents := 0
	uids := map[uint16]bool{0: true}
	for _, m := range sc.Miners {
		if uids[m.UID] {
			errs = append(errs, fmt.Errorf("miner uid %d is used twice (uid 0 is the burn uid)", m.UID))
		}
		uids[m.UID] = true
		if len(m.Success) != len(sc.Types) {
			errs = append(errs, fmt.Errorf("miner uid %d has %d success rates for %d types", m.UID, len(m.Success), len(sc.Types)))
		}
		for _, p := range m.Success {
			if math.IsNaN(p) || p < 0 || p > 1 {
				errs = append(errs, fmt.Errorf("miner uid %d success %v is not in [0, 1]", m.UID, p))
			}
		}
		if m.ArrivesDay < 0 || math.IsNaN(m.ArrivesDay) {
			errs = append(errs, fmt.Errorf("miner uid %d arrival day %v is negative", m.UID, m.ArrivesDay))
		}
		if m.StopsDay < 0 || math.IsNaN(m.StopsDay) {
			errs = append(errs, fmt.Errorf("miner uid %d stop day %v is negative", m.UID, m.StopsDay))
		}
		if m.Quality != nil {
			total := 0.0
			for _, p := range m.Quality {
				if math.IsNaN(p) || p < 0 {
					total = math.NaN()
				}
				total += p
			}
			if len(m.Quality) != len(QualityLadder) || math.Abs(total-1) > 1e-9 {
				errs = append(errs, fmt.Errorf("miner uid %d quality %v must be %d chances summing to 1", m.UID, m.Quality, len(QualityLadder)))
			}
		}
		if m.Incumbent {
			incumbents++
			if m.ArrivesDay != 0 {
				errs = append(errs, fmt.Errorf("incumbent uid %d must be there from day 0", m.UID))
			}
		}
	}
	if incumbents > 1 {
		errs = append(errs, fmt.Errorf("%d incumbents; at most one miner can lead at the start", incumbents))
	}
	if sc.Correlation < 0 || sc.Correlation > 1 || math.IsNaN(sc.Correlation) {
		errs = append(errs, fmt.Errorf("correlation %v is not in [0, 1]", sc.Correlation))
	}
	if !(sc.Days > 0) || sc.Days > 365 {
		errs = append(errs, fmt.Errorf("days %v must be in (0, 365]", sc.Days))
	}
	if sc.RaceEveryBlocks == 0 || !(sc.BlockSeconds > 0) {
		errs = append(errs, errors.New("race_every_blocks and block_seconds must be positive"))
	}
	if sc.RaceProblems < 1 || sc.QualifyingProblems < 1 {
		errs = append(errs, errors.New("race and qualifying problems must be at least 1"))
	}
	if sc.Runs < 1 {
		errs = append(errs, fmt.Errorf("runs %d must be at least 1", sc.Runs))
	}
	for _, d := range sc.Checkpoints {
		if !(d > 0) || d > sc.Days {
			errs = append(errs, fmt.Errorf("checkpoint day %v must be in (0, days %v]", d, sc.Days))
		}
	}
	if err := sc.Race.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := sc.Policy.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// blocksPerDay is how many blocks a day holds at the scenario's block time.
func (sc Scenario) blocksPerDay() float64 { return 86400 / sc.BlockSeconds }

// Best is the intended winner: the highest expected score over the type
// mix; among equals (copies of one agent) the earliest registered, then
// the lower uid.
func (sc Scenario) Best() uint16 {
	best := sc.Miners[0]
	for _, m := range sc.Miners[1:] {
		mb, bb := m.mean(sc), best.mean(sc)
		if mb > bb || mb == bb && (m.RegisteredAt < best.RegisteredAt || m.RegisteredAt == best.RegisteredAt && m.UID < best.UID) {
			best = m
		}
	}
	return best.UID
}

// Checkpoint is the state of every validator at the end of one day.
type Checkpoint struct {
	Day float64 `json:"day"`
	// Leaders maps "uid N" (or "none") to the share of validator×run pairs
	// whose leader it is.
	Leaders map[string]float64 `json:"leaders"`
	// CrownedShare is the share of validator×run pairs whose leader is the
	// best miner.
	CrownedShare float64 `json:"crowned_share"`
	// AllAgreeShare is the share of runs in which every validator names
	// the same leader; AllAgreeBestShare, the same leader and it is the
	// best miner.
	AllAgreeShare     float64 `json:"all_agree_share"`
	AllAgreeBestShare float64 `json:"all_agree_best_share"`
	// BestIncentive is the mean share of miner incentive Yuma consensus
	// (kappa 0.5, equal stake) gives the best miner from the validators'
	// weights; BestConsensus its mean consensus weight.
	BestIncentive float64 `json:"best_incentive"`
	BestConsensus float64 `json:"best_consensus"`
	// ValidatorVtrust is the mean validator trust.
	ValidatorVtrust float64 `json:"validator_vtrust"`
}

// Result summarises every run.
type Result struct {
	Runs       int    `json:"runs"`
	Validators int    `json:"validators"`
	Miners     int    `json:"miners"`
	Seed       uint64 `json:"seed"`
	Best       uint16 `json:"best_uid"`
	// CrownedShare, AllAgreeShare and AllAgreeBestShare are those of the
	// last checkpoint (the end of the last day).
	CrownedShare      float64 `json:"crowned_share"`
	AllAgreeShare     float64 `json:"all_agree_share"`
	AllAgreeBestShare float64 `json:"all_agree_best_share"`
	// BestIncentive is the mean Yuma incentive of the intended winner (the
	// earliest-registered copy when there are copies) and MeanVtrust the
	// mean validator trust, both at the last checkpoint.
	BestIncentive float64      `json:"best_incentive"`
	MeanVtrust    float64      `json:"mean_vtrust"`
	Checkpoints   []Checkpoint `json:"checkpoints"`
	// TimeToCrownHours describes, over validator×run pairs where the best
	// miner did not lead from the start, the hours from its arrival to its
	// first crown; NeverCrownedShare is the share in which that did not
	// happen before the end.
	TimeToCrownHours  Quantiles `json:"time_to_crown_hours"`
	NeverCrownedShare float64   `json:"never_crowned_share"`
	// FalseCrownsPerDay is the mean number of crowns per validator-day
	// that went to a miner other than the best one.
	FalseCrownsPerDay float64 `json:"false_crowns_per_validator_day"`
	// FalseCrownDayShare is the share of validator-days with at least one
	// such crown.
	FalseCrownDayShare float64 `json:"false_crown_day_share"`
	// HonestLeaderKeptShare is, when the best miner is the incumbent, the
	// share of validator×run pairs in which it never lost the crown; -1
	// when the best miner is not the incumbent.
	HonestLeaderKeptShare float64 `json:"honest_leader_kept_share"`
	// FlapsPerDay is the mean number of crown changes per validator-day.
	FlapsPerDay float64 `json:"flaps_per_validator_day"`
	// RacesPerDay, HiddenPerDay and EpisodesPerMinerDay are the cost: race
	// windows that raced, hidden problems (fresh clusters) consumed, and
	// episodes a racing miner runs, per validator-day.
	RacesPerDay         float64 `json:"races_per_validator_day"`
	HiddenPerDay        float64 `json:"hidden_problems_per_validator_day"`
	EpisodesPerMinerDay float64 `json:"episodes_per_racing_miner_day"`
}

// Quantiles are a distribution's median and 90th percentile (NaN when
// empty, encoded as null).
type Quantiles struct {
	N      int      `json:"n"`
	Median *float64 `json:"median"`
	P90    *float64 `json:"p90"`
}

func quantiles(xs []float64) Quantiles {
	q := Quantiles{N: len(xs)}
	if len(xs) == 0 {
		return q
	}
	slices.Sort(xs)
	at := func(p float64) *float64 {
		v := xs[min(len(xs)-1, int(math.Ceil(p*float64(len(xs))))-1)]
		return &v
	}
	q.Median, q.P90 = at(0.5), at(0.9)
	return q
}

// validatorRun is what one validator did in one run.
type validatorRun struct {
	leaders       []int // leader uid (−1 none) at each checkpoint
	ranked        [][]uint16
	crownHours    float64 // −1: the best miner was never crowned; −2: it led from the start
	falseCrowns   int
	falseDays     map[int]bool
	flaps         int
	lostHonest    bool
	races, hidden int
	racerDays     float64 // Σ racers per race, for episodes per miner
}

// Run runs the scenario. progress, if set, is called after each run with
// the runs done and the total. Runs are spread over the machine's cores;
// each run's randomness comes from (Seed, run) alone, so the result does
// not depend on the number of workers.
func Run(ctx context.Context, sc Scenario, progress func(done, total int)) (Result, error) {
	if err := sc.Validate(); err != nil {
		return Result{}, fmt.Errorf("scenario: %w", err)
	}
	if len(sc.Checkpoints) == 0 || sc.Checkpoints[len(sc.Checkpoints)-1] != sc.Days {
		sc.Checkpoints = append(slices.Clone(sc.Checkpoints), sc.Days)
	}
	slices.Sort(sc.Checkpoints)
	sc.Checkpoints = slices.Compact(sc.Checkpoints)

	runs := make([][]validatorRun, sc.Runs)
	var (
		next, done atomic.Int64
		wg         sync.WaitGroup
		errOnce    sync.Once
		firstErr   error
	)
	for range min(runtime.GOMAXPROCS(0), sc.Runs) {
		wg.Go(func() {
			for {
				r := int(next.Add(1) - 1)
				if r >= sc.Runs || ctx.Err() != nil {
					return
				}
				vr, err := runOnce(sc, r)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("run %d: %w", r, err) })
					return
				}
				runs[r] = vr
				if progress != nil {
					progress(int(done.Add(1)), sc.Runs)
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return Result{}, firstErr
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return summarise(sc, runs), nil
}

// runOnce simulates every validator of one run. Validators share the
// miners but draw their own problems.
func runOnce(sc Scenario, run int) ([]validatorRun, error) {
	out := make([]validatorRun, sc.Validators)
	for v := range sc.Validators {
		rng := rand.New(rand.NewPCG(sc.Seed, uint64(run)<<16|uint64(v)))
		vr, err := validatorOnce(sc, rng)
		if err != nil {
			return nil, fmt.Errorf("validator %d: %w", v, err)
		}
		out[v] = vr
	}
	return out, nil
}

// problem is one drawn problem: its type, its difficulty, and whether the
// difficulty decides every miner's outcome on it.
type problem struct {
	typ        int
	difficulty float64
	decisive   bool
}

func drawProblems(sc Scenario, rng *rand.Rand, n int) []problem {
	var total float64
	for _, t := range sc.Types {
		total += t.Share
	}
	ps := make([]problem, n)
	for i := range ps {
		x, typ := rng.Float64()*total, len(sc.Types)-1
		for j, t := range sc.Types {
			if x < t.Share {
				typ = j
				break
			}
			x -= t.Share
		}
		ps[i] = problem{typ: typ, difficulty: rng.Float64(), decisive: rng.Float64() < sc.Correlation}
	}
	return ps
}

// solve is a miner's score on one problem: on a decisive problem the
// shared difficulty decides whether it is solved, otherwise the miner's
// own draw; a solved problem scores 1, or c(q) with q drawn from the
// miner's quality when scores are judged. A miner that has stopped serving
// scores 0.
func solve(rng *rand.Rand, sc Scenario, m Miner, p problem, day float64) float64 {
	u := p.difficulty
	if !p.decisive {
		u = rng.Float64()
	}
	solved := u < m.Success[p.typ]
	if sc.Scores != ScoresJudged {
		if solved && (m.StopsDay == 0 || day < m.StopsDay) {
			return 1
		}
		return 0
	}
	// The judge's draw is taken whether or not the problem was solved, so
	// that a miner's luck on one problem does not shift its later draws.
	x, rung := rng.Float64(), len(QualityLadder)-1
	for i, q := range m.quality() {
		if x < q {
			rung = i
			break
		}
		x -= q
	}
	if !solved || m.StopsDay > 0 && day >= m.StopsDay {
		return 0
	}
	return coefficient(QualityLadder[rung])
}

func hotkey(uid uint16) string { return fmt.Sprintf("miner-%d", uid) }

func validatorOnce(sc Scenario, rng *rand.Rand) (validatorRun, error) {
	vr := validatorRun{crownHours: -1, falseDays: map[int]bool{}}
	best := sc.Best()
	perDay := sc.blocksPerDay()
	public := drawProblems(sc, rng, sc.QualifyingProblems)
	qualified := map[uint16]race.Qualifying{}
	qualify := func(m Miner, block uint64) {
		var sum float64
		for _, p := range public {
			sum += solve(rng, sc, m, p, float64(block)/perDay)
		}
		qualified[m.UID] = race.Qualifying{UID: m.UID, Hotkey: hotkey(m.UID), Score: sum / float64(len(public)), QualifiedAt: block,
			Problems: len(public), RegisteredAt: m.RegisteredAt}
	}
	var st race.State
	for _, m := range sc.Miners {
		if m.Incumbent {
			qualify(m, 0)
			q := qualified[m.UID]
			st.Leader = &race.Leader{UID: m.UID, Hotkey: q.Hotkey, Qualifying: q.Score, RegisteredAt: m.RegisteredAt}
			if m.UID == best {
				vr.crownHours = -2
			}
		}
	}
	arrival := map[uint16]uint64{}
	byUID := make(map[uint16]Miner, len(sc.Miners))
	for _, m := range sc.Miners {
		arrival[m.UID] = uint64(m.ArrivesDay * perDay)
		byUID[m.UID] = m
	}

	var (
		history []race.Heat
		ranked  []uint16
		nextCP  int
		cache   = race.NewCache()
	)
	lastBlock := uint64(sc.Days * perDay)
	leaderUID := func() int {
		if st.Leader == nil {
			return -1
		}
		return int(st.Leader.UID)
	}
	checkpoint := func(block uint64) {
		for nextCP < len(sc.Checkpoints) && float64(block) >= sc.Checkpoints[nextCP]*perDay {
			vr.leaders = append(vr.leaders, leaderUID())
			vr.ranked = append(vr.ranked, slices.Clone(ranked))
			nextCP++
		}
	}
	var raceID uint64
	for block := sc.RaceEveryBlocks; block <= lastBlock; {
		checkpoint(block - 1)
		for _, m := range sc.Miners {
			if _, ok := qualified[m.UID]; !ok && arrival[m.UID] <= block {
				qualify(m, block)
			}
		}
		quals := make([]race.Qualifying, 0, len(qualified))
		for _, q := range qualified {
			quals = append(quals, q)
		}
		sort.Slice(quals, func(i, j int) bool { return quals[i].UID < quals[j].UID })
		pre, _, err := sc.Race.Step(st, race.Input{Block: block, Qualifying: quals})
		if err != nil {
			return vr, err
		}
		// No race without a qualified challenger: hidden problems are only
		// spent when there is a decision to make.
		if len(pre.Qualifiers) == 0 {
			block += sc.RaceEveryBlocks
			continue
		}
		racers := make([]uint16, 0, len(pre.Qualifiers)+1)
		if st.Leader != nil {
			racers = append(racers, st.Leader.UID)
		}
		for _, q := range pre.Qualifiers {
			racers = append(racers, q.UID)
		}
		if pre.Reference != nil {
			racers = append(racers, pre.Reference.UID)
		}
		problems := drawProblems(sc, rng, sc.RaceProblems)
		raceID++
		day := float64(block) / perDay
		heat := race.Heat{Race: raceID, Block: block, Problems: len(problems)}
		for _, uid := range racers {
			m := byUID[uid]
			scores := make([]float64, len(problems))
			for k, p := range problems {
				scores[k] = solve(rng, sc, m, p, day)
			}
			heat.Racers = append(heat.Racers, race.HeatRacer{UID: uid, Hotkey: hotkey(uid), Scores: scores})
		}
		vr.races++
		vr.hidden += len(problems)
		vr.racerDays += float64(len(racers))
		// The race ends RaceBlocks later; the next starts at the next window,
		// or at once when the race overran it.
		end := block + sc.RaceBlocks
		nextBlock := (block/sc.RaceEveryBlocks + 1) * sc.RaceEveryBlocks
		if end >= nextBlock {
			nextBlock = end + 1
		}
		if sc.VoidShare > 0 && rng.Float64() < sc.VoidShare {
			// A void race is not evidence: no heat, the standing unchanged.
			block = nextBlock
			continue
		}
		checkpoint(end - 1)
		before := leaderUID()
		out, nst, err := sc.Race.Step(st, race.Input{Block: end, Qualifying: quals, Race: &heat, History: history, Cache: cache})
		if err != nil {
			return vr, err
		}
		st = nst
		if len(out.Ranked) > 0 {
			ranked = out.Ranked
		}
		history = append(history, heat)
		// Heats that left the evidence window can never count again.
		from := sc.Race.EvidenceFrom(end)
		cut := 0
		for cut < len(history) && history[cut].Block < from {
			cut++
		}
		history = history[cut:]
		after := leaderUID()
		if after != before && after >= 0 {
			if before >= 0 {
				vr.flaps++
			}
			if uint16(after) == best {
				if vr.crownHours == -1 {
					vr.crownHours = float64(end-arrival[best]) * sc.BlockSeconds / 3600
				}
			} else {
				vr.falseCrowns++
				vr.falseDays[int(float64(end)/perDay)] = true
			}
			if before == int(best) {
				vr.lostHonest = true
			}
		}
		block = nextBlock
	}
	checkpoint(lastBlock + 1)
	return vr, nil
}

func summarise(sc Scenario, runs [][]validatorRun) Result {
	best := sc.Best()
	res := Result{Runs: sc.Runs, Validators: sc.Validators, Miners: len(sc.Miners), Seed: sc.Seed, Best: best, HonestLeaderKeptShare: -1}
	pairs := float64(sc.Runs * sc.Validators)
	// uids: 0 burn, miners as given, validators after the highest uid.
	n := 1
	for _, m := range sc.Miners {
		n = max(n, int(m.UID)+1)
	}
	firstValidator := n
	n += sc.Validators
	for ci, day := range sc.Checkpoints {
		cp := Checkpoint{Day: day, Leaders: map[string]float64{}}
		leaders := map[string]int{}
		crowned, agreeing, agreeingBest := 0, 0, 0
		for _, vrs := range runs {
			agree := true
			for v, vr := range vrs {
				l := vr.leaders[ci]
				key := "none"
				if l >= 0 {
					key = fmt.Sprintf("uid %d", l)
				}
				leaders[key]++
				if l == int(best) {
					crowned++
				}
				if v > 0 && l != vrs[0].leaders[ci] {
					agree = false
				}
			}
			if agree {
				agreeing++
				if vrs[0].leaders[ci] == int(best) {
					agreeingBest++
				}
			}
			yo := yuma(sc, vrs, ci, n, firstValidator)
			cp.BestIncentive += yo.Incentive[best] / float64(sc.Runs)
			cp.BestConsensus += yo.Consensus[best] / float64(sc.Runs)
			for v := range sc.Validators {
				cp.ValidatorVtrust += yo.Vtrust[firstValidator+v] / pairs
			}
		}
		for k, c := range leaders {
			cp.Leaders[k] = float64(c) / pairs
		}
		cp.CrownedShare = float64(crowned) / pairs
		cp.AllAgreeShare = float64(agreeing) / float64(sc.Runs)
		cp.AllAgreeBestShare = float64(agreeingBest) / float64(sc.Runs)
		res.Checkpoints = append(res.Checkpoints, cp)
	}
	last := res.Checkpoints[len(res.Checkpoints)-1]
	res.CrownedShare, res.AllAgreeShare, res.AllAgreeBestShare = last.CrownedShare, last.AllAgreeShare, last.AllAgreeBestShare
	res.BestIncentive, res.MeanVtrust = last.BestIncentive, last.ValidatorVtrust

	var hours []float64
	never, eligible, kept, incumbentPairs := 0, 0, 0, 0
	var falseCrowns, flaps, races, hidden, racerRaces float64
	falseDays := 0
	for _, vrs := range runs {
		for _, vr := range vrs {
			switch {
			case vr.crownHours == -2:
				incumbentPairs++
				if !vr.lostHonest {
					kept++
				}
			case vr.crownHours == -1:
				eligible++
				never++
			default:
				eligible++
				hours = append(hours, vr.crownHours)
			}
			falseCrowns += float64(vr.falseCrowns)
			falseDays += len(vr.falseDays)
			flaps += float64(vr.flaps)
			races += float64(vr.races)
			hidden += float64(vr.hidden)
			racerRaces += vr.racerDays
		}
	}
	res.TimeToCrownHours = quantiles(hours)
	if eligible > 0 {
		res.NeverCrownedShare = float64(never) / float64(eligible)
	}
	if incumbentPairs > 0 {
		res.HonestLeaderKeptShare = float64(kept) / float64(incumbentPairs)
	}
	validatorDays := pairs * sc.Days
	res.FalseCrownsPerDay = falseCrowns / validatorDays
	res.FalseCrownDayShare = float64(falseDays) / (pairs * math.Ceil(sc.Days))
	res.FlapsPerDay = flaps / validatorDays
	res.RacesPerDay = races / validatorDays
	res.HiddenPerDay = hidden / validatorDays
	if races > 0 {
		// Every racer runs every problem of a race; a racing miner's day
		// is the races it is in times the problems.
		res.EpisodesPerMinerDay = float64(sc.RaceProblems) * res.RacesPerDay
	}
	return res
}

// yuma runs the devnet's Yuma consensus on the weights every validator of
// one run would set at checkpoint ci, as the validator computes them: the
// policy vector over the last race's ranking, then the SDK conversion to
// u16.
func yuma(sc Scenario, vrs []validatorRun, ci, n, firstValidator int) devnet.YumaOutput {
	in := devnet.YumaInput{
		Stake:   make([]uint64, n),
		Permit:  make([]bool, n),
		Weights: make([][]devnet.Weight, n),
		Kappa:   0.5,
	}
	uids := make([]uint16, n)
	for i := range uids {
		uids[i] = uint16(i)
	}
	for v, vr := range vrs {
		self := firstValidator + v
		in.Stake[self], in.Permit[self] = 1_000_000_000, true
		// The policy is validated and the ranked uids are the scenario's,
		// so neither step can fail; a failure would be a bug in the policy
		// code, and panicking says so instead of skewing the result.
		vec, err := sc.Policy.Vector(vr.ranked[ci], n)
		if err != nil {
			panic(fmt.Sprintf("simulate: weights policy: %v", err))
		}
		outUIDs, values, err := weights.ConvertWeightsAndUidsForEmit(uids, vec)
		if err != nil {
			panic(fmt.Sprintf("simulate: weights conversion: %v", err))
		}
		for k, u := range outUIDs {
			in.Weights[self] = append(in.Weights[self], devnet.Weight{UID: u, Value: values[k]})
		}
	}
	return devnet.Yuma(in)
}

// CrowdOptions describe the usual subnet of arena simulate: a leader
// (uid 1), a challenger (uid 2), copies of the challenger (uids 3 …) and a
// field of miners of spread skill after them.
type CrowdOptions struct {
	// Miners is the number of miners, copies included (at least 2).
	Miners               int
	Leader, Challenger   []float64 // success per type
	FieldLow, FieldHigh  float64   // the field's success, spread evenly
	Clones               int       // miners running the challenger's agent
	ChallengerArrivesDay float64
	NoIncumbent          bool
	LeaderStopsDay       float64
	Quality              []float64 // every miner's rung mix (nil: DefaultQuality)
	ChallengerQuality    []float64 // the challenger's and its copies' (nil: Quality)
	FieldRegisteredFirst bool      // the field registered before the leader and the challenger
}

// Crowd builds the miners of CrowdOptions. Miners there from day 0 have
// registration keys 1 … N in registration order (leader, challenger,
// copies, field; or the field first); a miner arriving later registers
// when it arrives, after all of them, the copies one after another after
// the challenger.
func Crowd(o CrowdOptions) ([]Miner, error) {
	if o.Miners < 2+o.Clones || o.Clones < 0 {
		return nil, fmt.Errorf("%d miners cannot hold a leader, a challenger and %d copies", o.Miners, o.Clones)
	}
	if o.Miners > 4000 {
		return nil, fmt.Errorf("%d miners: at most 4000", o.Miners)
	}
	chQuality := o.ChallengerQuality
	if chQuality == nil {
		chQuality = o.Quality
	}
	miners := []Miner{{UID: 1, Success: o.Leader, Quality: o.Quality, Incumbent: !o.NoIncumbent, StopsDay: o.LeaderStopsDay}}
	for k := range o.Clones + 1 {
		miners = append(miners, Miner{UID: uint16(2 + k), Success: slices.Clone(o.Challenger), Quality: chQuality, ArrivesDay: o.ChallengerArrivesDay})
	}
	field := o.Miners - 2 - o.Clones
	for i := range field {
		p := o.FieldLow
		if field > 1 {
			p = o.FieldLow + (o.FieldHigh-o.FieldLow)*float64(i)/float64(field-1)
		}
		s := make([]float64, len(o.Leader))
		for k := range s {
			s[k] = p
		}
		miners = append(miners, Miner{UID: uint16(3 + o.Clones + i), Success: s, Quality: o.Quality})
	}
	order := slices.Clone(miners)
	if o.FieldRegisteredFirst {
		order = append(slices.Clone(miners[2+o.Clones:]), miners[:2+o.Clones]...)
	}
	// Day-0 registrations first, in order; later arrivals by arrival day,
	// keeping their order (the copies after the challenger).
	slices.SortStableFunc(order, func(a, b Miner) int { return cmp.Compare(a.ArrivesDay, b.ArrivesDay) })
	key := map[uint16]uint64{}
	for i, m := range order {
		key[m.UID] = uint64(i + 1)
	}
	for i := range miners {
		miners[i].RegisteredAt = key[miners[i].UID]
	}
	return miners, nil
}
