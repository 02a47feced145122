package race

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
)

// EvidenceFrom is the first block whose heats count for a decision at
// block: the start of the evidence epoch before the current one, so a
// decision counts between one and two epochs of heats, and every validator
// drops old heats at the same blocks. With WindowBlocks 0 every heat counts.
func (p Params) EvidenceFrom(block uint64) uint64 {
	if p.WindowBlocks == 0 {
		return 0
	}
	e := block / p.WindowBlocks
	if e == 0 {
		return 0
	}
	return (e - 1) * p.WindowBlocks
}

// epochIndex is j, 1 for the evidence epoch in which a comparison began
// (a challenger's first race against the reign, or the vacancy's first
// race), 2 for the next, …: each epoch's decisions use a fresh test over
// its evidence, and the j-th spends spendShare(j) of the error rate, so that
// the spending over any number of epochs sums to at most 1 − Confidence
// (docs/scoring.md, "The evidence window").
func (p Params) epochIndex(since, block uint64) uint64 {
	if p.WindowBlocks == 0 || block <= since {
		return 1
	}
	return block/p.WindowBlocks - since/p.WindowBlocks + 1
}

// firstEpochShare is the share of the error rate spent in a comparison's
// first evidence epoch, when most decisions are taken; the later epochs
// share the rest as (1 − firstEpochShare)/(j(j−1)), which sums to it.
const firstEpochShare = 0.8

func spendShare(j uint64) float64 {
	if j <= 1 {
		return firstEpochShare
	}
	fj := float64(j)
	return (1 - firstEpochShare) / (fj * (fj - 1))
}

// logThreshold is the log of the e-value a comparison that can move the
// crown must reach: one of K tests taken at once (a union bound over them)
// in the j-th epoch of its comparison.
func (p Params) logThreshold(k int, j uint64) float64 {
	return math.Log(float64(max(k, 1))) - math.Log(spendShare(j)) - math.Log1p(-p.Confidence)
}

// Step advances the race by one window. It never mutates s or in.
//
// With a race (in.Race set), the crown moves only on evidence: the
// incumbent keeps it unless a challenger is shown, against a threshold
// corrected for the number of challengers and the epoch of the reign, to
// beat it by more than Margin. Racers that cannot be told apart are one
// competitor, led by the earliest registered. With no incumbent, a racer
// is crowned once nobody is shown to beat it and it is shown to beat
// someone, or, among racers none of which is shown to beat another, once
// the earliest registered is shown to be no worse than each by more than
// TieMargin; until then the outcome is Undecided. The rules and their
// error rates are in docs/scoring.md.
func (p Params) Step(s State, in Input) (Output, State, error) {
	if err := p.Validate(); err != nil {
		return Output{}, s, err
	}
	if in.Block < s.LastBlock {
		return Output{}, s, fmt.Errorf("race: block %d is before the last step's block %d", in.Block, s.LastBlock)
	}
	byUID := make(map[uint16]Qualifying, len(in.Qualifying))
	for _, q := range in.Qualifying {
		if err := validScore("qualifying", q.UID, q.Score); err != nil {
			return Output{}, s, err
		}
		if _, dup := byUID[q.UID]; dup {
			return Output{}, s, fmt.Errorf("race: uid %d has two qualifying results", q.UID)
		}
		byUID[q.UID] = q
	}

	next := State{Races: s.Races, LastBlock: in.Block, VacantSince: s.VacantSince, FirstRaced: maps.Clone(s.FirstRaced)}
	if s.Leader != nil {
		next.Leader = copyLeader(s.Leader)
	}
	// An incumbent whose uid now belongs to another hotkey was deregistered:
	// the crown is vacant.
	if next.Leader != nil {
		if q, ok := byUID[next.Leader.UID]; ok && q.Hotkey != next.Leader.Hotkey {
			next.Leader, next.FirstRaced = nil, nil
		}
	}

	ratio, bar := p.Bar(next, in.Block)
	out := Output{Ratio: ratio, Bar: bar, Outcome: NoRace, Qualifiers: []Qualifying{}, Ranked: []uint16{}}
	z := normalQuantile(p.Confidence)
	for _, q := range byUID {
		if next.Leader != nil && q.UID == next.Leader.UID {
			continue
		}
		if q.Score >= p.Floor && q.upper(z) >= bar {
			out.Qualifiers = append(out.Qualifiers, q)
		}
	}
	slices.SortFunc(out.Qualifiers, func(a, b Qualifying) int {
		return cmp.Or(cmp.Compare(a.QualifiedAt, b.QualifiedAt), cmp.Compare(a.UID, b.UID))
	})
	// The racer the leader's group beat races along whenever a challenger
	// does, even below the bar, so that a copy of the leader registered
	// before it can still be shown to beat it too.
	if l := next.Leader; l != nil && l.Reference != nil && len(out.Qualifiers) > 0 && !isQualifier(out.Qualifiers, l.Reference.UID) {
		if q, ok := byUID[l.Reference.UID]; ok && q.Hotkey == l.Reference.Hotkey && q.UID != l.UID {
			out.Reference = &q
		}
	}

	if in.Race == nil {
		out.Leader = copyLeader(next.Leader)
		return out, next, nil
	}
	if err := in.Race.validate(); err != nil {
		return Output{}, s, err
	}

	// Evidence counts for the incumbent, the qualifiers and the racer the
	// leader's group beat, under their current hotkeys.
	hotkeys := make(map[uint16]string, len(out.Qualifiers)+2)
	registered := make(map[uint16]uint64, len(out.Qualifiers)+1)
	for _, q := range out.Qualifiers {
		hotkeys[q.UID] = q.Hotkey
		registered[q.UID] = q.RegisteredAt
	}
	if q := out.Reference; q != nil {
		hotkeys[q.UID] = q.Hotkey
		registered[q.UID] = q.RegisteredAt
	}
	if l := next.Leader; l != nil {
		hotkeys[l.UID] = l.Hotkey
		registered[l.UID] = l.RegisteredAt
		if q, ok := byUID[l.UID]; ok && q.RegisteredAt != 0 {
			registered[l.UID] = q.RegisteredAt
		}
		if r := l.Reference; r != nil {
			if _, taken := hotkeys[r.UID]; !taken {
				hotkeys[r.UID] = r.Hotkey
			}
		}
	}
	heats := append(slices.Clip(in.History), *in.Race)
	lg, err := buildLedger(heats, p.EvidenceFrom(in.Block), in.Block, hotkeys, in.Cache)
	if err != nil {
		return Output{}, s, err
	}
	out.WindowRaces = len(lg.heats)

	var racers []uint16 // eligible racers of this race (the incumbent and the qualifiers), by uid
	for _, r := range in.Race.Racers {
		eligible := isQualifier(out.Qualifiers, r.UID) || next.Leader != nil && r.UID == next.Leader.UID ||
			out.Reference != nil && r.UID == out.Reference.UID
		if hk, ok := hotkeys[r.UID]; ok && eligible && hk == r.Hotkey {
			racers = append(racers, r.UID)
			sum := 0.0
			for _, sc := range r.Scores {
				sum += sc
			}
			out.Results = append(out.Results, RaceResult{UID: r.UID, Score: sum / float64(max(1, in.Race.Problems))})
		}
	}
	slices.Sort(racers)
	slices.SortFunc(out.Results, func(a, b RaceResult) int { return cmp.Compare(a.UID, b.UID) })
	if len(racers) == 0 {
		out.Outcome = NoRacers
		out.Leader = copyLeader(next.Leader)
		return out, next, nil
	}
	next.Races++

	d := &decider{p: p, lg: lg, registered: registered, block: in.Block}
	if next.Leader == nil {
		if next.VacantSince == 0 {
			next.VacantSince = in.Block
		}
		winner, ref, group, decision := d.firstCrown(racers, p.epochIndex(next.VacantSince, in.Block))
		out.Decision = decision
		if winner < 0 {
			out.Outcome = Undecided
			out.Leader = nil
			return out, next, nil
		}
		next.Leader = crown(byUID[uint16(winner)], in.Block, ref, hotkeys)
		next.VacantSince = 0
		out.Outcome = Crowned
		out.Group = group
	} else {
		if next.FirstRaced == nil {
			next.FirstRaced = map[string]uint64{}
		}
		epochs := map[uint16]uint64{}
		for _, c := range racers {
			key := fmt.Sprintf("%d/%s", c, hotkeys[c])
			if _, ok := next.FirstRaced[key]; !ok && c != next.Leader.UID {
				next.FirstRaced[key] = in.Block
			}
			epochs[c] = p.epochIndex(next.FirstRaced[key], in.Block)
		}
		v := d.incumbent(*next.Leader, racers, epochs)
		out.Outcome, out.Decision, out.Group, out.MergedEvidence = v.outcome, v.decision, v.group, v.merged
		switch v.outcome {
		case Dethroned:
			next.Leader = crown(byUID[v.leader], in.Block, v.reference, hotkeys)
			next.FirstRaced = nil
		case HandedOver:
			old := next.Leader
			next.Leader = crown(byUID[v.leader], in.Block, nil, hotkeys)
			// The group keeps its reign: the crown moved within it.
			next.Leader.Since, next.Leader.Reference = old.Since, old.Reference
		}
	}

	out.Ranked = append(out.Ranked, next.Leader.UID)
	rest := slices.DeleteFunc(slices.Clone(racers), func(u uint16) bool { return u == next.Leader.UID })
	slices.SortStableFunc(rest, func(a, b uint16) int { return cmp.Compare(lg.mean(b), lg.mean(a)) })
	out.Ranked = append(out.Ranked, rest...)
	out.Leader = copyLeader(next.Leader)
	return out, next, nil
}

func isQualifier(qs []Qualifying, uid uint16) bool {
	return slices.ContainsFunc(qs, func(q Qualifying) bool { return q.UID == uid })
}

// decider answers one Step's comparisons.
type decider struct {
	p          Params
	lg         *ledger
	registered map[uint16]uint64
	block      uint64
}

// before orders racers by registration block, then uid: the order every
// validator reads from the chain, so it picks the same racer among ones
// its evidence cannot tell apart.
func (d *decider) before(a, b uint16) bool {
	return cmp.Or(cmp.Compare(d.registered[a], d.registered[b]), cmp.Compare(a, b)) < 0
}

func (d *decider) earliest(uids []uint16) uint16 {
	best := uids[0]
	for _, u := range uids[1:] {
		if d.before(u, best) {
			best = u
		}
	}
	return best
}

// compare tests "a beats b by more than shift" against the e-value
// exp(logThreshold). The evidence itself is computed only when it could
// reach the threshold, or, for a reported comparison, exceed 1 (below 1 an
// e-value is no evidence at all, and is reported as 0).
func (d *decider) compare(a, b uint16, shift, logThreshold float64, report bool) Comparison {
	pr := d.lg.between(a, b)
	c := Comparison{UID: a, Against: b, Shift: shift, Pairs: pr, Threshold: math.Exp(logThreshold)}
	floor := logThreshold
	if report {
		floor = 0
	}
	if pr.upperLogEvidence(shift) < floor {
		return c
	}
	le := pr.LogEvidence(shift)
	c.Evidence, c.Confident = math.Exp(min(le, 700)), le >= logThreshold
	return c
}

// beatsOnce is the single test (no correction) "a beats b by more than
// Margin", used to tell which racers belong with a leader, not to move the
// crown away from a racer shown better.
func (d *decider) beatsOnce(a, b uint16) bool {
	return d.lg.between(a, b).reaches(d.p.Margin, -math.Log1p(-d.p.Confidence))
}

// verdict is what one decision found.
type verdict struct {
	outcome   Outcome
	leader    uint16
	reference *Miner
	group     []uint16
	decision  []Comparison
	merged    float64
}

// incumbent decides a race with a leader: dethroned, with the crown going
// to the earliest-registered racer of the strongest challenger's group,
// handed over to an earlier-registered copy of the leader, or defended.
//
// The crown moves away from the incumbent only when the merged evidence
// Σ_c w_c·E_c reaches 1/(1 − Confidence), where E_c is challenger c's
// evidence of beating the incumbent by more than Margin and
// w_c = spendShare(j_c)/K, j_c the evidence epoch of c's comparison and K
// the number of challengers: an average of e-values is an e-value, so an
// incumbent that no challenger beats by Margin loses the crown this way
// with probability at most 1 − Confidence however many challengers there
// are, while copies of one better agent add up instead of paying K times
// over. E_c below 1 is counted as 0, which only lowers the sum.
func (d *decider) incumbent(l Leader, racers []uint16, epochs map[uint16]uint64) verdict {
	var challengers []uint16
	for _, c := range racers {
		if c != l.UID {
			challengers = append(challengers, c)
		}
	}
	v := verdict{outcome: Defended, leader: l.UID}
	k := float64(max(1, len(challengers)))
	best := -1
	var bestShare float64
	for _, c := range challengers {
		share := spendShare(epochs[c]) / k
		logT := d.p.logThreshold(len(challengers), epochs[c])
		cmpr := d.compare(c, l.UID, d.p.Margin, logT, true)
		v.decision = append(v.decision, cmpr)
		if cmpr.Evidence >= 1 {
			v.merged += share * cmpr.Evidence
		}
		if w := share * cmpr.Evidence; cmpr.Evidence >= 1 && (best < 0 || w > bestShare || w == bestShare && d.before(c, uint16(best))) {
			best, bestShare = int(c), w
		}
	}
	if best >= 0 && v.merged*(1-d.p.Confidence) >= 1 {
		// The group that takes the crown: the challengers shown (by the
		// single test) to beat the incumbent, less those another of them is
		// shown to beat; its earliest registered leads. It does not depend
		// on which of them happened to be strongest, so copies of one agent
		// pick the same representative on every validator.
		v.group = d.top(slices.DeleteFunc(slices.Clone(challengers), func(c uint16) bool { return !d.beatsOnce(c, l.UID) }))
		if len(v.group) == 0 {
			v.group = []uint16{uint16(best)}
		}
		v.outcome, v.leader, v.reference = Dethroned, v.group[0], &Miner{UID: l.UID, Hotkey: l.Hotkey}
		return v
	}
	v.group = []uint16{l.UID}
	// An earlier-registered racer that the leader is not shown to beat is
	// a copy, and takes the crown, when it is shown to beat the racer the
	// leader's group beat to take it. The reference was fixed when the
	// crown moved, so a better record for the leader, or a worse one for
	// the copy, never moves the crown to it. A leader crowned without
	// beating anyone (a lone first racer, or the earliest of a near-tie)
	// has no reference and is never handed over: what it is shown to beat
	// later depends on its own record, which would make a better record
	// lose the crown.
	if r := l.Reference; r != nil {
		for _, c := range challengers {
			if c == r.UID || !d.before(c, l.UID) || d.beatsOnce(l.UID, c) {
				continue
			}
			if d.beatsOnce(c, r.UID) {
				v.group = append(v.group, c)
			}
		}
	}
	d.sortByRegistration(v.group)
	if v.group[0] != l.UID {
		v.outcome, v.leader = HandedOver, v.group[0]
	}
	return v
}

// top keeps the racers of set that no other racer of set is shown (by the
// single test) to beat, earliest registered first.
func (d *decider) top(set []uint16) []uint16 {
	var out []uint16
	for _, c := range set {
		if !slices.ContainsFunc(set, func(x uint16) bool { return x != c && d.beatsOnce(x, c) }) {
			out = append(out, c)
		}
	}
	d.sortByRegistration(out)
	return out
}

func (d *decider) sortByRegistration(uids []uint16) {
	slices.SortFunc(uids, func(a, b uint16) int {
		return cmp.Or(cmp.Compare(d.registered[a], d.registered[b]), cmp.Compare(a, b))
	})
}

// firstCrown decides a race with no leader. It returns the racer to crown
// (−1: undecided), the racer its group was shown to beat, the group and the
// comparisons that decided.
//
// Racer a dominates b when a is shown to beat b by more than Margin at the
// threshold for K = racers − 1 tests in the vacancy's j-th epoch. A racer
// nobody dominates that dominates someone is a candidate; the candidates
// no other candidate is shown (by the single test) to beat are the group,
// and its earliest-registered racer is crowned. When no racer dominates another,
// the earliest-registered racer is crowned once it is shown to be no worse
// than every other by more than TieMargin.
func (d *decider) firstCrown(racers []uint16, j uint64) (int, *Miner, []uint16, []Comparison) {
	if len(racers) == 1 {
		return int(racers[0]), nil, racers, nil
	}
	logT := d.p.logThreshold(len(racers)-1, j)
	strongest := map[uint16]Comparison{} // each racer's strongest dominator
	dominated := map[uint16][]uint16{}   // whom each racer dominates
	for _, a := range racers {
		for _, b := range racers {
			if a == b {
				continue
			}
			c := d.compare(a, b, d.p.Margin, logT, false)
			if !c.Confident {
				continue
			}
			dominated[a] = append(dominated[a], b)
			if prev, ok := strongest[b]; !ok || c.Evidence > prev.Evidence {
				strongest[b] = c
			}
		}
	}
	var undominated, candidates []uint16
	for _, r := range racers {
		if _, ok := strongest[r]; ok {
			continue
		}
		undominated = append(undominated, r)
		if len(dominated[r]) > 0 {
			candidates = append(candidates, r)
		}
	}
	var decision []Comparison
	for _, r := range racers {
		if c, ok := strongest[r]; ok {
			decision = append(decision, c)
		}
	}
	byMean := func(uids []uint16) uint16 {
		best := uids[0]
		for _, u := range uids[1:] {
			if m, bm := d.lg.mean(u), d.lg.mean(best); m > bm || m == bm && d.before(u, best) {
				best = u
			}
		}
		return best
	}
	if len(candidates) > 0 {
		// As for a dethroning, the candidates none of the others is shown
		// to beat lead together, the earliest registered first; the racer
		// the crowned one beat that did best is its group's reference.
		group := d.top(candidates)
		if len(group) == 0 {
			group = []uint16{byMean(candidates)}
		}
		ref := byMean(dominated[group[0]])
		return int(group[0]), &Miner{UID: ref}, group, decision
	}
	if len(undominated) == 0 {
		return -1, nil, nil, decision
	}
	c := d.earliest(undominated)
	ok := true
	for _, u := range undominated {
		if u == c {
			continue
		}
		cmpr := d.compare(c, u, -d.p.TieMargin, logT, true)
		decision = append(decision, cmpr)
		ok = ok && cmpr.Confident
	}
	if !ok {
		return -1, nil, nil, decision
	}
	return int(c), nil, undominated, decision
}

func copyLeader(l *Leader) *Leader {
	if l == nil {
		return nil
	}
	c := *l
	if l.Reference != nil {
		r := *l.Reference
		c.Reference = &r
	}
	return &c
}

// crown makes q the leader from block; ref is the racer its group was
// shown to beat, its hotkey read from hotkeys when not given.
func crown(q Qualifying, block uint64, ref *Miner, hotkeys map[uint16]string) *Leader {
	l := &Leader{UID: q.UID, Hotkey: q.Hotkey, Qualifying: q.Score, QualifiedAt: q.QualifiedAt, Since: block, RegisteredAt: q.RegisteredAt}
	if ref != nil {
		r := *ref
		if r.Hotkey == "" {
			r.Hotkey = hotkeys[r.UID]
		}
		l.Reference = &r
	}
	return l
}
