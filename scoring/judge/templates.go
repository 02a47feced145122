package judge

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"arena/episode"
)

// Template detection defaults (TemplateOptions).
const (
	// DefaultTemplateCap is the q a templated run keeps at most (config
	// judge.template_cap). With c(q) = 0.3 + 0.7·q/0.8
	// (scoring.Coefficient) it leaves a templated miner 65% of its
	// success (a cap of 0.5 would leave 73.75%), so a template can never
	// be worth more than two thirds of an answer.
	DefaultTemplateCap = 0.4
	// DefaultTemplateShare is the share of a run's thinks that must match
	// one skeleton, or two together.
	DefaultTemplateShare = 0.5
	// DefaultTemplateSimilarity is the Jaccard similarity of skeleton
	// 3-shingles at which a think matches a skeleton.
	DefaultTemplateSimilarity = 0.7
	// DefaultTemplateMinProblems is the fewest problems a run must have
	// for its thinks to be compared.
	DefaultTemplateMinProblems = 3
)

// TemplateOptions configure template detection over the trajectories of
// one miner in one qualifying run or race. The zero value is the
// documented default.
type TemplateOptions struct {
	// Cap is the highest q, and per-step score, a templated run keeps
	// (default DefaultTemplateCap; 1 or more leaves scores alone but still
	// records the finding).
	Cap float64
	// Share is the share of the run's non-empty thinks that must match
	// one skeleton, or the two most common together (default
	// DefaultTemplateShare).
	Share float64
	// Similarity is the shingle similarity at which a think matches
	// (default DefaultTemplateSimilarity).
	Similarity float64
	// MinProblems is the fewest distinct problems a run needs to be
	// judged (default DefaultTemplateMinProblems, at least 2).
	MinProblems int
	// Off turns detection off.
	Off bool
}

func (o TemplateOptions) withDefaults() TemplateOptions {
	if o.Cap <= 0 {
		o.Cap = DefaultTemplateCap
	}
	if o.Share <= 0 || o.Share > 1 {
		o.Share = DefaultTemplateShare
	}
	if o.Similarity <= 0 || o.Similarity > 1 {
		o.Similarity = DefaultTemplateSimilarity
	}
	if o.MinProblems <= 0 {
		o.MinProblems = DefaultTemplateMinProblems
	}
	o.MinProblems = max(o.MinProblems, 2)
	return o
}

// DetectTemplates looks for one think skeleton shared across the
// trajectories of one miner's qualifying run or race (one trajectory per
// problem). A think's skeleton is its words with everything specific to
// a problem masked: tokens with a digit (ids, prices, numbers), words of
// the trajectory's own query, short quoted spans (titles), and words
// used in the thinks of fewer than half of the run's problems (titles,
// attribute values, brands unquoted). Two thinks match when the Jaccard
// similarity of their skeletons' 3-shingles reaches opts.Similarity;
// the run is templated when the thinks matching one skeleton are at
// least opts.Share of its non-empty thinks and come from two problems or
// more. The finding carries the skeleton ("#" for a masked run) and its
// share. Deterministic: the same trajectories in the same order give
// the same finding.
func DetectTemplates(trajs []*episode.Trajectory, opts TemplateOptions) (Finding, bool) {
	var d detector
	return d.detect(trajs, opts.withDefaults())
}

// Apply detects a template across one miner's run (trajs[i] was judged
// vs[i]) and, when found, caps every verdict (CapTemplated). It returns
// the finding.
func (o TemplateOptions) Apply(trajs []*episode.Trajectory, vs []*Verdict) (Finding, bool) {
	o = o.withDefaults()
	if o.Off {
		return Finding{}, false
	}
	f, ok := DetectTemplates(trajs, o)
	if ok {
		for _, v := range vs {
			CapTemplated(v, f, o.Cap)
		}
	}
	return f, ok
}

// CapTemplated records the templated finding f on v, once, and caps its
// score and per-step scores at cp. The gates are kept: they say what the
// thinks showed, the finding says why the score is lower.
func CapTemplated(v *Verdict, f Finding, cp float64) {
	if !v.Has(FindingTemplated) {
		v.Findings = append(v.Findings, f)
	}
	v.Score = min(v.Score, cp)
	for i := range v.PerStep {
		v.PerStep[i].Score = min(v.PerStep[i].Score, cp)
	}
}

// mask stands for a masked run of tokens in a skeleton; token hashes are
// never 0.
const mask = 0

// maxQuoted is the longest quoted span (in tokens) that is masked as a
// title; a longer or unclosed one is read as the think's own words, so a
// stray quote cannot mask a whole think.
const maxQuoted = 16

// detector holds the buffers of one detection; the batch reuses one per
// worker.
type detector struct {
	toks   []uint64 // token hashes of every think, then (in place) the skeletons
	thinks []span
	query  hset    // the current trajectory's query tokens
	df     hcount  // token → problems whose thinks use it
	skels  hcount  // skeleton hash → thinks
	cand   hset    // a candidate skeleton's shingles
	reps   []int32 // per distinct skeleton (skels' value index): a think that has it
	hits   [3][]bool
}

// span is one non-empty think: its tokens toks[from:to] (its skeleton
// after the second pass: toks[from:from+n]) and its problem.
type span struct {
	from, to, n int32
	problem     int32
	traj, step  int32
	hash        uint64
}

func (d *detector) detect(trajs []*episode.Trajectory, o TemplateOptions) (Finding, bool) {
	if o.Off {
		return Finding{}, false
	}
	problems := d.read(trajs)
	if problems < o.MinProblems || len(d.thinks) == 0 {
		return Finding{}, false
	}
	d.skeletons(max(2, (problems+1)/2))
	// Candidates: the most common exact skeletons (ties by first think).
	type cand struct {
		think int32
		count int32
	}
	var top [3]cand
	for i := range d.reps {
		c := cand{think: d.reps[i], count: d.skels.vals[i]}
		if c.count < 2 {
			continue // a skeleton no other think has exactly is a weak candidate
		}
		for k := range top {
			if c.count > top[k].count {
				copy(top[k+1:], top[k:len(top)-1])
				top[k] = c
				break
			}
		}
	}
	// Each candidate's matching thinks; the two largest sets that span
	// two problems or more are the run's skeletons: a template usually
	// has a second line for the first step or an empty search.
	type match struct {
		think int32
		n     int
		hit   []bool
	}
	var ms []match
	for k, c := range top {
		if c.count == 0 {
			continue
		}
		d.hits[k] = slices.Grow(d.hits[k][:0], len(d.thinks))[:len(d.thinks)]
		if n, ok := d.matches(c.think, o.Similarity, d.hits[k]); ok {
			ms = append(ms, match{think: c.think, n: n, hit: d.hits[k]})
		}
	}
	if len(ms) == 0 {
		return Finding{}, false
	}
	slices.SortStableFunc(ms, func(a, b match) int { return b.n - a.n })
	n, shown := ms[0].n, ms[:1]
	if len(ms) > 1 {
		n = 0
		for i := range ms[0].hit {
			if ms[0].hit[i] || ms[1].hit[i] {
				n++
			}
		}
		if n > ms[0].n {
			shown = ms[:2]
		}
	}
	if float64(n) < o.Share*float64(len(d.thinks)) {
		return Finding{}, false
	}
	share := float64(n) / float64(len(d.thinks))
	skels := make([]string, len(shown))
	for k, m := range shown {
		skels[k] = d.render(trajs[d.thinks[m.think].traj], d.thinks[m.think])
	}
	what := "one skeleton"
	if len(shown) == 2 {
		what = fmt.Sprintf("two skeletons (%d and %d thinks)", shown[0].n, shown[1].n)
	}
	return Finding{
		Name:     FindingTemplated,
		Detail:   fmt.Sprintf("%d of %d thinks over %d problems share %s (%.0f%%)", n, len(d.thinks), problems, what, 100*share),
		Skeleton: strings.Join(skels, " | "),
		Share:    math.Round(share*1e4) / 1e4,
	}, true
}

// read tokenizes every non-empty think into d.toks, masking tokens with
// a digit, words of the trajectory's query and short quoted spans, and
// counts in d.df the problems whose thinks use each other token. It
// returns the number of distinct problems.
func (d *detector) read(trajs []*episode.Trajectory) int {
	d.toks, d.thinks = d.toks[:0], d.thinks[:0]
	d.df.reset()
	ids := map[string]int32{}
	for ti, t := range trajs {
		if t == nil {
			continue
		}
		problem := int32(len(ids))
		key := t.ProblemID
		if key == "" {
			key = fmt.Sprintf("\x00%d", ti) // unnamed: one problem per trajectory
		}
		if p, ok := ids[key]; ok {
			problem = p
		} else {
			ids[key] = problem
		}
		d.readQuery(t.Query)
		stamp := problem + 1
		for si := range t.Steps {
			from := int32(len(d.toks))
			d.toks = d.tokens(t.Steps[si].Think, d.toks)
			if int32(len(d.toks)) == from {
				continue
			}
			for _, h := range d.toks[from:] {
				if h != mask {
					d.df.seen(h, stamp)
				}
			}
			d.thinks = append(d.thinks, span{from: from, to: int32(len(d.toks)), problem: problem, traj: int32(ti), step: int32(si)})
		}
	}
	return len(ids)
}

// tokens appends the token hashes of one think to dst, masked where the
// token is specific to the problem.
func (d *detector) tokens(think string, dst []uint64) []uint64 {
	quoteAt := -1 // index in dst where an open quote's tokens start
	closeQuote := func() {
		if quoteAt >= 0 && len(dst)-quoteAt <= maxQuoted {
			for k := quoteAt; k < len(dst); k++ {
				dst[k] = mask
			}
		}
		quoteAt = -1
	}
	for i := 0; i < len(think); {
		c := think[i]
		switch {
		case isAlnum(c):
			start, digit := i, false
			i = tokenEnd(think, i)
			for k := start; k < i && !digit; k++ {
				digit = isDigit(think[k])
			}
			h := tokenHash(think[start:i])
			if digit || d.query.has(h) {
				h = mask
			}
			dst = append(dst, h)
		case c == '"':
			if quoteAt >= 0 {
				closeQuote()
			} else {
				quoteAt = len(dst)
			}
			i++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(think[i:])
			switch r {
			case '“', '«', '「':
				quoteAt = len(dst)
			case '”', '»', '」':
				closeQuote()
			}
			i += n
		default:
			i++
		}
	}
	return dst
}

// skeletons masks, in place, the tokens used in the thinks of fewer than
// keep problems, collapses masked runs and hashes each think's skeleton,
// counting the distinct skeletons in d.skels.
func (d *detector) skeletons(keep int) {
	d.skels.reset()
	d.reps = d.reps[:0]
	for i := range d.thinks {
		sp := &d.thinks[i]
		w := sp.from
		prevMask := false
		for _, h := range d.toks[sp.from:sp.to] {
			if h != mask && int(d.df.get(h)) < keep {
				h = mask
			}
			if h == mask {
				if prevMask {
					continue
				}
				prevMask = true
			} else {
				prevMask = false
			}
			d.toks[w] = h
			w++
		}
		sp.n = w - sp.from
		sp.hash = seqHash(d.toks[sp.from:w])
		if d.skels.inc(sp.hash) {
			d.reps = append(d.reps, int32(i))
		}
	}
}

// matches marks in hit the thinks whose skeleton matches think c's, and
// counts them, and whether they come from two problems or more.
func (d *detector) matches(c int32, sim float64, hit []bool) (int, bool) {
	cs := &d.thinks[c]
	d.cand.reset()
	nc := 0
	eachShingle(d.toks[cs.from:cs.from+cs.n], func(h uint64) {
		if d.cand.add(h) {
			nc++
		}
	})
	n, first, many := 0, cs.problem, false
	for i := range d.thinks {
		sp := &d.thinks[i]
		if sp.hash != cs.hash {
			// A match needs inter ≥ sim·(na+nc−inter) with inter at most
			// min(na, nc), so the smaller count must reach sim times the
			// larger: a skeleton much shorter or longer than the
			// candidate's cannot match (na is known without hashing).
			if na := max(1, int(sp.n)-2); float64(min(na, nc)) < sim*float64(max(na, nc)) {
				hit[i] = false
				continue
			}
			inter, na := 0, 0
			d.cand.stamp++
			eachShingle(d.toks[sp.from:sp.from+sp.n], func(h uint64) {
				na++
				if d.cand.mark(h) {
					inter++
				}
			})
			if float64(inter) < sim*float64(na+nc-inter) {
				hit[i] = false
				continue
			}
		}
		hit[i] = true
		n++
		many = many || sp.problem != first
	}
	return n, many
}

// readQuery fills d.query with the query's constraint words (its
// numbers are masked anyway, and its request words are any think's).
func (d *detector) readQuery(q string) {
	d.query.reset()
	eachToken(q, func(w string) {
		if w = lowerASCII(w); isWord(w) && !isRequestWord(w) {
			d.query.add(tokenHash(w))
		}
	})
}

// render writes a think's skeleton as text: its kept words lowercased,
// "#" for each masked run.
func (d *detector) render(t *episode.Trajectory, sp span) string {
	d.readQuery(t.Query)
	think := t.Steps[sp.step].Think
	from := len(d.toks)
	d.toks = d.tokens(think, d.toks)
	hs := d.toks[from:]
	keep := d.keepFor(sp)
	var words []string
	i := 0
	eachToken(think, func(w string) {
		h := hs[i]
		i++
		if h == mask || !keep[h] {
			if len(words) == 0 || words[len(words)-1] != "#" {
				words = append(words, "#")
			}
			return
		}
		words = append(words, strings.ToLower(w))
	})
	d.toks = d.toks[:from]
	return strings.Join(words, " ")
}

// keepFor is the set of token hashes in sp's skeleton.
func (d *detector) keepFor(sp span) map[uint64]bool {
	keep := map[uint64]bool{}
	for _, h := range d.toks[sp.from : sp.from+sp.n] {
		if h != mask {
			keep[h] = true
		}
	}
	return keep
}

// tokenHash is a token's hash, ASCII case folded; never mask.
func tokenHash(w string) uint64 {
	h := hashFold(w)
	if h == mask {
		h = 1
	}
	return h
}

// seqHash hashes a skeleton.
func seqHash(s []uint64) uint64 {
	h := uint64(len(s))*0x9e3779b97f4a7c15 + 1
	for _, x := range s {
		h = mix(h, x)
	}
	return h
}

func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

// eachShingle calls fn with the hashes of a skeleton's 3-shingles (the
// whole skeleton when it is shorter).
func eachShingle(s []uint64, fn func(uint64)) {
	if len(s) < 3 {
		fn(seqHash(s))
		return
	}
	for i := 0; i+3 <= len(s); i++ {
		fn(mix(mix(mix(3, s[i]), s[i+1]), s[i+2]) | 1)
	}
}

// hset is a set of non-zero hashes, open addressing; mark stamps a member
// once per stamp.
type hset struct {
	keys   []uint64
	stamps []int32
	n      int
	stamp  int32
}

func (s *hset) reset() {
	if s.keys == nil {
		s.keys, s.stamps = make([]uint64, 64), make([]int32, 64)
	} else if s.n > 0 {
		clear(s.keys)
		clear(s.stamps)
	}
	s.n = 0
}

// add inserts h; it reports whether h is new.
func (s *hset) add(h uint64) bool {
	if 2*(s.n+1) > len(s.keys) {
		old := s.keys
		s.keys, s.stamps = make([]uint64, 2*len(old)), make([]int32, 2*len(old))
		s.n = 0
		for _, k := range old {
			if k != 0 {
				s.add(k)
			}
		}
	}
	m := uint64(len(s.keys) - 1)
	for i := h & m; ; i = (i + 1) & m {
		switch s.keys[i] {
		case 0:
			s.keys[i] = h
			s.n++
			return true
		case h:
			return false
		}
	}
}

func (s *hset) has(h uint64) bool { return s.slot(h) >= 0 }

// mark reports whether h is a member not marked yet under the current
// stamp, and marks it.
func (s *hset) mark(h uint64) bool {
	i := s.slot(h)
	if i < 0 || s.stamps[i] == s.stamp {
		return false
	}
	s.stamps[i] = s.stamp
	return true
}

func (s *hset) slot(h uint64) int {
	if s.n == 0 {
		return -1
	}
	m := uint64(len(s.keys) - 1)
	for i := h & m; ; i = (i + 1) & m {
		switch s.keys[i] {
		case 0:
			return -1
		case h:
			return int(i)
		}
	}
}

// hcount counts per non-zero hash; seen counts a hash once per stamp.
type hcount struct {
	keys  []uint64
	vals  []int32 // the count, by insertion order (index into order)
	slots []int32 // per slot: index into vals, -1 empty
	last  []int32 // per value: the stamp that last counted it
}

func (c *hcount) reset() {
	if c.slots == nil {
		c.slots = make([]int32, 256)
		c.keys = make([]uint64, 256)
	}
	for i := range c.slots {
		c.slots[i] = -1
	}
	c.vals, c.last = c.vals[:0], c.last[:0]
}

// find returns the value index of h, inserting it with count 0.
func (c *hcount) find(h uint64) (int32, bool) {
	if 2*(len(c.vals)+1) > len(c.slots) {
		c.grow()
	}
	m := uint64(len(c.slots) - 1)
	for i := h & m; ; i = (i + 1) & m {
		v := c.slots[i]
		if v < 0 {
			v = int32(len(c.vals))
			c.slots[i], c.keys[i] = v, h
			c.vals, c.last = append(c.vals, 0), append(c.last, 0)
			return v, true
		}
		if c.keys[i] == h {
			return v, false
		}
	}
}

func (c *hcount) grow() {
	oldKeys, oldSlots := c.keys, c.slots
	c.keys, c.slots = make([]uint64, 2*len(oldKeys)), make([]int32, 2*len(oldSlots))
	for i := range c.slots {
		c.slots[i] = -1
	}
	m := uint64(len(c.slots) - 1)
	for i, v := range oldSlots {
		if v < 0 {
			continue
		}
		j := oldKeys[i] & m
		for c.slots[j] >= 0 {
			j = (j + 1) & m
		}
		c.slots[j], c.keys[j] = v, oldKeys[i]
	}
}

// seen counts h once per stamp.
func (c *hcount) seen(h uint64, stamp int32) {
	v, _ := c.find(h)
	if c.last[v] != stamp {
		c.last[v] = stamp
		c.vals[v]++
	}
}

// inc counts h; it reports whether h is new.
func (c *hcount) inc(h uint64) bool {
	v, fresh := c.find(h)
	c.vals[v]++
	return fresh
}

// get is h's count.
func (c *hcount) get(h uint64) int32 {
	if len(c.vals) == 0 {
		return 0
	}
	m := uint64(len(c.slots) - 1)
	for i := h & m; ; i = (i + 1) & m {
		v := c.slots[i]
		if v < 0 {
			return 0
		}
		if c.keys[i] == h {
			return c.vals[v]
		}
	}
}
