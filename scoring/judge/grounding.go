package judge

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"arena/episode"
)

// GroundingOptions configure the grounding judge. The zero value is the
// documented default.
type GroundingOptions struct {
	// Templates is the template policy over a miner's run (Policy,
	// TemplateOptions.Apply); the judge of one trajectory does not use it.
	Templates TemplateOptions
}

// Grounding is the deterministic judge: the gate ladder (docs/design.md,
// "Reasoning judge") evaluated against the validator-verified observations
// only. It is safe for concurrent use.
type Grounding struct {
	opts  GroundingOptions
	log   zerolog.Logger
	scans sync.Pool // of *scan, reused to spare the allocator
}

// NewGrounding builds the grounding judge.
func NewGrounding(opts GroundingOptions, log zerolog.Logger) *Grounding {
	opts.Templates = opts.Templates.withDefaults()
	return &Grounding{opts: opts, log: log.With().Str("component", "scoring.judge.grounding").Logger()}
}

// Policy implements the judges' policy (PolicyOf): the template options;
// the grounding judge is never unavailable.
func (g *Grounding) Policy() Policy {
	return Policy{Templates: g.opts.Templates, OnUnavailable: UnavailableGrounding}
}

// Judge implements Judge. It never returns an error.
func (g *Grounding) Judge(_ context.Context, t *episode.Trajectory) (Verdict, error) {
	return g.Score(t), nil
}

// Score is Judge without the context: the verdict of t.
func (g *Grounding) Score(t *episode.Trajectory) Verdict {
	if t == nil {
		return Verdict{Judge: NameGrounding, Score: Ladder(Gates{})}
	}
	s := g.getScan()
	defer g.putScan(s)
	return s.verdict(t)
}

func (g *Grounding) getScan() *scan {
	s, _ := g.scans.Get().(*scan)
	if s == nil {
		s = &scan{query: map[string]bool{}, queryNum: map[string]bool{}, queryCons: map[string]bool{}}
	}
	return s
}

func (g *Grounding) putScan(s *scan) {
	s.t, s.ground = nil, nil // do not keep the trajectory alive in the pool
	g.scans.Put(s)
}

// verdict is the verdict of the non-nil t.
func (s *scan) verdict(t *episode.Trajectory) Verdict {
	v := Verdict{Judge: NameGrounding}
	s.init(t)
	v.PerStep = make([]StepScore, len(t.Steps))
	// The steps' reasons are written into one buffer and become one
	// string, sliced per step: one allocation per verdict, not per step.
	s.reasons = s.reasons[:0]
	ends := slices.Grow(s.reasonEnds[:0], len(t.Steps))
	var injected []int
	for i := range t.Steps {
		if s.addressesJudge(i) {
			injected = append(injected, i)
		}
		g := s.step(i)
		ends = append(ends, len(s.reasons))
		v.Gates.ReferredToResults = v.Gates.ReferredToResults || g.ReferredToResults
		v.Gates.CitedDatum = v.Gates.CitedDatum || g.CitedDatum
		v.Gates.Compared = v.Gates.Compared || g.Compared
		v.PerStep[i] = StepScore{Step: i, Score: Ladder(g)}
	}
	all, from := string(s.reasons), 0
	for i, end := range ends {
		v.PerStep[i].Reason = all[from:end]
		from = end
	}
	s.reasonEnds = ends
	v.Score = Ladder(v.Gates)
	if injected != nil {
		forfeit(&v, injected)
	}
	return v
}

// addressesJudge screens step i's think for text addressing the judge.
func (s *scan) addressesJudge(i int) bool {
	think := s.t.Steps[i].Think
	var hit bool
	if s.screen, hit = screenThink(think, s.screen); hit || !isASCII(think) {
		return hit
	}
	ts := s.toks[i]
	trig := false
	for _, tk := range ts {
		trig = trig || tk.word.trig != trigNone
	}
	if !trig {
		return false
	}
	s.screen = s.screen[:0]
	for _, tk := range ts {
		s.screen = append(s.screen, tk.word.text)
	}
	return addressesJudge(s.screen)
}

// forfeit takes every rung from a verdict whose thinks address the judge
// at the given steps, and says so.
func forfeit(v *Verdict, steps []int) {
	v.Gates, v.Score = Gates{}, ScoreNoReference
	for i := range v.PerStep {
		v.PerStep[i].Score = ScoreNoReference
	}
	for _, i := range steps {
		if i < len(v.PerStep) {
			v.PerStep[i].Reason = "addresses the judge instead of the shop; the trajectory forfeits reasoning credit"
		}
	}
	v.Findings = append(v.Findings, Finding{Name: FindingInjection, Steps: steps,
		Detail: "thinks at steps " + joinInts(steps) + " address the judge (a requested score, passed gates, instructions to ignore); no reasoning credit"})
}

func joinInts(xs []int) string {
	b := make([]byte, 0, 4*len(xs))
	for k, x := range xs {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}

// Kinds of observed data a think token can match.
const (
	kID    = iota // a product_id
	kShop         // a shop_id
	kPrice        // a price (matched on the normalised number)
	kAttr         // a word of an attribute or SKU option value
	kTitle        // a word of a title, brand or category (refers, but is no datum)
	nKinds
)

const never = int32(1 << 30)

// owner is a product whose observation, at step, held a datum.
type owner struct {
	id   string
	step int32
}

// entry is what the observations said about one think token.
type entry struct {
	text   string        // the token, for entries in scan.words
	first  [nKinds]int32 // the first step whose results held it, per kind; never if none
	last   int32         // the last step read so far whose results held it as a datum (not a title word); -1 if none
	lastT  int32         // the same for a title word (title pass only)
	lastNP int32         // the last step read so far whose results, holding no product, contained it; -1 if none
	word   bool          // eligible as an attribute or title word
	qc     bool          // names a constraint of the query (a content word or a number of the query)
	trig   uint8         // triggerKind of the token: it may address the judge
	price  *entry        // for a word entry: its number's entry in scan.prices, if any
	owners []owner
}

func (e *entry) seenBefore(k int, step int) bool { return e.first[k] < int32(step) }

// tok is one token of a step's think: its entry in scan.words (with the
// token's text and, for a number, its entry in scan.prices).
type tok struct {
	word     *entry
	sentence int32
}

// scan holds one trajectory's think tokens and what the observations said
// about them. Only think tokens are ever looked up, so the observations
// are read once, in step order, without building a set of everything
// they contain.
type scan struct {
	t         *episode.Trajectory
	query     map[string]bool
	queryNum  map[string]bool // normalised numbers of the query
	queryCons map[string]bool // the query's content words (its constraints), without request words
	// prev[i]: step i's think refers to what step i-1 returned (a datum
	// of it, or its absence of products), decided while the results are
	// read in step order.
	prev     []bool
	products int    // product ids in the results of the step being read
	fold     []byte // scratch for plural folding
	slab     []entry
	all      []tok
	words    table // think tokens
	prices   table // normalised numbers of the think's price tokens
	toks     [][]tok
	pend     []pending  // of the result being read
	ground   *grounding // the batch's grounding set, read in the same pass; nil outside EvaluateBatch
	titleOK  bool       // the title pass is on: some step cites nothing but has words
	hasWord  bool       // some think token is an eligible word

	reasons    []byte // the verdict's per-step reasons, back to back
	reasonEnds []int  // where each step's reason ends in reasons
	screen     []string
}

const maxOwners = 16

func (s *scan) init(t *episode.Trajectory) {
	s.t = t
	s.titleOK, s.hasWord = false, false
	clear(s.query)
	clear(s.queryNum)
	clear(s.queryCons)
	s.words.reset()
	s.prices.reset()
	s.slab = s.slab[:0]
	queryTokens(t.Query, func(w string) {
		s.query[w] = true
		if n, ok := normNumber(w); ok {
			s.queryNum[n] = true
		} else if isWord(w) && !isRequestWord(w) {
			s.queryCons[w] = true
		}
	})
	s.prev = append(s.prev[:0], make([]bool, len(t.Steps))...)
	s.toks = slices.Grow(s.toks[:0], len(t.Steps))[:len(t.Steps)]
	size := 0
	for i := range t.Steps {
		size += len(t.Steps[i].Think)/4 + 1
	}
	s.slab = slices.Grow(s.slab, size)
	all := slices.Grow(s.all[:0], size)
	for i := range t.Steps {
		from := len(all)
		all = s.tokenizeThink(t.Steps[i].Think, all)
		s.toks[i] = all[from:len(all):len(all)]
	}
	s.all = all
	if s.words.len() == 0 {
		return
	}
	s.observeAll()
	// Title words only decide the "refers" gate of a step that cites no
	// datum, so they are read in a second pass, only when such a step
	// exists.
	if !s.hasWord {
		return
	}
	for i := 1; i < len(t.Steps); i++ {
		if !s.citesDatum(i) {
			s.titleOK = true
			s.observeAll()
			return
		}
	}
}

// tokenizeThink appends the tokens of a think to all, with their
// entries in s.words (created on first sight). It is tokenize with the
// lookup inlined: a token is lowercased into a stack buffer and looked up
// without allocating; only a new token's text is kept.
func (s *scan) tokenizeThink(text string, all []tok) []tok {
	sentence := 0
	for i := 0; i < len(text); {
		c := text[i]
		if isAlnum(c) {
			start := i
			i = tokenEnd(text, i)
			all = s.addTok(all, text[start:i], int32(sentence))
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(text[i:])
			if r == '\u2028' || r == '\u2029' || r == '。' || unicode.Is(unicode.Zl, r) {
				sentence++
			}
			i += n
			continue
		}
		if c == '.' || c == '!' || c == '?' || c == ';' || c == '\n' || c == '\r' {
			sentence++
		}
		i++
	}
	return all
}

func isJoiner(c byte) bool { return c == '.' || c == '_' || c == '-' || c == '/' }

// addTok appends the token w (not yet lowercased) of the given sentence.
func (s *scan) addTok(all []tok, w string, sentence int32) []tok {
	e := s.words.getString(w)
	if e == nil {
		e = s.addWord(lowerASCII(w))
	}
	return append(all, tok{word: e, sentence: sentence})
}

// addWord creates the entry of a think token seen for the first time.
func (s *scan) addWord(w string) *entry {
	e := s.newEntry()
	e.text = w
	e.word = isWord(w) && !s.query[w]
	s.hasWord = s.hasWord || e.word
	e.qc = s.namesConstraint(w)
	e.trig = triggerKind(w)
	s.words.put(w, e)
	if n, ok := priceNumber(w); ok && !s.queryNum[n] {
		p := s.prices.getString(n)
		if p == nil {
			p = s.newEntry()
			s.prices.put(n, p)
		}
		e.price = p
	}
	return e
}

// observeAll reads every successful result but the last step's, which no
// think can cite. In EvaluateBatch's first pass it also scans the results
// of the steps before s.ground.upTo for the answered ids, while each
// result is in cache.
func (s *scan) observeAll() {
	t := s.t
	gr := s.ground
	if gr != nil && (gr.done || s.titleOK) {
		gr = nil
	}
	// The first pass decides engagement by data; the title pass, run
	// only when some step cites no datum, adds engagement by title words.
	titles := s.titleOK
	for i := 0; i+1 < len(t.Steps); i++ {
		s.products = 0
		for _, r := range t.Steps[i].Results {
			if r.Error != nil || len(r.Result) == 0 {
				continue
			}
			s.observe(r.Result, int32(i))
			if gr != nil && i < gr.upTo {
				gr.read(r.Result)
			}
		}
		if titles {
			s.engageTitle(i)
		} else {
			s.engage(i)
		}
	}
	if gr != nil {
		gr.done = true // (the last step is always in the tail EvaluateBatch read first)
	}
}

// citesDatum reports whether step i's think names a datum observed before.
func (s *scan) citesDatum(i int) bool {
	for _, tk := range s.toks[i] {
		e := tk.word
		if e.seenBefore(kID, i) || e.seenBefore(kShop, i) || (e.word && e.seenBefore(kAttr, i)) || (tk.word.price != nil && tk.word.price.seenBefore(kPrice, i)) {
			return true
		}
	}
	return false
}

// newEntry allocates from the slab; pointers stay valid because the
// slab was grown to its maximum size (one entry per token, two for
// numbers) before tokenizing, or else a fresh entry is allocated.
func (s *scan) newEntry() *entry {
	var e *entry
	if len(s.slab) < cap(s.slab) {
		s.slab = s.slab[:len(s.slab)+1]
		e = &s.slab[len(s.slab)-1]
		*e = entry{owners: e.owners[:0]}
	} else {
		e = &entry{}
	}
	for k := range e.first {
		e.first[k] = never
	}
	e.last, e.lastT, e.lastNP = -1, -1, -1
	return e
}

// mark records that e was observed as kind k at step, in product cur.
func (e *entry) mark(k int, step int32, cur []byte) {
	if e.first[k] == never {
		e.first[k] = step
	}
	if k == kTitle {
		e.lastT = step
	} else {
		e.last = step
	}
	if k != kID && k != kTitle && len(cur) > 0 {
		e.own(cur, step)
	}
}

// markIn is mark for a datum at depth: without a known product it waits
// for the enclosing object's product_id.
func (s *scan) markIn(e *entry, k int, step int32, cur []byte, depth int) {
	e.mark(k, step, cur)
	if len(cur) == 0 && len(s.pend) < maxPending {
		s.pend = append(s.pend, pending{e: e, depth: depth})
	}
}

func (e *entry) own(cur []byte, step int32) {
	if len(e.owners) >= maxOwners {
		return
	}
	for _, o := range e.owners {
		if len(o.id) == len(cur) && strings.EqualFold(o.id, string(cur)) {
			return
		}
	}
	e.owners = append(e.owners, owner{id: lowerASCII(string(cur)), step: step})
}

// pending is a datum seen in an object whose product_id is not known
// yet (keys may come in any order).
type pending struct {
	e     *entry
	depth int
}

const maxPending = 64

// Kinds of keys the reader acts on, classified once per key.
const (
	keyOther     = iota
	keyProductID // product_id
	keyShopID    // shop_id
	keyPrice     // price
	keyAttrs     // attributes or sku_options: every value below is an attribute value
	keyTitle     // title, brand or category
)

func keyKind(k []byte) uint8 {
	switch len(k) {
	case 5:
		switch string(k) {
		case "price":
			return keyPrice
		case "title", "brand":
			return keyTitle
		}
	case 7:
		if string(k) == "shop_id" {
			return keyShopID
		}
	case 8:
		if string(k) == "category" {
			return keyTitle
		}
	case 10:
		switch string(k) {
		case "product_id":
			return keyProductID
		case "attributes":
			return keyAttrs
		}
	case 11:
		if string(k) == "sku_options" {
			return keyAttrs
		}
	}
	return keyOther
}

// observe reads one validator-written JSON result. Being written by the
// validator it is valid JSON; the reader still never panics on anything.
//
// It walks the structure byte by byte outside strings and jumps over
// every string with a vectorised search for its closing quote; keys are
// classified once, and values under keys it does not act on are skipped
// without a call.
func (s *scan) observe(b []byte, step int32) {
	const maxDepth = 64
	var isObj [maxDepth + 1]bool
	depth, attrAt, curAt := 0, -1, -1
	var cur []byte
	var kk uint8 = keyOther // kind of the last key read
	expectKey := false
	titleOK := s.titleOK
	s.pend = s.pend[:0]
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case '"':
		str: // b[i] is a quote
			j := quoteIndex(b[i+1:])
			if j < 0 {
				return
			}
			end := i + 1 + j
			if b[end-1] == '\\' {
				if end = closingQuote(b, i); end < 0 {
					return
				}
			}
			str := b[i+1 : end]
			i = end + 1
			if expectKey {
				kk = keyKind(str)
				// The usual next bytes, handled here without going round
				// the switch: the ':' and a string value's quote (exactly
				// what the ':' and '"' cases would do).
				if i+1 < len(b) && b[i] == ':' {
					expectKey = false
					i++
					if b[i] == '"' {
						goto str
					}
				}
				continue
			}
			if titleOK {
				if attrAt < 0 && kk == keyTitle {
					s.titleWords(str, step)
				}
			} else if attrAt >= 0 || kk == keyProductID || kk == keyShopID {
				s.value(str, kk, attrAt >= 0, step, &cur, &curAt, depth)
			}
			// After a value: a ',' and the next key's quote (what the ','
			// and '"' cases would do).
			if i+1 < len(b) && b[i] == ',' {
				expectKey = isObj[depth]
				i++
				if b[i] == '"' {
					goto str
				}
			}
		case ':':
			expectKey = false
			i++
		case ',':
			expectKey = isObj[depth]
			i++
		case '{', '[':
			if depth < maxDepth {
				depth++
				isObj[depth] = c == '{'
			}
			if attrAt < 0 && kk == keyAttrs {
				attrAt = depth
			}
			expectKey = c == '{'
			i++
		case '}', ']':
			if depth == attrAt {
				attrAt = -1
			}
			if depth == curAt {
				cur, curAt = nil, -1
			}
			for j := range s.pend {
				s.pend[j].depth = min(s.pend[j].depth, depth-1)
			}
			if depth > 0 {
				depth--
			}
			i++
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			end := i
			for end < len(b) && (b[end] == '-' || b[end] == '+' || b[end] == '.' || b[end] == 'e' || b[end] == 'E' || (b[end] >= '0' && b[end] <= '9')) {
				end++
			}
			num := b[i:end]
			i = end
			if titleOK {
				continue // numbers are never title words
			}
			if attrAt >= 0 {
				s.value(num, kk, true, step, &cur, &curAt, depth)
				continue
			}
			switch kk {
			case keyPrice:
				if e := s.lookupPrice(num); e != nil {
					s.markIn(e, kPrice, step, cur, depth)
				}
			case keyProductID, keyShopID:
				s.value(num, kk, false, step, &cur, &curAt, depth)
			}
		default:
			i++
		}
	}
}

// quoteIndex is bytes.IndexByte(b, '"'), faster for the short strings
// (keys, ids) that most JSON strings are: the first 32 bytes are searched
// eight at a time in a register, the rest with the vectorised search.
func quoteIndex(b []byte) int {
	const ones, highs, quotes = 0x0101010101010101, 0x8080808080808080, 0x2222222222222222
	i := 0
	for ; i+8 <= len(b) && i < 32; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ quotes
		if t := (x - ones) &^ x & highs; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	if j := bytes.IndexByte(b[i:], '"'); j >= 0 {
		return i + j
	}
	return -1
}

// titleWords marks the think words among the words of a title, brand or
// category value (the title pass).
func (s *scan) titleWords(v []byte, step int32) {
	s.eachWord(v, func(w []byte) {
		if e := s.words.get(w); e != nil && e.word {
			e.mark(kTitle, step, nil)
		}
	})
}

// closingQuote is the index of the quote closing the string that opens
// at b[open], or -1. (Scanning short strings inline instead of calling
// the vectorised IndexByte measured slower.)
func closingQuote(b []byte, open int) int {
	end := open + 1
	for end < len(b) {
		j := bytes.IndexByte(b[end:], '"')
		if j < 0 {
			return -1
		}
		end += j
		bs := 0
		for k := end - 1; k > open && b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return end
		}
		end++
	}
	return -1
}

// lookupPrice finds the price entry of the JSON number num.
func (s *scan) lookupPrice(num []byte) *entry {
	if s.prices.len() == 0 {
		return nil
	}
	if e := s.prices.get(num); e != nil {
		return e
	}
	// Only a number written differently from its normal form (an exponent,
	// a trailing zero after the point, a leading zero) can still match.
	canonical := num[0] != '0' || len(num) == 1 || num[1] == '.'
	if canonical {
		dot := false
		for _, c := range num {
			switch c {
			case 'e', 'E', '+':
				canonical = false
			case '.':
				dot = true
			}
		}
		if dot && num[len(num)-1] == '0' {
			canonical = false
		}
	}
	if canonical {
		return nil
	}
	n, ok := normNumber(string(num))
	if !ok {
		return nil
	}
	return s.prices.getString(n)
}

// value handles one scalar value (string text or number) under a key of
// kind kk, outside the title pass.
func (s *scan) value(v []byte, kk uint8, attr bool, step int32, cur *[]byte, curAt *int, depth int) {
	switch {
	case attr:
		s.eachWord(v, func(w []byte) {
			if e := s.words.get(w); e != nil && e.word {
				s.markIn(e, kAttr, step, *cur, depth)
			}
		})
	case kk == keyProductID:
		s.products++
		*cur, *curAt = v, depth
		if e := s.words.get(v); e != nil {
			e.mark(kID, step, nil)
		}
		kept := s.pend[:0]
		for _, p := range s.pend {
			if p.depth >= depth {
				p.e.own(v, step)
			} else {
				kept = append(kept, p)
			}
		}
		s.pend = kept
	case kk == keyShopID:
		if e := s.words.get(v); e != nil {
			s.markIn(e, kShop, step, *cur, depth)
		}
	}
}

// eachWord calls fn with the ASCII alphanumeric words of v (non-ASCII
// bytes separate words, so confusable letters never match ASCII ones).
func (s *scan) eachWord(v []byte, fn func([]byte)) {
	start := -1
	for i := 0; i <= len(v); i++ {
		alnum := i < len(v) && isAlnum(v[i])
		if alnum && start < 0 {
			start = i
		}
		if !alnum && start >= 0 {
			if i-start >= 3 {
				fn(v[start:i])
			}
			start = -1
		}
	}
}

// eachToken calls fn with the tokens of v as tokenize makes them (runs
// of ASCII letters and digits, joined by '.', '_', '-' or '/' between
// two of them), not lowercased.
func eachToken[T string | []byte](v T, fn func(T)) {
	for i := 0; i < len(v); {
		if !isAlnum(v[i]) {
			i++
			continue
		}
		start := i
		i = tokenEnd(v, i)
		fn(v[start:i])
	}
}

// tokenEnd is the end of the token that starts at v[i], a letter or
// digit.
func tokenEnd[T string | []byte](v T, i int) int {
	for i++; ; i += 2 {
		for i < len(v) && isAlnum(v[i]) {
			i++
		}
		if i+1 < len(v) && isJoiner(v[i]) && isAlnum(v[i+1]) {
			continue
		}
		return i
	}
}

func isAlnum(c byte) bool {
	return (c|0x20)-'a' < 26 || c-'0' < 10 // byte arithmetic: wraps below 'a' or '0'
}

// step is the credit of step i: the gates its think passes against the
// results of steps < i, or none when it does not engage with the step it
// follows (it must refer both to what step i-1 returned and to a
// constraint of the query; docs/scoring.md, "Reasoning credit").
func (s *scan) step(i int) Gates {
	g := s.gates(i)
	if !g.ReferredToResults {
		return g
	}
	prev, query := s.prev[i], s.namesConstraintAt(i)
	if prev && query {
		return g
	}
	r := append(s.reasons, "; no credit: "...)
	if !prev {
		r = append(r, "it does not engage with what step "...)
		r = strconv.AppendInt(r, int64(i-1), 10)
		r = append(r, " returned"...)
		if !query {
			r = append(r, ", and "...)
		}
	}
	if !query {
		r = append(r, "it names no constraint of the query"...)
	}
	s.reasons = r
	return Gates{}
}

// engage decides prev[j+1] once the results of step j are read: the next
// think names a datum step j returned or, when step j returned no
// product, acknowledges that or names a word or number of what it did
// return (a web search, a computation).
func (s *scan) engage(j int) {
	next, at := s.toks[j+1], int32(j)
	if s.products > 0 {
		for _, tk := range next {
			if e := tk.word; e.last == at || (e.price != nil && e.price.last == at) {
				s.prev[j+1] = true
				return
			}
		}
		return
	}
	if absence(next) {
		s.prev[j+1] = true
		return
	}
	for _, r := range s.t.Steps[j].Results {
		if r.Error != nil || len(r.Result) == 0 {
			continue
		}
		eachToken([]byte(r.Result), func(w []byte) {
			if e := s.words.get(w); e != nil && (e.word || e.price != nil) {
				e.lastNP = at
			}
		})
	}
	for _, tk := range next {
		if tk.word.lastNP == at {
			s.prev[j+1] = true
			return
		}
	}
}

// engageTitle sets prev[j+1] when the next think names a title, brand or
// category word of step j's results (the title pass).
func (s *scan) engageTitle(j int) {
	if s.prev[j+1] {
		return
	}
	for _, tk := range s.toks[j+1] {
		if tk.word.lastT == int32(j) {
			s.prev[j+1] = true
			return
		}
	}
}

// absence reports whether a think says that a search or call came back
// with nothing ("no results", "nothing found", "not available").
func absence(ts []tok) bool {
	for k, tk := range ts {
		switch tk.word.text {
		case "no", "none", "nothing", "empty", "zero", "nowhere", "neither", "missing", "unavailable",
			"failed", "fails", "error", "errored", "couldn", "didn", "doesn", "wasn", "isn", "aren":
			return true
		case "not":
			if k+1 < len(ts) {
				switch ts[k+1].word.text {
				case "found", "available", "exist", "exists", "returned", "listed", "shown", "match", "matched",
					"matching", "present", "there", "carried", "sold", "in":
					return true
				}
			}
		}
	}
	return false
}

// namesConstraintAt reports whether step i's think names a constraint of
// the query.
func (s *scan) namesConstraintAt(i int) bool {
	for _, tk := range s.toks[i] {
		if tk.word.qc {
			return true
		}
	}
	return false
}

// namesConstraint reports whether the think token w (lowercase) is a
// constraint of the query: one of its content words, give or take a
// plural s, or one of its numbers.
func (s *scan) namesConstraint(w string) bool {
	if s.queryCons[w] {
		return true
	}
	if n, ok := normNumber(w); ok {
		return s.queryNum[n]
	}
	if len(w) > 3 && w[len(w)-1] == 's' && s.queryCons[w[:len(w)-1]] {
		return true
	}
	s.fold = append(append(s.fold[:0], w...), 's')
	return s.queryCons[string(s.fold)]
}

// queryTokens calls fn with the tokens of a query, written the ways the
// suite writes amounts undone: thousands separators dropped ("1,200")
// and a peso prefix split off ("P1200", "Php 1200"), so that a think
// naming the amount names the constraint.
func queryTokens(q string, fn func(w string)) {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] == ',' && i > 0 && i+1 < len(q) && isDigit(q[i-1]) && isDigit(q[i+1]) {
			continue
		}
		b.WriteByte(q[i])
	}
	tokenize(b.String(), func(w string, _ int) {
		fn(w)
		for _, prefix := range []string{"php", "p"} {
			if rest, ok := strings.CutPrefix(w, prefix); ok && rest != "" && isDigit(rest[0]) {
				fn(rest)
				return
			}
		}
	})
}

func isDigit(c byte) bool { return c-'0' < 10 }

// isRequestWord: a word of how shoppers ask, not of what they ask for
// (the suite's request, price and attribute phrasings); never a
// constraint.
func isRequestWord(w string) bool {
	switch w {
	case "looking", "look", "need", "want", "find", "buy", "please", "help", "could", "would", "like", "recommend",
		"show", "shopping", "suggestions", "after", "can", "some", "these", "following", "everything", "items",
		"list", "store", "stores", "seller", "sellers", "order", "together", "same", "single", "cart", "purchase",
		"get", "getting", "whole", "cover", "carries", "carry", "sells", "sell", "offering", "every", "below",
		"here", "which", "there", "what", "where", "does", "your", "also", "thing", "just", "pick", "should",
		"under", "less", "than", "more", "over", "above", "least", "most", "max", "between", "around", "roughly",
		"give", "take", "plus", "minus", "range", "priced", "costing", "tops", "upwards", "starting", "pesos",
		"php", "budget", "cost", "costs", "spend", "kind", "type", "section", "category", "listed", "brand",
		"made", "option", "variant", "choosing", "whose", "color", "colour", "size", "material", "one", "must", "has", "have", "had", "but", "our", "them", "they", "about":
		return true
	}
	return false
}

// gates evaluates the gates of step i against the results of steps < i.
func (s *scan) gates(i int) Gates {
	var g Gates
	if i == 0 {
		s.reasons = append(s.reasons, "no earlier observation to refer to"...)
		return g
	}
	ts := s.toks[i]
	var cited, referred string
	for _, tk := range ts {
		e := tk.word
		switch {
		case e.seenBefore(kID, i) || e.seenBefore(kShop, i) || (e.word && e.seenBefore(kAttr, i)):
			if cited == "" {
				cited = tk.word.text
			}
		case tk.word.price != nil && tk.word.price.seenBefore(kPrice, i):
			if cited == "" {
				cited = tk.word.text
			}
		case e.word && e.seenBefore(kTitle, i):
			if referred == "" {
				referred = tk.word.text
			}
		}
	}
	r := s.reasons
	defer func() { s.reasons = r }()
	if cited == "" && referred == "" {
		r = append(r, "does not refer to any earlier tool result"...)
		return g
	}
	g.ReferredToResults = true
	if cited == "" {
		r = append(r, "refers to results ("...)
		r = appendClip(r, referred)
		r = append(r, ") but cites no observed id, price, shop_id or attribute value"...)
		return g
	}
	g.CitedDatum = true
	if a, b, ok := s.compares(ts, i); ok {
		g.Compared = true
		r = append(r, "compares observed candidates "...)
		r = appendClip(r, a)
		r = append(r, " and "...)
		r = appendClip(r, b)
		r = append(r, " with a reason"...)
		return g
	}
	r = append(r, "cites observed "...)
	r = appendClip(r, cited)
	r = append(r, " but compares no two observed candidates with a reason"...)
	return g
}

// compares reports whether one sentence of ts names two distinct product
// ids observed before step i with a reason: a comparative or causal word
// between the first and the last mention, or an observed price, shop_id
// or attribute value of one of the named products.
func (s *scan) compares(ts []tok, i int) (string, string, bool) {
	for start := 0; start < len(ts); {
		end := start
		for end < len(ts) && ts[end].sentence == ts[start].sentence {
			end++
		}
		sent := ts[start:end]
		start = end
		var ids []string
		first, last := -1, -1
		for j, tk := range sent {
			if !tk.word.seenBefore(kID, i) {
				continue
			}
			if first < 0 {
				first = j
			}
			last = j
			dup := false
			for _, id := range ids {
				dup = dup || id == tk.word.text
			}
			if !dup {
				ids = append(ids, tk.word.text)
			}
		}
		if len(ids) < 2 {
			continue
		}
		for j := first + 1; j < last; j++ {
			if isReasonWord(sent[j].word.text) {
				return ids[0], ids[1], true
			}
		}
		for _, tk := range sent {
			for _, e := range []*entry{tk.word, tk.word.price} {
				if e == nil || e.first[kID] < int32(i) {
					continue
				}
				for _, o := range e.owners {
					if o.step >= int32(i) {
						continue
					}
					for _, id := range ids {
						if o.id == id {
							return ids[0], ids[1], true
						}
					}
				}
			}
		}
	}
	return "", "", false
}

// isReasonWord: the word states a reason or a comparison. (A switch, not
// a package-level map: no mutable globals.)
func isReasonWord(w string) bool {
	switch w {
	case "because", "since", "than", "cheaper", "cheapest", "pricier", "costlier", "more", "less",
		"better", "best", "worse", "while", "whereas", "but", "instead", "higher", "lower", "vs",
		"versus", "prefer", "preferred", "unlike", "exceeds", "fits", "lacks", "only", "so",
		"therefore", "beats", "matches", "fewer", "over", "under":
		return true
	}
	return false
}

// isStopWord: never attribute or title evidence.
func isStopWord(w string) bool {
	switch w {
	case "the", "and", "for", "with", "this", "that", "from", "you", "are", "not", "yes", "all",
		"one", "any", "has", "have", "was", "were", "its", "new", "set", "pcs", "item", "product",
		"products", "price", "shop", "result", "results", "score", "none":
		return true
	}
	return false
}

// isWord: a token that may match an attribute or title word.
func isWord(w string) bool {
	if len(w) < 3 || isStopWord(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isAlnum(w[i]) {
			return false
		}
	}
	return true
}

// priceNumber is normNumber for tokens that can be a cited price: at
// least two digits and a value ≥ 1, so that "1.0" or "0.9" (scores)
// never count as a price.
func priceNumber(w string) (string, bool) {
	if w == "" || w[0] < '0' || w[0] > '9' {
		return "", false
	}
	digits := 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c != '.':
			return "", false
		}
	}
	if digits == len(w) && digits >= 2 && w[0] != '0' && digits <= 300 {
		return w, true // an integer ≥ 10 (and < 1e300, so it parses): already normal
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil || digits < 2 || f < 1 {
		return "", false
	}
	if !strings.Contains(w, ".") && w[0] != '0' {
		return w, true
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// normNumber is the shortest decimal form of a plain number token.
func normNumber(w string) (string, bool) {
	if w == "" || !(w[0] == '-' || (w[0] >= '0' && w[0] <= '9')) {
		return "", false
	}
	if plainInteger(w) {
		return w, true // FormatFloat would write it back unchanged
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// plainInteger reports whether w is an integer that float64 holds exactly
// and FormatFloat(·, 'f', -1, 64) writes as w: an optional minus, then at
// most 15 digits without a leading zero (or "0" alone).
func plainInteger(w string) bool {
	d := strings.TrimPrefix(w, "-")
	if d == "" || len(d) > 15 || (d[0] == '0' && (len(d) > 1 || len(w) > 1)) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// tokenize splits text into lowercased tokens: runs of ASCII letters and
// digits, joined by '.', '_', '-' or '/' when those sit between two such
// characters (so "49.5" and "sku_12" are single tokens). Sentences end at
// '.', '!', '?', ';' or a line break. Any other character, including
// non-ASCII letters, digits and invisible format characters, separates
// tokens: a disguised id never equals an observed one.
func tokenize(text string, fn func(w string, sentence int)) {
	sentence := 0
	start := -1
	emit := func(end int) {
		if start >= 0 {
			fn(lowerASCII(text[start:end]), sentence)
			start = -1
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(text[i:])
			emit(i)
			if r == '\u2028' || r == '\u2029' || r == '。' || unicode.Is(unicode.Zl, r) {
				sentence++
			}
			i += n
			continue
		}
		switch {
		case isAlnum(c):
			if start < 0 {
				start = i
			}
		case (c == '.' || c == '_' || c == '-' || c == '/') && start >= 0 && i+1 < len(text) && isAlnum(text[i+1]):
			// joins the token
		default:
			emit(i)
			if c == '.' || c == '!' || c == '?' || c == ';' || c == '\n' || c == '\r' {
				sentence++
			}
		}
		i++
	}
	emit(len(text))
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// appendClip appends s, cut to 40 bytes with an ellipsis.
func appendClip(b []byte, s string) []byte {
	if len(s) > 40 {
		return append(append(b, s[:40]...), "…"...)
	}
	return append(b, s...)
}
