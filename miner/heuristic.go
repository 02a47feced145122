package miner

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"arena/episode"
)

// HeuristicOptions configure the heuristic agent.
type HeuristicOptions struct {
	// Skill in [0, 1]: 1 is the full strategy. Lower skill reads less of
	// the request (no unit spellings or price tolerances below 0.9),
	// checks less (no detail views below 0.7, no price and service
	// filters below 0.5), searches fewer pages and shops, slips more
	// often and thinks less.
	Skill float64
}

// Heuristic is a rule-based shopping agent for natural-language requests.
// It is stateless: each step is decided from the episode view alone (the
// query and the validator's observations), so one value serves any number
// of concurrent episodes and a restarted miner would carry on where it
// stopped.
type Heuristic struct {
	skill float64
}

// NewHeuristic builds the agent.
func NewHeuristic(opts HeuristicOptions) (*Heuristic, error) {
	if opts.Skill < 0 || opts.Skill > 1 || math.IsNaN(opts.Skill) {
		return nil, fmt.Errorf("heuristic agent: skill %g out of range 0..1", opts.Skill)
	}
	return &Heuristic{skill: opts.Skill}, nil
}

// candidate is a product the agent has seen in search results.
type candidate struct {
	ID       string   `json:"product_id"`
	ShopID   string   `json:"shop_id"`
	Title    string   `json:"title"`
	Price    float64  `json:"price"`
	Services []string `json:"service"`
	Sold     int64    `json:"sold_count"`
}

// details is what view_product_information showed of a product.
type details struct {
	SKUOptions map[string]map[string]string `json:"sku_options"`
	Attributes map[string][]string          `json:"attributes"`
}

// searchKey names one find_product call: which item, within which shop
// ("" for the whole catalog), which page.
type searchKey struct {
	item int
	shop string
	page int
}

// knowledge is everything the history shows: searches and their hits,
// viewed details, and whether the answer was given.
type knowledge struct {
	hits        map[string]*candidate
	searches    map[searchKey][]string // hit ids in rank order
	info        map[string]*details
	recommended bool
}

func readKnowledge(t Task, v episode.EpisodeView) *knowledge {
	k := &knowledge{hits: map[string]*candidate{}, searches: map[searchKey][]string{}, info: map[string]*details{}}
	itemOf := map[string]int{}
	for i := len(t.Items) - 1; i >= 0; i-- {
		itemOf[t.Items[i].SearchQuery()] = i
	}
	for _, turn := range v.History {
		for i, call := range turn.Action.ToolCalls {
			if i >= len(turn.Results) || turn.Results[i].Error != nil {
				continue
			}
			res := turn.Results[i].Result
			switch call.Name {
			case "find_product":
				var args struct {
					Q      string `json:"q"`
					Page   int    `json:"page"`
					ShopID string `json:"shop_id"`
				}
				_ = json.Unmarshal(call.Parameters, &args)
				item, ok := itemOf[args.Q]
				if !ok {
					continue
				}
				var items []*candidate
				_ = json.Unmarshal(res, &items)
				ids := make([]string, 0, len(items))
				for _, c := range items {
					if c.ID == "" {
						continue
					}
					if k.hits[c.ID] == nil {
						k.hits[c.ID] = c
					}
					ids = append(ids, c.ID)
				}
				k.searches[searchKey{item, args.ShopID, args.Page}] = ids
			case "view_product_information":
				var infos []struct {
					ID string `json:"product_id"`
					details
				}
				_ = json.Unmarshal(res, &infos)
				for _, in := range infos {
					d := in.details
					k.info[in.ID] = &d
				}
			case "recommend_product":
				k.recommended = true
			}
		}
	}
	return k
}

// The skill's abilities.
func (h *Heuristic) filters() bool  { return h.skill >= 0.5 }
func (h *Heuristic) views() bool    { return h.skill >= 0.7 }
func (h *Heuristic) reader() reader { return reader{units: h.skill >= 0.9, around: h.skill >= 0.9} }
func (h *Heuristic) maxPages() int  { return 1 + int(h.skill*4+0.5) }

// maxShops bounds the shops tried for a same-shop task.
func (h *Heuristic) maxShops() int { return 1 + int(h.skill*30+0.5) }

// maxViews bounds the listings viewed per item and search scope.
const maxViews = 20

// scope is one item searched within one shop ("" for everywhere).
type scope struct {
	item int
	shop string
}

// itemState is what is known about an item within a scope, and the next
// call it needs, if any.
type itemState struct {
	ranked   []*candidate // hits in rank order, deduplicated
	eligible []*candidate // price and services fit, best match first
	// satisfying are the eligible listings that match the request best.
	satisfying []*candidate
	score      map[string]int // request words each listing matches
	search     map[string]any
	view       []string
}

// state works out an item's candidates within a scope and what to do next:
// search (more pages), view eligible hits, or nothing.
//
// Listings are judged by how many of the request's words they hold: in the
// title and, once viewed, in the attributes and the best variant. The
// listing that holds the most has what the shopper asked for, including a
// colour and a size in one variant; a near miss lacks one of them.
func (h *Heuristic) state(t Task, k *knowledge, s scope, more bool) itemState {
	w := t.Items[s.item]
	st := itemState{score: map[string]int{}}
	seen := map[string]bool{}
	pages, lastFull := 0, false
	for page := 1; page <= 5; page++ {
		ids, ok := k.searches[searchKey{s.item, s.shop, page}]
		if !ok {
			break
		}
		pages, lastFull = page, len(ids) == 10
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				st.ranked = append(st.ranked, k.hits[id])
			}
		}
	}
	bestTitle := 0
	for _, c := range st.ranked {
		if h.fitsListing(w, c) != "" {
			continue
		}
		st.eligible = append(st.eligible, c)
		bestTitle = max(bestTitle, matches(w, c, nil))
	}
	covered := map[string]bool{}
	for _, c := range st.eligible {
		var d *details
		if h.views() {
			d = k.info[c.ID]
			if d == nil && matches(w, c, nil) >= bestTitle-1 && len(st.view) < maxViews {
				st.view = append(st.view, c.ID)
			}
		}
		st.score[c.ID] = matches(w, c, d)
		for _, word := range matched(w, c, d) {
			covered[word] = true
		}
	}
	slices.SortStableFunc(st.eligible, func(a, b *candidate) int { return st.score[b.ID] - st.score[a.ID] })
	for _, c := range st.eligible {
		if st.score[c.ID] == st.score[st.eligible[0].ID] {
			st.satisfying = append(st.satisfying, c)
		}
	}
	best := 0
	if len(st.eligible) > 0 {
		best = st.score[st.eligible[0].ID]
	}
	switch {
	case pages == 0:
		st.search = h.searchArgs(w, s.shop, 1)
	case len(st.view) > 0:
		// Views come before more pages: the page seen may already hold
		// the answer.
	case (len(st.satisfying) == 0 || best < len(covered) || more) && lastFull && pages < h.maxPages():
		// No listing holds every word some listing holds: a fuller match
		// may rank lower.
		st.search = h.searchArgs(w, s.shop, pages+1)
	}
	return st
}

func (h *Heuristic) searchArgs(w ItemWish, shopID string, page int) map[string]any {
	args := map[string]any{"q": w.SearchQuery(), "page": page}
	if shopID != "" {
		args["shop_id"] = shopID
	}
	// Filters are exact and cut the near misses before paging; a weak
	// agent does not bother with them.
	if h.filters() {
		if pr := w.PriceArg(); pr != "" {
			args["price"] = pr
		}
		if len(w.Services) > 0 {
			args["service"] = strings.Join(w.Services, ",")
		}
	}
	return args
}

// fitsListing reports why a search hit does not fit an item's price and
// services, or "" when it fits (always, for an agent that does not check).
func (h *Heuristic) fitsListing(w ItemWish, c *candidate) string {
	if !h.filters() {
		return ""
	}
	if w.PriceHi > 0 && c.Price > w.PriceHi {
		return fmt.Sprintf("price %s is above %s", fmtPrice(c.Price), fmtPrice(w.PriceHi))
	}
	if w.PriceLo > 0 && c.Price < w.PriceLo {
		return fmt.Sprintf("price %s is below %s", fmtPrice(c.Price), fmtPrice(w.PriceLo))
	}
	for _, s := range w.Services {
		if !slices.Contains(c.Services, s) {
			return "it lacks " + s
		}
	}
	return ""
}

// stem folds a plural so "cases" matches "case".
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func addWords(set map[string]bool, s string) {
	for _, w := range words(s) {
		set[stem(w)] = true
	}
}

// matched lists the item's words the listing holds: in its title, and
// with details in its attributes (keys and values) and in the variant
// that holds the most.
func matched(w ItemWish, c *candidate, d *details) []string {
	base := map[string]bool{}
	addWords(base, c.Title)
	if d != nil {
		for k, vs := range d.Attributes {
			addWords(base, strings.ReplaceAll(k, "_", " "))
			for _, v := range vs {
				addWords(base, v)
			}
		}
	}
	hits := func(extra map[string]bool) []string {
		var out []string
		for _, word := range w.Words {
			if s := stem(word); base[s] || extra[s] {
				out = append(out, word)
			}
		}
		return out
	}
	best := hits(nil)
	if d != nil {
		for _, key := range sortedVariantKeys(d.SKUOptions) {
			extra := map[string]bool{}
			for k, v := range d.SKUOptions[key] {
				addWords(extra, strings.ReplaceAll(k, "_", " "))
				addWords(extra, v)
			}
			if got := hits(extra); len(got) > len(best) {
				best = got
			}
		}
	}
	return best
}

func matches(w ItemWish, c *candidate, d *details) int { return len(matched(w, c, d)) }

// sortedVariantKeys orders variant numbers ("1", "2", ..., "10").
func sortedVariantKeys(m map[string]map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		if x != y {
			return x - y
		}
		return strings.Compare(a, b)
	})
	return keys
}

// Step implements episode.Agent.
func (h *Heuristic) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	if act, ok := h.lookUp(&v); ok { // knowledge tasks: web_search first (knowledge.go)
		return act, nil
	}
	t := h.reader().task(v.Query)
	k := readKnowledge(t, v)
	n := len(v.History)
	stepsLeft := v.Limits.MaxSteps - n
	if k.recommended || stepsLeft <= 1 {
		status := "success"
		if !k.recommended {
			status = "failure"
		}
		think := "The recommendation is made; ending the task."
		if !k.recommended {
			think = "Out of steps before an answer; ending the task."
		}
		return episode.Action{Think: think, ToolCalls: calls(n, "terminate", map[string]any{"status": status})}, nil
	}
	rng := rand.New(rand.NewPCG(seed(v.EpisodeID), uint64(n)))
	p := h.plan(t, k, rng)
	maxCalls := v.Limits.MaxToolCalls
	if maxCalls <= 0 {
		maxCalls = episode.DefaultMaxToolCalls
	}
	// The last steps must leave room for the answer and terminate.
	if len(p.searches)+len(p.views) > 0 && stepsLeft > 2 {
		var tc []episode.ToolCall
		for _, s := range p.searches {
			if len(tc) < maxCalls {
				tc = append(tc, calls(n*10+len(tc), "find_product", s)...)
			}
		}
		if len(tc) == 0 {
			for ids := range slices.Chunk(p.views, 20) {
				if len(tc) < maxCalls {
					tc = append(tc, calls(n*10+len(tc), "view_product_information", map[string]any{"product_ids": strings.Join(ids, ",")})...)
				}
			}
		}
		return episode.Action{Think: p.think, ToolCalls: tc}, nil
	}
	answer, think := h.answer(t, k, p, rng)
	if len(answer) == 0 {
		return episode.Action{Think: think + " Nothing I found meets the request.", ToolCalls: calls(n, "terminate", map[string]any{"status": "failure"})}, nil
	}
	ids := make([]string, len(answer))
	for i, c := range answer {
		ids[i] = c.ID
	}
	return episode.Action{Think: think, ToolCalls: calls(n, "recommend_product", map[string]any{"product_ids": strings.Join(ids, ",")})}, nil
}

func calls(n int, name string, args map[string]any) []episode.ToolCall {
	raw, _ := json.Marshal(args)
	return []episode.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: name, Parameters: raw}}
}

// plan is the next batch of calls, or the per-item choices once nothing
// is left to look up.
type plan struct {
	searches []map[string]any
	views    []string
	think    string
	// choices holds, per item, the listings that match the request best;
	// others the remaining eligible listings, best first.
	choices, others [][]*candidate
	// score is how many request words each listing matches.
	score map[string]int
	// rejected holds, per item, listings that failed a check, with the
	// reason, for the comparison in the think text.
	rejected [][]string
	shopID   string
}

func (h *Heuristic) plan(t Task, k *knowledge, rng *rand.Rand) plan {
	sameShop := t.Kind == KindShop || t.Kind == KindVoucher && t.Voucher != nil && t.Voucher.SameShop
	if len(t.Items) < 2 {
		sameShop = false
	}
	p := plan{score: map[string]int{}}
	p.choices = make([][]*candidate, len(t.Items))
	p.others = make([][]*candidate, len(t.Items))
	p.rejected = make([][]string, len(t.Items))
	if !sameShop {
		// Searches go out before views (Step sends one kind per step), so
		// the think describes the kind that is sent.
		var searchNotes, viewNotes []string
		for i := range t.Items {
			st := h.state(t, k, scope{item: i}, false)
			h.collect(&p, t, k, i, st)
			if st.search != nil {
				p.searches = append(p.searches, st.search)
				searchNotes = append(searchNotes, fmt.Sprintf("item %d: searching %q page %v", i+1, st.search["q"], st.search["page"]))
			}
			p.views = append(p.views, st.view...)
			if len(st.view) > 0 {
				viewNotes = append(viewNotes, fmt.Sprintf("item %d: viewing %s to check %s", i+1, citeIDs(k, st.view, 4), wishList(t.Items[i])))
			}
		}
		if len(searchNotes) > 0 {
			viewNotes = searchNotes
		}
		p.think = h.progressThink(t, k, viewNotes)
		return p
	}
	// Same shop: find the first item everywhere, then look for the other
	// items inside each shop that has a fitting first item, in rank order,
	// several shops per step. Exactly which shop carries everything is
	// unknown, so when every shop so far lacks an item, the first item's
	// search goes a page deeper for more shops.
	st0 := h.state(t, k, scope{item: 0}, false)
	if st0.search != nil || len(st0.view) > 0 {
		h.collect(&p, t, k, 0, st0)
		if st0.search != nil {
			p.searches = append(p.searches, st0.search)
		}
		p.views = st0.view
		p.think = h.progressThink(t, k, []string{fmt.Sprintf("first I look for item 1 (%s) anywhere, then for the other items inside the shops that carry it", t.Items[0].Phrase())})
		return p
	}
	var shops []string
	for _, c := range st0.satisfying {
		if !slices.Contains(shops, c.ShopID) {
			shops = append(shops, c.ShopID)
		}
	}
	var tried, probing []string
	batch := plan{score: map[string]int{}}
	for _, sid := range shops[:min(len(shops), h.maxShops())] {
		choices := make([][]*candidate, len(t.Items))
		for _, c := range st0.satisfying {
			if c.ShopID == sid {
				choices[0] = append(choices[0], c)
			}
		}
		complete, pending := true, false
		var calls plan
		for i := 1; i < len(t.Items); i++ {
			st := h.state(t, k, scope{item: i, shop: sid}, false)
			if st.search != nil {
				calls.searches = append(calls.searches, st.search)
			}
			calls.views = append(calls.views, st.view...)
			for _, c := range st.satisfying {
				if c.ShopID == sid {
					choices[i] = append(choices[i], c)
				}
			}
			if len(choices[i]) == 0 {
				if st.search == nil && len(st.view) == 0 {
					complete = false
				} else {
					pending = true
				}
			}
		}
		switch {
		case !complete:
			tried = append(tried, sid)
		case pending:
			if len(batch.searches)+len(calls.searches) <= 8 && len(batch.views)+len(calls.views) <= 60 {
				batch.searches = append(batch.searches, calls.searches...)
				batch.views = append(batch.views, calls.views...)
				probing = append(probing, sid)
			}
		case t.Kind == KindVoucher && pickBasket(t.Voucher, choices, rng, 0) == nil:
			tried = append(tried, sid)
		default:
			p.choices, p.shopID = choices, sid
			return p
		}
	}
	if len(batch.searches)+len(batch.views) > 0 {
		batch.think = h.progressThink(t, k, []string{fmt.Sprintf("shops %s carry a fitting item 1; checking them for the other items%s",
			strings.Join(probing, ", "), triedNote(tried))})
		return batch
	}
	if more := h.state(t, k, scope{item: 0}, true); more.search != nil {
		p.searches = []map[string]any{more.search}
		p.think = h.progressThink(t, k, []string{fmt.Sprintf("no shop so far%s carries every item; looking at page %v of item 1 for more shops", triedNote(tried), more.search["page"])})
		return p
	}
	// No shop carries everything: answer the first item alone rather than
	// nothing, and say so.
	p.choices = make([][]*candidate, len(t.Items))
	p.choices[0] = st0.satisfying
	p.think = "No shop I checked" + triedNote(tried) + " carries every item."
	return p
}

func ids(cs []*candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func triedNote(tried []string) string {
	if len(tried) == 0 {
		return ""
	}
	return " (shops " + strings.Join(tried, ", ") + " lack an item)"
}

// collect records an item's choices and the reasons its other hits were
// rejected.
func (h *Heuristic) collect(p *plan, t Task, k *knowledge, i int, st itemState) {
	p.choices[i] = st.satisfying
	p.others[i] = st.eligible[len(st.satisfying):]
	for id, s := range st.score {
		p.score[id] = s
	}
	if !h.filters() {
		if len(p.choices[i]) == 0 {
			p.choices[i] = st.ranked
		}
		return
	}
	best := 0
	if len(st.satisfying) > 0 {
		best = st.score[st.satisfying[0].ID]
	}
	for _, c := range st.ranked {
		if len(p.rejected[i]) >= 3 {
			break
		}
		why := h.fitsListing(t.Items[i], c)
		if why == "" && st.score[c.ID] < best {
			why = "it lacks " + strings.Join(missing(t.Items[i], c, k.info[c.ID]), ", ")
		}
		if why != "" {
			p.rejected[i] = append(p.rejected[i], fmt.Sprintf("%s (%s, %s): %s", c.ID, clip(c.Title, 40), fmtPrice(c.Price), why))
		}
	}
}

// missing lists the item's words a listing does not hold.
func missing(w ItemWish, c *candidate, d *details) []string {
	have := matched(w, c, d)
	var out []string
	for _, word := range w.Words {
		if !slices.Contains(have, word) {
			out = append(out, strconv.Quote(word))
		}
	}
	return out[:min(len(out), 3)]
}

// answer picks one candidate per item and explains the choice.
func (h *Heuristic) answer(t Task, k *knowledge, p plan, rng *rand.Rand) ([]*candidate, string) {
	for i := range p.choices {
		if len(p.choices[i]) == 0 {
			if i == 0 || t.Kind == KindProduct {
				return nil, fmt.Sprintf("No listing fits item %d (%s).", i+1, t.Items[i].Phrase())
			}
			// A partial basket still earns partial credit for the items found.
			p.choices = p.choices[:i]
			break
		}
	}
	var basket []*candidate
	if t.Kind == KindVoucher && t.Voucher != nil {
		basket = pickBasket(t.Voucher, p.choices, rng, 1-h.skill)
	}
	if basket == nil {
		basket = make([]*candidate, len(p.choices))
		for i, cs := range p.choices {
			basket[i] = cs[0]
			// A weak agent often settles for one of the first listings.
			if pool := append(slices.Clone(cs), p.others[i]...); rng.Float64() < (1-h.skill)*0.6 {
				basket[i] = pool[rng.IntN(min(len(pool), 5))]
			}
		}
	}
	if h.skill < 0.5 {
		return basket, fmt.Sprintf("I recommend %s.", strings.Join(ids(basket), ", "))
	}
	var b strings.Builder
	for i, c := range basket {
		w := t.Items[i]
		fmt.Fprintf(&b, "Item %d (%s): %s, %q at %s from shop %s", i+1, w.Phrase(), c.ID, clip(c.Title, 60), fmtPrice(c.Price), c.ShopID)
		if d := k.info[c.ID]; d != nil {
			if a := citeAttrs(w, d); a != "" {
				b.WriteString(" with " + a)
			}
		}
		fmt.Fprintf(&b, " matches %d of the %d words I looked for and meets %s.", p.score[c.ID], len(w.Words), wishList(w))
		others := 0
		for _, o := range p.choices[i] {
			if o.ID != c.ID && others < 1 {
				others++
				fmt.Fprintf(&b, " It also beats %s (%s, %s), which fits as well but ranks lower for the query words.", o.ID, clip(o.Title, 40), fmtPrice(o.Price))
			}
		}
		if len(p.rejected[i]) > 0 {
			fmt.Fprintf(&b, " Rejected: %s.", strings.Join(p.rejected[i], "; "))
		}
		b.WriteString(" ")
	}
	if p.shopID != "" {
		fmt.Fprintf(&b, "All items come from shop %s. ", p.shopID)
	}
	if t.Kind == KindVoucher && t.Voucher != nil {
		b.WriteString(voucherMath(t.Voucher, basket))
	}
	return basket, strings.TrimSpace(b.String())
}

// pickBasket returns the first combination, in rank order, that fits the
// budget (with the voucher if needed), or nil. With probability sloppy a
// weak agent skips the arithmetic and takes the top candidates.
func pickBasket(v *VoucherRules, choices [][]*candidate, rng *rand.Rand, sloppy float64) []*candidate {
	if rng.Float64() < sloppy*0.7 {
		return nil
	}
	basket := make([]*candidate, len(choices))
	budgetTries := 5000
	var rec func(i int) bool
	rec = func(i int) bool {
		if budgetTries--; budgetTries < 0 {
			return false
		}
		if i == len(choices) {
			total, shops := 0.0, map[string]bool{}
			for _, c := range basket {
				total += c.Price
				shops[c.ShopID] = true
			}
			ok, _ := v.Fits(total, len(shops))
			return ok
		}
		for _, c := range choices[i][:min(len(choices[i]), 10)] {
			basket[i] = c
			if rec(i + 1) {
				return true
			}
		}
		return false
	}
	if rec(0) {
		return basket
	}
	return nil
}

// voucherMath states the basket's arithmetic against the budget.
func voucherMath(v *VoucherRules, basket []*candidate) string {
	total, shops := 0.0, map[string]bool{}
	prices := make([]string, len(basket))
	for i, c := range basket {
		total += c.Price
		shops[c.ShopID] = true
		prices[i] = fmtPrice(c.Price)
	}
	total = math.Round(total*100) / 100
	s := fmt.Sprintf("Total %s = %s against a budget of %s.", strings.Join(prices, " + "), fmtPrice(total), fmtPrice(v.Budget))
	ok, paid := v.Fits(total, len(shops))
	switch {
	case total <= v.Budget:
		s += " It fits without the voucher."
	case ok:
		disc := fmt.Sprintf("a fixed %s off", fmtPrice(v.FaceValue))
		if !v.Fixed {
			disc = fmt.Sprintf("%s%% off capped at %s", fmtPrice(math.Round(v.Discount*10000)/100), fmtPrice(v.Cap))
		}
		s += fmt.Sprintf(" The total reaches the voucher threshold %s, so %s brings it to %s, within the budget.", fmtPrice(v.Threshold), disc, fmtPrice(math.Round(paid*100)/100))
	default:
		s += " Even with the voucher it stays over budget; it is the closest basket I found."
	}
	return s
}

// progressThink describes the request and what the agent does next.
func (h *Heuristic) progressThink(t Task, k *knowledge, notes []string) string {
	if h.skill < 0.5 {
		return "Searching."
	}
	var b strings.Builder
	if len(k.searches) == 0 {
		fmt.Fprintf(&b, "A %s task with %d item(s):", t.Kind, len(t.Items))
		for i, w := range t.Items {
			fmt.Fprintf(&b, " (%d) %s, %s;", i+1, w.Phrase(), wishList(w))
		}
		if v := t.Voucher; v != nil {
			fmt.Fprintf(&b, " budget %s, voucher threshold %s", fmtPrice(v.Budget), fmtPrice(v.Threshold))
			if v.Fixed {
				fmt.Fprintf(&b, ", %s off", fmtPrice(v.FaceValue))
			} else {
				fmt.Fprintf(&b, ", %s%% off capped at %s", fmtPrice(math.Round(v.Discount*10000)/100), fmtPrice(v.Cap))
			}
			if v.SameShop {
				b.WriteString(", same shop only")
			}
			b.WriteString(";")
		}
		b.WriteString(" ")
	} else {
		fmt.Fprintf(&b, "So far %d listings seen and %d viewed. ", len(k.hits), len(k.info))
	}
	b.WriteString(strings.Join(notes, "; "))
	b.WriteString(".")
	return b.String()
}

func wishList(w ItemWish) string {
	var parts []string
	if pr := w.PriceArg(); pr != "" {
		parts = append(parts, "price "+pr)
	}
	if len(w.Services) > 0 {
		parts = append(parts, strings.Join(w.Services, "+"))
	}
	if len(w.Words) > 0 {
		parts = append(parts, fmt.Sprintf("the words %q", strings.Join(w.Words, " ")))
	}
	if len(parts) == 0 {
		return "the request"
	}
	return strings.Join(parts, ", ")
}

func citeIDs(k *knowledge, ids []string, n int) string {
	parts := make([]string, 0, n)
	for _, id := range ids[:min(len(ids), n)] {
		if c := k.hits[id]; c != nil {
			parts = append(parts, fmt.Sprintf("%s at %s from shop %s", id, fmtPrice(c.Price), c.ShopID))
		}
	}
	if len(ids) > n {
		parts = append(parts, fmt.Sprintf("and %d more", len(ids)-n))
	}
	return strings.Join(parts, ", ")
}

// citeAttrs quotes the viewed attributes and options whose values the
// request names.
func citeAttrs(w ItemWish, d *details) string {
	wanted := map[string]bool{}
	for _, word := range w.Words {
		wanted[stem(word)] = true
	}
	names := func(v string) bool {
		for _, word := range words(v) {
			if wanted[stem(word)] {
				return true
			}
		}
		return false
	}
	var out []string
	for _, key := range sortedKeys(d.Attributes) {
		for _, v := range d.Attributes[key] {
			if names(v) {
				out = append(out, key+": "+v)
			}
		}
	}
	for _, n := range sortedVariantKeys(d.SKUOptions) {
		for _, key := range sortedKeys(d.SKUOptions[n]) {
			if v := d.SKUOptions[n][key]; names(v) && !slices.Contains(out, "option "+key+": "+v) {
				out = append(out, "option "+key+": "+v)
			}
		}
	}
	return strings.Join(out[:min(len(out), 4)], ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func fmtPrice(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func seed(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
