package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Type is a problem's task type.
type Type string

// Problem types, as ShoppingBench names its task files (its knowledge
// tasks are web_simpleqa).
const (
	TypeProduct   Type = "product"
	TypeShop      Type = "shop"
	TypeVoucher   Type = "voucher"
	TypeKnowledge Type = "knowledge"
)

// Types lists the types the catalog Generator makes, in a fixed order.
// Knowledge problems also need a web corpus and come from a
// KnowledgeGenerator; AllTypes includes them.
func Types() []Type { return []Type{TypeProduct, TypeShop, TypeVoucher} }

// AllTypes lists every problem type in a fixed order.
func AllTypes() []Type { return append(Types(), TypeKnowledge) }

// ParseType accepts a type name in any case ("Product" is ORO's spelling).
func ParseType(s string) (Type, error) {
	switch t := Type(strings.ToLower(strings.TrimSpace(s))); t {
	case TypeProduct, TypeShop, TypeVoucher, TypeKnowledge:
		return t, nil
	}
	return "", fmt.Errorf("unknown problem type %q: want product, shop, voucher or knowledge", s)
}

// Difficulty grades a problem.
type Difficulty string

// Difficulties.
const (
	Easy   Difficulty = "easy"
	Medium Difficulty = "medium"
	Hard   Difficulty = "hard"
)

// ParseDifficulty accepts easy, medium or hard in any case; "" is allowed
// (ungraded).
func ParseDifficulty(s string) (Difficulty, error) {
	switch d := Difficulty(strings.ToLower(strings.TrimSpace(s))); d {
	case "", Easy, Medium, Hard:
		return d, nil
	}
	return "", fmt.Errorf("unknown difficulty %q: want easy, medium or hard", s)
}

// Price bound operators, spelled as in ShoppingBench.
const (
	OpBetween     = "between"
	OpLessThan    = "less than"
	OpGreaterThan = "greater than"
)

// PriceBound is one price constraint. In JSON it is {"between": [lo, hi]},
// {"greater than": [lo, null]} or {"less than": [null, hi]}.
type PriceBound struct {
	Op     string
	Lo, Hi *float64
}

// Contains reports whether price satisfies the bound (inclusive, as
// find_product's filter is).
func (b PriceBound) Contains(price float64) bool {
	return (b.Lo == nil || price >= *b.Lo) && (b.Hi == nil || price <= *b.Hi)
}

// Filter is the bound as find_product's price argument ("lo-hi", "lo-",
// "-hi").
func (b PriceBound) Filter() string {
	f := func(p *float64) string {
		if p == nil {
			return ""
		}
		return formatNumber(*p)
	}
	return f(b.Lo) + "-" + f(b.Hi)
}

// MarshalJSON writes {"op": [lo, hi]}.
func (b PriceBound) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string][2]*float64{b.Op: {b.Lo, b.Hi}})
}

// UnmarshalJSON reads {"op": [lo, hi]}.
func (b *PriceBound) UnmarshalJSON(data []byte) error {
	var m map[string][]*float64
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("price bound: %w", err)
	}
	if len(m) != 1 {
		return fmt.Errorf("price bound: want one operator, got %d", len(m))
	}
	for op, v := range m {
		switch op {
		case OpBetween, OpLessThan, OpGreaterThan:
		default:
			return fmt.Errorf("price bound: unknown operator %q", op)
		}
		if len(v) != 2 {
			return fmt.Errorf("price bound %q: want [lo, hi], got %d values", op, len(v))
		}
		*b = PriceBound{Op: op, Lo: v[0], Hi: v[1]}
	}
	return nil
}

// Item is the ground truth for one requested product: the target id and
// the constraints a recommended product must satisfy. Nil lists are absent
// in JSON; empty lists are kept (ShoppingBench has "service": []).
type Item struct {
	ProductID  string
	Title      []string
	SKUOptions []map[string]string
	Attributes []map[string][]string
	Service    []string
	Price      []PriceBound
	// Extra keeps fields this package does not interpret (ShoppingBench's
	// knowledge tasks carry the whole product), so imports round-trip.
	Extra map[string]json.RawMessage
}

// MarshalJSON writes the fields in ShoppingBench's order, then Extra.
func (it Item) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	put := func(key string, v any, present bool) error {
		if !present {
			return nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("item %s: %w", key, err)
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(b)
		return nil
	}
	if err := errors.Join(
		put("product_id", it.ProductID, true),
		put("title", it.Title, it.Title != nil),
		put("sku_options", it.SKUOptions, it.SKUOptions != nil),
		put("attributes", it.Attributes, it.Attributes != nil),
		put("service", it.Service, it.Service != nil),
		put("price", it.Price, it.Price != nil),
	); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(it.Extra) {
		if err := put(k, it.Extra[k], true); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads an item, keeping unknown fields in Extra.
func (it *Item) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	var out Item
	present := map[string]bool{}
	get := func(key string, v any) error {
		raw, ok := m[key]
		if !ok {
			return nil
		}
		present[key] = true
		delete(m, key)
		if err := json.Unmarshal(raw, v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	if err := errors.Join(
		get("product_id", &out.ProductID),
		get("title", &out.Title),
		get("sku_options", &out.SKUOptions),
		get("attributes", &out.Attributes),
		get("service", &out.Service),
		get("price", &out.Price),
	); err != nil {
		return err
	}
	// A present-but-empty list must stay non-nil to round-trip.
	if present["title"] {
		out.Title = nonNil(out.Title)
	}
	if present["sku_options"] {
		out.SKUOptions = nonNil(out.SKUOptions)
	}
	if present["attributes"] {
		out.Attributes = nonNil(out.Attributes)
	}
	if present["service"] {
		out.Service = nonNil(out.Service)
	}
	if present["price"] {
		out.Price = nonNil(out.Price)
	}
	if len(m) > 0 {
		out.Extra = m
	}
	*it = out
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Reward is the ground truth of a problem: one item (a JSON object, as in
// ShoppingBench's product tasks) or a list of items (shop and voucher
// tasks, even with one item).
type Reward struct {
	Items []Item
	// List records whether the JSON form is a list.
	List bool
}

// MarshalJSON writes an object or a list.
func (r Reward) MarshalJSON() ([]byte, error) {
	if !r.List && len(r.Items) == 1 {
		return json.Marshal(r.Items[0])
	}
	return json.Marshal(nonNil(r.Items))
}

// UnmarshalJSON reads an object or a list.
func (r *Reward) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var items []Item
		if err := json.Unmarshal(data, &items); err != nil {
			return fmt.Errorf("reward: %w", err)
		}
		*r = Reward{Items: items, List: true}
		return nil
	}
	var it Item
	if err := json.Unmarshal(data, &it); err != nil {
		return fmt.Errorf("reward: %w", err)
	}
	*r = Reward{Items: []Item{it}}
	return nil
}

// Voucher types and discount types.
const (
	VoucherPlatform    = "platform"
	VoucherShop        = "shop"
	DiscountFixed      = "fixed"
	DiscountPercentage = "percentage"
)

// Voucher is a voucher task's rules and ground truth. FaceValue is set for
// fixed discounts; Discount (a fraction) and Cap for percentage discounts;
// the others are null in JSON, as in ShoppingBench.
type Voucher struct {
	VoucherType       string   `json:"voucher_type"`
	Threshold         float64  `json:"threshold"`
	DiscountType      string   `json:"discount_type"`
	FaceValue         *float64 `json:"face_value"`
	Discount          *float64 `json:"discount"`
	Cap               *float64 `json:"cap"`
	PriceAfterVoucher float64  `json:"price_after_voucher"`
	Budget            float64  `json:"budget"`
}

// Apply returns the price of a basket totalling total after the voucher,
// and whether the voucher applies (total above the threshold). Percentage
// discounts are capped: max(total·(1−discount), total − cap).
func (v *Voucher) Apply(total float64) (float64, bool) {
	if total < v.Threshold {
		return total, false
	}
	switch v.DiscountType {
	case DiscountFixed:
		if v.FaceValue == nil {
			return total, false
		}
		return total - *v.FaceValue, true
	case DiscountPercentage:
		if v.Discount == nil {
			return total, false
		}
		after := total * (1 - *v.Discount)
		if v.Cap != nil {
			after = math.Max(after, total-*v.Cap)
		}
		return after, true
	}
	return total, false
}

// PublicVoucher is the voucher as a miner sees it: the rules, not the
// expected price.
type PublicVoucher struct {
	VoucherType  string   `json:"voucher_type"`
	Threshold    float64  `json:"threshold"`
	DiscountType string   `json:"discount_type"`
	FaceValue    *float64 `json:"face_value"`
	Discount     *float64 `json:"discount"`
	Cap          *float64 `json:"cap"`
	Budget       float64  `json:"budget"`
}

// Problem is one task with its ground truth. Query, Reward and Voucher are
// ShoppingBench's fields; the rest is arena's bookkeeping.
type Problem struct {
	ID         string     `json:"id"`
	Type       Type       `json:"type"`
	Difficulty Difficulty `json:"difficulty,omitempty"`
	Cluster    string     `json:"cluster,omitempty"`
	// Seed is the generator stream that made the problem (0 for imports).
	Seed    uint64   `json:"seed,omitempty"`
	Query   string   `json:"query"`
	Reward  Reward   `json:"reward"`
	Voucher *Voucher `json:"voucher,omitempty"`
	// Knowledge is a knowledge problem's Knowledge_Attribute: the fact the
	// query asks for, which the recommended product's title or
	// description must contain.
	Knowledge string `json:"knowledge_attribute,omitempty"`
	// Targets are the reward's product ids, in request order.
	Targets []string `json:"targets"`
	// Title is ORO's display name ("Product 1"), kept for round trips.
	Title string `json:"title,omitempty"`
	// Source says where an imported problem came from (file:line).
	Source string `json:"source,omitempty"`
	// Paraphrase is set when a model wrote Query (see Paraphraser).
	Paraphrase *Paraphrase `json:"paraphrase,omitempty"`
	// Extra keeps top-level fields this package does not interpret.
	Extra map[string]json.RawMessage `json:"-"`
}

// problemJSON breaks the MarshalJSON recursion.
type problemJSON Problem

var problemFields = map[string]bool{"id": true, "type": true, "difficulty": true, "cluster": true, "seed": true,
	"query": true, "reward": true, "voucher": true, "knowledge_attribute": true, "targets": true, "title": true, "source": true, "paraphrase": true}

// MarshalJSON writes the problem with Extra's fields appended.
func (p Problem) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(problemJSON(p))
	if err != nil {
		return nil, err
	}
	return appendExtra(b, p.Extra)
}

// UnmarshalJSON reads a problem, keeping unknown fields in Extra.
func (p *Problem) UnmarshalJSON(data []byte) error {
	var pj problemJSON
	if err := json.Unmarshal(data, &pj); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for k := range problemFields {
		delete(m, k)
	}
	pj.Extra = nil
	if len(m) > 0 {
		pj.Extra = m
	}
	*p = Problem(pj)
	return nil
}

// appendExtra splices extra fields into the JSON object b.
func appendExtra(b []byte, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		return b, nil
	}
	b = b[:len(b)-1]
	for _, k := range sortedKeys(extra) {
		kb, _ := json.Marshal(k)
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, kb...)
		b = append(b, ':')
		var c bytes.Buffer
		if err := json.Compact(&c, extra[k]); err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		b = append(b, c.Bytes()...)
	}
	return append(b, '}'), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ContentID is the problem's stable id: a hash of what defines the task
// (type, query, reward, voucher), not of bookkeeping such as the cluster,
// the difficulty grade or the seed. The same task imported twice, or
// generated twice, gets the same id.
func (p *Problem) ContentID() (string, error) {
	body, err := json.Marshal(struct {
		Type      Type     `json:"type"`
		Query     string   `json:"query"`
		Reward    Reward   `json:"reward"`
		Voucher   *Voucher `json:"voucher"`
		Knowledge string   `json:"knowledge_attribute,omitempty"`
	}{p.Type, p.Query, p.Reward, p.Voucher, p.Knowledge})
	if err != nil {
		return "", fmt.Errorf("problem id: %w", err)
	}
	sum := sha256.Sum256(body)
	return "p" + hex.EncodeToString(sum[:10]), nil
}

// Finish fills the derived fields (Targets, ID) and validates the problem.
func (p *Problem) Finish() error {
	p.Targets = p.Targets[:0]
	for _, it := range p.Reward.Items {
		p.Targets = append(p.Targets, it.ProductID)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	id, err := p.ContentID()
	if err != nil {
		return err
	}
	p.ID = id
	return nil
}

// Validate checks that the problem is usable: a type, a query, items with
// product ids (exactly one for product and knowledge problems), a voucher
// exactly for voucher problems and a knowledge attribute exactly for
// knowledge problems.
func (p *Problem) Validate() error {
	var errs []error
	if _, err := ParseType(string(p.Type)); err != nil {
		errs = append(errs, err)
	}
	if _, err := ParseDifficulty(string(p.Difficulty)); err != nil {
		errs = append(errs, err)
	}
	if strings.TrimSpace(p.Query) == "" {
		errs = append(errs, errors.New("empty query"))
	}
	if n := len(p.Reward.Items); n == 0 {
		errs = append(errs, errors.New("reward has no items"))
	} else if (p.Type == TypeProduct || p.Type == TypeKnowledge) && n != 1 {
		errs = append(errs, fmt.Errorf("%s problem has %d items, want 1", p.Type, n))
	}
	if (p.Type == TypeKnowledge) != (strings.TrimSpace(p.Knowledge) != "") {
		errs = append(errs, fmt.Errorf("%s problem: knowledge attribute %q", p.Type, p.Knowledge))
	}
	for i, it := range p.Reward.Items {
		if strings.TrimSpace(it.ProductID) == "" {
			errs = append(errs, fmt.Errorf("reward item %d: no product_id", i+1))
		}
	}
	if (p.Type == TypeVoucher) != (p.Voucher != nil) {
		errs = append(errs, fmt.Errorf("%s problem: voucher present=%v", p.Type, p.Voucher != nil))
	}
	if p.Voucher != nil {
		v := p.Voucher
		switch {
		case v.VoucherType != VoucherPlatform && v.VoucherType != VoucherShop:
			errs = append(errs, fmt.Errorf("voucher_type %q: want platform or shop", v.VoucherType))
		case v.DiscountType == DiscountFixed && v.FaceValue == nil:
			errs = append(errs, errors.New("fixed voucher without face_value"))
		case v.DiscountType == DiscountPercentage && v.Discount == nil:
			errs = append(errs, errors.New("percentage voucher without discount"))
		case v.DiscountType != DiscountFixed && v.DiscountType != DiscountPercentage:
			errs = append(errs, fmt.Errorf("discount_type %q: want fixed or percentage", v.DiscountType))
		}
	}
	return errors.Join(errs...)
}

// PublicProblem is what a miner may see of a problem.
type PublicProblem struct {
	ID      string         `json:"id"`
	Type    Type           `json:"type"`
	Query   string         `json:"query"`
	Voucher *PublicVoucher `json:"voucher,omitempty"`
}

// Public strips the ground truth: reward, targets, cluster,
// price_after_voucher, the knowledge attribute (the fact a knowledge
// problem makes the agent look up), and also the seed and source, which
// would let a miner regenerate or look up the answer. The query already
// states the budget and voucher rules.
func (p *Problem) Public() PublicProblem {
	pub := PublicProblem{ID: p.ID, Type: p.Type, Query: p.Query}
	if v := p.Voucher; v != nil {
		pub.Voucher = &PublicVoucher{VoucherType: v.VoucherType, Threshold: v.Threshold, DiscountType: v.DiscountType,
			FaceValue: v.FaceValue, Discount: v.Discount, Cap: v.Cap, Budget: v.Budget}
	}
	return pub
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

func formatNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// dedupe returns the sorted distinct values of s.
func dedupe(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
