package scoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"arena/episode"
	"arena/knowledge"
	"arena/shop"
	"arena/suite"
)

// Answer is one recommended product, in the order the agent gave them.
// Product is the catalog document for ID, or nil when the id is unknown
// (it then satisfies no constraint, though a matching id still counts).
type Answer struct {
	ID      string
	Product *shop.Product
}

// Input is everything the rule metrics look at. Only Problem is required.
type Input struct {
	Problem *suite.Problem
	// Answers are the recommended products in order.
	Answers []Answer
	// Trajectory, if set, gives format and length, and a violation ending
	// (episode.EndReason.MinerFault) zeroes success.
	Trajectory *episode.Trajectory
	// Observed are the product ids that tools returned to this agent in
	// this trajectory (see ObservedIDs). Nil skips the grounding check; a
	// non-nil set makes any answer outside it ungrounded.
	Observed map[string]bool
}

// Options configure scoring. The zero value uses Lexical title matching.
type Options struct {
	Titles TitleMatcher
}

// ItemScore is the score of one position of a multi-item answer.
type ItemScore struct {
	Position    int      `json:"position"` // 1-based
	Target      string   `json:"target"`
	Recommended string   `json:"recommended,omitempty"`
	GT          bool     `json:"gt"`
	Hits        int      `json:"hits"`
	Constraints int      `json:"constraints"`
	Rule        float64  `json:"rule"`
	Failed      []string `json:"failed,omitempty"` // unmet constraints, readable
	// Variant is the 1-based SKU variant chosen as best, 0 if none.
	Variant int `json:"variant,omitempty"`
}

// Metrics are the rule metrics of one answer.
type Metrics struct {
	Type    suite.Type `json:"type"`
	GT      float64    `json:"gt"`
	Rule    float64    `json:"rule"`
	Shop    float64    `json:"shop"`
	Budget  float64    `json:"budget"`
	Format  float64    `json:"format"`
	Length  float64    `json:"length"`
	Success bool       `json:"success"`
	// HasTrajectory says whether Format and Length were computed.
	HasTrajectory bool `json:"has_trajectory"`
	// Total is the basket's price before any voucher; AfterVoucher after
	// it (equal to Total when no voucher applies).
	Total          float64     `json:"total"`
	AfterVoucher   float64     `json:"after_voucher"`
	VoucherApplied bool        `json:"voucher_applied"`
	Items          []ItemScore `json:"items"`
	// Ungrounded lists answered ids no tool returned to the agent.
	Ungrounded []string `json:"ungrounded,omitempty"`
	// Reasons explains zeroed scores (ungrounded, violation, missing items).
	Reasons []string `json:"reasons,omitempty"`
	Matcher string   `json:"title_matcher"`
}

// ASR is success as a number (1 or 0).
func (m *Metrics) ASR() float64 {
	if m.Success {
		return 1
	}
	return 0
}

// budgetEpsilon absorbs float rounding in sums of prices.
const budgetEpsilon = 1e-6

// Rules computes the rule metrics of in. It fails only on unusable input
// (no problem, no reward items) or a title matcher error.
func Rules(ctx context.Context, in Input, opt Options) (Metrics, error) {
	p := in.Problem
	if p == nil {
		return Metrics{}, errors.New("scoring: no problem")
	}
	items := p.Reward.Items
	if len(items) == 0 {
		return Metrics{}, fmt.Errorf("scoring: problem %q has no reward items", p.ID)
	}
	if p.Type == suite.TypeVoucher && p.Voucher == nil {
		return Metrics{}, fmt.Errorf("scoring: voucher problem %q has no voucher", p.ID)
	}
	if p.Type == suite.TypeKnowledge && strings.TrimSpace(p.Knowledge) == "" {
		return Metrics{}, fmt.Errorf("scoring: knowledge problem %q has no knowledge attribute", p.ID)
	}
	titles := opt.Titles
	if titles == nil {
		titles = Lexical{}
	}
	m := Metrics{Type: p.Type, Matcher: titles.Name(), Items: make([]ItemScore, len(items))}

	if in.Trajectory != nil {
		m.HasTrajectory = true
		m.Format = Format(in.Trajectory)
		m.Length = Length(in.Trajectory)
	}

	for i := range items {
		var a Answer
		if i < len(in.Answers) {
			a = in.Answers[i]
		}
		s, err := scoreItem(ctx, titles, &items[i], a, p.Knowledge)
		if err != nil {
			return Metrics{}, fmt.Errorf("scoring: item %d: %w", i+1, err)
		}
		s.Position = i + 1
		m.Items[i] = s
		if s.GT {
			m.GT++
		}
		m.Rule += s.Rule
	}
	n := float64(len(items))
	m.GT /= n
	m.Rule /= n

	found := len(in.Answers) >= len(items)
	shopID := ""
	for i := range items {
		if i >= len(in.Answers) || in.Answers[i].Product == nil {
			found = false
			break
		}
		m.Total += in.Answers[i].Product.Price
		sid := in.Answers[i].Product.ShopID
		if i == 0 {
			shopID = sid
		} else if sid != shopID {
			shopID = ""
		}
	}
	oneShop := found && shopID != ""
	if oneShop {
		m.Shop = 1
	}
	m.AfterVoucher = m.Total
	if !found {
		m.Total, m.AfterVoucher = 0, 0
		m.Reasons = append(m.Reasons, fmt.Sprintf("%d of %d items answered with a known product", knownAnswers(in.Answers, len(items)), len(items)))
	}
	m.Budget = budget(p.Voucher, found, oneShop, &m)

	switch p.Type {
	case suite.TypeProduct, suite.TypeKnowledge:
		m.Success = m.Rule == 1
	case suite.TypeShop:
		m.Success = m.Rule == 1 && m.Shop == 1
	case suite.TypeVoucher:
		m.Success = m.Rule == 1 && m.Budget == 1
	default:
		return Metrics{}, fmt.Errorf("scoring: unknown problem type %q", p.Type)
	}

	if in.Trajectory != nil && in.Trajectory.EndReason.MinerFault() {
		m.zero(fmt.Sprintf("episode ended by violation %q", in.Trajectory.EndReason))
	}
	if in.Observed != nil {
		for _, a := range in.Answers {
			if !in.Observed[a.ID] {
				m.Ungrounded = append(m.Ungrounded, a.ID)
			}
		}
		if len(m.Ungrounded) > 0 {
			m.zero(fmt.Sprintf("ungrounded: product id(s) %s never returned by a tool in this trajectory", strings.Join(quoteAll(m.Ungrounded), ", ")))
		}
	}
	return m, nil
}

// zero clears the outcome scores and records why. Format and length stay
// as information.
func (m *Metrics) zero(reason string) {
	m.GT, m.Rule, m.Shop, m.Budget, m.Success = 0, 0, 0, 0, false
	for i := range m.Items {
		m.Items[i].GT, m.Items[i].Rule, m.Items[i].Hits = false, 0, 0
	}
	m.Reasons = append(m.Reasons, reason)
}

func knownAnswers(as []Answer, n int) int {
	k := 0
	for i := 0; i < len(as) && i < n; i++ {
		if as[i].Product != nil {
			k++
		}
	}
	return k
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// budget is 1 when the basket fits: with no voucher there is no budget
// to break; otherwise every item must be found and either the total is
// within budget, or the voucher applies (platform, or shop with one shop;
// total ≥ threshold) and the discounted total is within budget.
func budget(v *suite.Voucher, found, oneShop bool, m *Metrics) float64 {
	if v == nil {
		return 1
	}
	if !found {
		return 0
	}
	eligible := v.VoucherType == suite.VoucherPlatform || (v.VoucherType == suite.VoucherShop && oneShop)
	if eligible {
		if after, ok := v.Apply(m.Total); ok {
			m.AfterVoucher, m.VoucherApplied = after, true
		}
	}
	if m.Total <= v.Budget+budgetEpsilon || (m.VoucherApplied && m.AfterVoucher <= v.Budget+budgetEpsilon) {
		return 1
	}
	return 0
}

// scoreItem scores one position. A knowledge problem's attribute is one
// more constraint: the product's title or description contains it, as
// ShoppingBench's web_rule_score_reward checks its key attribute.
func scoreItem(ctx context.Context, titles TitleMatcher, it *suite.Item, a Answer, attribute string) (ItemScore, error) {
	s := ItemScore{Target: it.ProductID, Recommended: a.ID}
	s.GT = a.ID != "" && a.ID == it.ProductID
	pairs := pairsOf(it)
	s.Constraints = len(it.Title) + len(it.Price) + len(it.Service) + len(pairs)
	if attribute != "" {
		s.Constraints++
	}
	if a.Product == nil {
		if a.ID == "" {
			s.Failed = append(s.Failed, "no recommendation at this position")
		} else {
			s.Failed = append(s.Failed, fmt.Sprintf("product %q is not in the catalog", a.ID))
		}
	} else {
		pr := a.Product
		for _, ph := range it.Title {
			ok, err := titles.MatchTitle(ctx, ph, pr.Title)
			if err != nil {
				return s, fmt.Errorf("title %q: %w", ph, err)
			}
			if ok {
				s.Hits++
			} else {
				s.Failed = append(s.Failed, fmt.Sprintf("title %q", ph))
			}
		}
		for _, b := range it.Price {
			if PriceOK(b, pr.Price) {
				s.Hits++
			} else {
				s.Failed = append(s.Failed, fmt.Sprintf("price %g not %s", pr.Price, describeBound(b)))
			}
		}
		for _, name := range it.Service {
			if bit, ok := shop.ParseService(name); ok && pr.Service.Has(bit) {
				s.Hits++
			} else {
				s.Failed = append(s.Failed, fmt.Sprintf("service %q", name))
			}
		}
		if attribute != "" {
			if knowledge.ContainsFold(pr.Title, attribute) || knowledge.ContainsFold(pr.Description, attribute) {
				s.Hits++
			} else {
				s.Failed = append(s.Failed, fmt.Sprintf("knowledge %q in neither title nor description", attribute))
			}
		}
		hits, variant, missed := BestVariant(pairs, pr)
		s.Hits += hits
		s.Variant = variant
		for _, p := range missed {
			s.Failed = append(s.Failed, fmt.Sprintf("%s %s=%q", p.Source, p.Key, p.Value))
		}
	}
	switch {
	case s.GT:
		s.Rule = 1
	case s.Constraints > 0:
		s.Rule = float64(s.Hits) / float64(s.Constraints)
	}
	return s, nil
}

// PriceOK reports whether price satisfies b: "less than" is price ≤ hi,
// "greater than" is price ≥ lo, "between" is lo ≤ price ≤ hi. A bound
// missing a needed end fails; NaN never satisfies.
func PriceOK(b suite.PriceBound, price float64) bool {
	if math.IsNaN(price) {
		return false
	}
	switch b.Op {
	case suite.OpLessThan:
		return b.Hi != nil && price <= *b.Hi
	case suite.OpGreaterThan:
		return b.Lo != nil && price >= *b.Lo
	case suite.OpBetween:
		return b.Lo != nil && b.Hi != nil && price >= *b.Lo && price <= *b.Hi
	}
	return false
}

func describeBound(b suite.PriceBound) string {
	f := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprintf("%g", *p)
	}
	return fmt.Sprintf("%s [%s, %s]", b.Op, f(b.Lo), f(b.Hi))
}

// Pair is one SKU option or attribute value a product must have.
type Pair struct {
	Source string // "sku" or "attribute": where the constraint was stated
	Key    string
	Value  string
}

// pairsOf flattens an item's sku_options and attributes constraints into
// key/value pairs, one constraint each.
func pairsOf(it *suite.Item) []Pair {
	var out []Pair
	for _, m := range it.SKUOptions {
		for _, k := range sortedKeys(m) {
			out = append(out, Pair{"sku", k, m[k]})
		}
	}
	for _, m := range it.Attributes {
		for _, k := range sortedKeys(m) {
			for _, v := range m[k] {
				out = append(out, Pair{"attribute", k, v})
			}
		}
	}
	return out
}

// BestVariant scores the SKU/attribute pairs against p: each pair is met
// by the chosen SKU variant's option or by the product's attributes
// (keys and values compared case-insensitively, trimmed). The variant is
// the one meeting the most pairs (the first on ties); hits counts the met
// pairs, variant is its 1-based number (0 when p has no variants) and
// missed lists the unmet pairs.
func BestVariant(pairs []Pair, p *shop.Product) (hits, variant int, missed []Pair) {
	if len(pairs) == 0 {
		return 0, 0, nil
	}
	attrOK := make([]bool, len(pairs))
	for i, pr := range pairs {
		attrOK[i] = hasAttribute(p, pr.Key, pr.Value)
	}
	count := func(sku shop.SKU) int {
		n := 0
		for i, pr := range pairs {
			if attrOK[i] || skuHas(sku, pr.Key, pr.Value) {
				n++
			}
		}
		return n
	}
	best, bestN := -1, count(nil)
	for i, sku := range p.SKUOptions {
		if n := count(sku); n > bestN || best < 0 && n == bestN && i == 0 {
			best, bestN = i, n
		}
	}
	var chosen shop.SKU
	if best >= 0 {
		chosen = p.SKUOptions[best]
		variant = best + 1
	}
	for i, pr := range pairs {
		if !attrOK[i] && !skuHas(chosen, pr.Key, pr.Value) {
			missed = append(missed, pr)
		}
	}
	return bestN, variant, missed
}

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func skuHas(sku shop.SKU, key, value string) bool {
	for _, o := range sku {
		if norm(o.Key) == norm(key) && norm(o.Value) == norm(value) {
			return true
		}
	}
	return false
}

func hasAttribute(p *shop.Product, key, value string) bool {
	for _, a := range p.Attributes {
		if norm(a.Key) != norm(key) {
			continue
		}
		for _, v := range a.Values {
			if norm(v) == norm(value) {
				return true
			}
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// Format is the mean over steps of 1 for a well-formatted step, else 0.
// A step is well formatted when it has exactly one think (non-empty, with
// no second <think> block inside), at least one tool call or a response,
// and every call is well formed: an id, a name, parameters that are a
// JSON object, and no unknown_tool or bad_arguments error observed for
// it. No steps score 0.
func Format(t *episode.Trajectory) float64 {
	if t == nil || len(t.Steps) == 0 {
		return 0
	}
	good := 0
	for i := range t.Steps {
		if stepWellFormed(&t.Steps[i]) {
			good++
		}
	}
	return float64(good) / float64(len(t.Steps))
}

func stepWellFormed(s *episode.StepRecord) bool {
	th := strings.TrimSpace(s.Think)
	if th == "" || countFold(th, "<think>") > 1 || countFold(th, "</think>") > 1 {
		return false
	}
	if len(s.ToolCalls) == 0 && (s.Response == nil || strings.TrimSpace(*s.Response) == "") {
		return false
	}
	for _, c := range s.ToolCalls {
		if c.ID == "" || strings.TrimSpace(c.Name) == "" || !isJSONObject(c.Parameters) {
			return false
		}
		for _, r := range s.Results {
			if r.ToolCallID == c.ID && r.Error != nil &&
				(r.Error.Code == string(shop.CodeUnknownTool) || r.Error.Code == string(shop.CodeBadArguments)) {
				return false
			}
		}
	}
	return true
}

// countFold counts the non-overlapping ASCII-case-insensitive
// occurrences of tag (which starts with '<') in s, without allocating.
func countFold(s, tag string) int {
	n := 0
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || len(s)-i < len(tag) {
			return n
		}
		if strings.EqualFold(s[i:i+len(tag)], tag) {
			n++
			s = s[i+len(tag):]
		} else {
			s = s[i+1:]
		}
	}
}

// isJSONObject reports whether b is a valid JSON object.
func isJSONObject(b json.RawMessage) bool {
	b = skipSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// Length is 1/steps if the episode ended with terminate, else 0.
func Length(t *episode.Trajectory) float64 {
	if t == nil || len(t.Steps) == 0 || t.EndReason != episode.ReasonTerminated {
		return 0
	}
	return 1 / float64(len(t.Steps))
}

// Coefficient is ORO's reasoning coefficient c(q): 1 for q ≥ 0.8, else
// 0.3 + 0.7·q/0.8. q is clamped to [0, 1]; NaN counts as 0.
func Coefficient(q float64) float64 {
	switch {
	case math.IsNaN(q) || q < 0:
		q = 0
	case q > 1:
		q = 1
	}
	if q >= 0.8 {
		return 1
	}
	return 0.3 + 0.7*q/0.8
}

// Final is success × c(q): the score of one trajectory.
func Final(m *Metrics, q float64) float64 {
	return m.ASR() * Coefficient(q)
}

// LookupAnswers looks recommended ids up in the catalog, in order; an id
// the catalog lacks keeps a nil Product (and scores as a wrong item).
func LookupAnswers(cat *shop.Catalog, ids []string) []Answer {
	out := make([]Answer, len(ids))
	for i, id := range ids {
		out[i].ID = id
		if p, ok := cat.Product(id); ok {
			out[i].Product = p
		}
	}
	return out
}
