package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/rs/zerolog"

	"arena/knowledge"
	"arena/shop"
)

// Knowledge problems follow ShoppingBench's web_simpleqa tasks: the query
// asks a question whose answer the catalog does not state (a brand's
// founder, what a term stands for) and then a product that carries the
// answer ("... from that brand"). The agent finds the answer with
// web_search, then the product with find_product. The ground truth is the
// answer (Problem.Knowledge, ShoppingBench's Knowledge_Attribute) and an
// item whose constraints are the ones the query states besides the fact.

// knowledgeAttributeKey is the field that marks a web_simpleqa record.
const knowledgeAttributeKey = "Knowledge_Attribute"

// productKey keeps an imported web_simpleqa reward, which is the whole
// target product rather than constraints, in Item.Extra, so the record
// round-trips.
const productKey = "product"

// decodeKnowledge reads a web_simpleqa record: query, Knowledge_Attribute
// and a reward that is either the target product (ShoppingBench's form,
// with a title string; the title becomes the item's title phrase, as
// ShoppingBench compares the recommended title with it) or an item with
// constraint lists (what knowledgeRecord writes for generated problems).
func decodeKnowledge(m map[string]json.RawMessage) (Problem, error) {
	p := Problem{Type: TypeKnowledge}
	ans, err := knowledge.AttributeText(m[knowledgeAttributeKey])
	if err != nil {
		return Problem{}, err
	}
	p.Knowledge = ans
	rawQuery, ok := m["query"]
	if !ok {
		return Problem{}, errors.New(`missing "query"`)
	}
	if err := json.Unmarshal(rawQuery, &p.Query); err != nil {
		return Problem{}, fmt.Errorf("query: %w", err)
	}
	rawReward, ok := m["reward"]
	if !ok {
		return Problem{}, errors.New(`missing "reward"`)
	}
	if v, ok := m["voucher"]; ok && string(bytes.TrimSpace(v)) != "null" {
		return Problem{}, errors.New("a knowledge task with a voucher")
	}
	var head struct {
		ProductID string          `json:"product_id"`
		Title     json.RawMessage `json:"title"`
	}
	if err := json.Unmarshal(rawReward, &head); err != nil {
		return Problem{}, fmt.Errorf("reward: want the target product or an item: %w", err)
	}
	var it Item
	if t := bytes.TrimSpace(head.Title); len(t) > 0 && t[0] == '"' {
		var title string
		if err := json.Unmarshal(t, &title); err != nil {
			return Problem{}, fmt.Errorf("reward title: %w", err)
		}
		// In the form encoding/json writes it (compact, HTML characters
		// escaped), so that arena's own JSON round-trips it byte for byte.
		product, err := json.Marshal(rawReward)
		if err != nil {
			return Problem{}, fmt.Errorf("reward: %w", err)
		}
		it = Item{ProductID: head.ProductID, Title: []string{title}, Extra: map[string]json.RawMessage{productKey: product}}
	} else if err := json.Unmarshal(rawReward, &it); err != nil {
		return Problem{}, fmt.Errorf("reward: %w", err)
	}
	p.Reward = Reward{Items: []Item{it}}
	for _, k := range []string{"query", "reward", "voucher", knowledgeAttributeKey} {
		delete(m, k)
	}
	if len(m) > 0 {
		p.Extra = m
	}
	return p, nil
}

// knowledgeRecord writes a knowledge problem as a web_simpleqa line: the
// imported target product as it came, or a generated problem's item.
func knowledgeRecord(p *Problem) ([]byte, error) {
	if len(p.Reward.Items) != 1 {
		return nil, fmt.Errorf("knowledge problem with %d items", len(p.Reward.Items))
	}
	it := p.Reward.Items[0]
	reward, ok := it.Extra[productKey]
	if !ok {
		var err error
		if reward, err = json.Marshal(it); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(struct {
		Query     string          `json:"query"`
		Knowledge string          `json:"Knowledge_Attribute"`
		Reward    json.RawMessage `json:"reward"`
	}{p.Query, p.Knowledge, reward})
	if err != nil {
		return nil, err
	}
	return appendExtra(b, p.Extra)
}

// knowledgeLeads ask for the product after the question, referring back
// to its answer, by the kind of fact.
var knowledgeLeads = map[string][]string{
	knowledge.KindBrand: {
		"I want to buy %s from that brand.", "I'd like %s made by them.", "Please find me %s from this brand.",
		"Can you get me %s by that company?", "I'm looking for %s from that maker.", "Show me %s from that brand.",
	},
	knowledge.KindTerm: {
		"I want %s with that feature.", "Find me %s that has it.", "I'm looking for %s labelled with it.",
		"I need %s with this.", "Show me %s that lists it in the title.",
	},
}

// ignoredWords are the words leak clustering ignores: the phrasings'
// template words and those of the knowledge questions and leads.
func ignoredWords() map[string]bool {
	words := templateWords()
	var all []string
	all = append(all, knowledge.QuestionTemplates()...)
	for _, leads := range knowledgeLeads {
		all = append(all, leads...)
	}
	for _, s := range all {
		for _, w := range tokens(reVerb.ReplaceAllString(s, " ")) {
			words[w] = true
		}
	}
	return words
}

// KnowledgeOptions configure NewKnowledgeGenerator.
type KnowledgeOptions struct {
	// Generator draws the item constraints and verifies them with its
	// index; its seed selects the problems (required).
	Generator *Generator
	// Corpus is the web corpus agents search, built from the Generator's
	// catalog (required).
	Corpus *knowledge.Corpus
}

// KnowledgeGenerator makes knowledge problems. It is safe for concurrent
// use.
type KnowledgeGenerator struct {
	g      *Generator
	corpus *knowledge.Corpus
	facts  []knowledge.Fact
	log    zerolog.Logger
}

// knowledgeStream separates knowledge slots from the Generator's own.
const knowledgeStream = 0x6b6e6f77 // "know"

// NewKnowledgeGenerator checks that the corpus belongs to the catalog and
// keeps the facts problems can be made of.
func NewKnowledgeGenerator(opts KnowledgeOptions, log zerolog.Logger) (*KnowledgeGenerator, error) {
	if opts.Generator == nil || opts.Corpus == nil {
		return nil, errors.New("knowledge generator: Generator and Corpus are required")
	}
	k := &KnowledgeGenerator{g: opts.Generator, corpus: opts.Corpus, log: log.With().Str("component", "suite.knowledge").Logger()}
	cat := opts.Generator.cat
	for _, f := range opts.Corpus.Facts() {
		if len(f.Questions) == 0 || len(f.Products) == 0 {
			continue
		}
		if pos := int(f.Products[0]); pos >= cat.Len() || !productCarries(cat.At(pos), f.Answer) {
			return nil, fmt.Errorf("knowledge generator: the corpus was built from another catalog (fact %q)", f.Answer)
		}
		if knowledgeLeads[f.Kind] != nil {
			k.facts = append(k.facts, f)
		}
	}
	if len(k.facts) == 0 {
		return nil, errors.New("knowledge generator: the corpus states no usable fact")
	}
	return k, nil
}

// productCarries is the knowledge rule: the answer in the title or the
// description.
func productCarries(p *shop.Product, answer string) bool {
	return knowledge.ContainsFold(p.Title, answer) || knowledge.ContainsFold(p.Description, answer)
}

// One makes the knowledge problem of slot seed, trying up to the
// Generator's MaxAttempts candidates.
func (k *KnowledgeGenerator) One(seed uint64) (Problem, error) {
	p, _, err := k.one(seed, k.g.picker(nil))
	return p, err
}

func (k *KnowledgeGenerator) one(seed uint64, pk *picker) (Problem, int, error) {
	var last error
	for a := range k.g.opts.MaxAttempts {
		p, err := k.generate(rand.New(rand.NewPCG(seed, uint64(a))), pk)
		if err == nil {
			p.Seed = seed
			if err = p.Finish(); err == nil {
				return p, a + 1, nil
			}
		}
		last = err
	}
	return Problem{}, k.g.opts.MaxAttempts, fmt.Errorf("generate knowledge (seed %d): no solvable problem in %d attempts: %w", seed, k.g.opts.MaxAttempts, last)
}

// Generate makes req.Count knowledge problems (req.Mix is ignored). Slot
// i depends only on the Generator's seed and req.Offset+i; a problem whose
// target an earlier one already uses is dropped unless
// req.AllowSharedTargets, so the suite may come out short.
func (k *KnowledgeGenerator) Generate(ctx context.Context, req Request) ([]Problem, GenerateReport, error) {
	rep := GenerateReport{ByType: map[Type]int{}, Difficulty: map[Difficulty]int{}}
	if req.Count < 0 {
		return nil, rep, fmt.Errorf("generate: count %d is negative", req.Count)
	}
	seen, used := map[string]bool{}, map[string]bool{}
	pk := k.g.picker(req.Exclude)
	var out []Problem
	for i := range req.Count {
		if err := ctx.Err(); err != nil {
			return nil, rep, fmt.Errorf("generate: %w", err)
		}
		p, tries, err := k.one(deriveSeed(k.g.opts.Seed^knowledgeStream, req.Offset+uint64(i)), pk)
		rep.Attempts += tries
		switch {
		case err != nil:
			rep.GivenUp++
		case seen[p.ID]:
			rep.Duplicates++
		case !req.AllowSharedTargets && used[p.Targets[0]]:
			rep.SharedTargets++
		default:
			seen[p.ID], used[p.Targets[0]] = true, true
			out = append(out, p)
			rep.ByType[p.Type]++
			rep.Difficulty[p.Difficulty]++
		}
		if req.Progress != nil && ((i+1)%100 == 0 || i+1 == req.Count) {
			req.Progress(i+1, req.Count)
		}
	}
	rep.Problems = len(out)
	k.log.Info().Int("problems", rep.Problems).Int("attempts", rep.Attempts).Int("given_up", rep.GivenUp).
		Int("shared_targets", rep.SharedTargets).Msg("knowledge problems generated")
	return out, rep, nil
}

// generate draws one knowledge problem: a fact, a product that carries
// it, the item's other constraints (fewer than a product task's: the
// fact is the point) and the query. The item is named by its kind only,
// so that the fact, not a feature of the listing, singles out the answer.
// It is kept only if
//   - searching the question finds the fact's page among the first three
//     results, and the query does not give the answer away;
//   - find_product for the answer and the item's words finds the target
//     within five pages;
//   - the fact is needed: at least MinDistractors listings of the category
//     meet every other constraint without carrying the answer, and the
//     first result of find_product for the item's words alone is one of
//     them.
func (k *KnowledgeGenerator) generate(r *rand.Rand, pk *picker) (Problem, error) {
	f := &k.facts[r.IntN(len(k.facts))]
	pos := int(f.Products[r.IntN(len(f.Products))])
	if !pk.ok(pos) {
		return Problem{}, errUsedTarget
	}
	c, err := k.g.spec(r, pos, 1)
	if err != nil {
		return Problem{}, err
	}
	c.core = kindOnly(c.core)
	if len(c.core.words) == 0 || knowledge.ContainsFold(c.core.phrase(), f.Answer) {
		return Problem{}, errUnsuitable
	}
	if r.IntN(2) == 0 {
		c.price = nil
	}
	if len(c.services) > 0 && r.IntN(3) > 0 {
		c.services = nil
	} else if len(c.services) > 1 {
		c.services = c.services[:1]
	}
	if r.IntN(3) > 0 {
		c.attrs, c.skus = nil, nil
	}
	question := f.Questions[r.IntN(len(f.Questions))]
	if !k.findsPage(question, f.URL) {
		return Problem{}, errors.New("web_search does not find the fact for its question")
	}
	body, tail := describe(r, c, true)
	query := question + " " + fmt.Sprintf(pick(r, knowledgeLeads[f.Kind]), body)
	if tail != "" {
		query += " " + tail
	}
	if knowledge.ContainsFold(query, f.Answer) {
		return Problem{}, errors.New("the query states the answer")
	}
	withAnswer := *c
	withAnswer.core.words = append([]string{f.Answer}, c.core.words...)
	if !k.g.findable(&withAnswer, "") {
		return Problem{}, errors.New("target not findable")
	}
	cands, distractors := 0, 0
	for _, pos := range k.g.byLeaf[c.target.Category] {
		if k.g.misses(int(pos), c, 0) == 0 {
			if productCarries(k.g.cat.At(int(pos)), f.Answer) {
				cands++
			} else {
				distractors++
			}
		}
	}
	if distractors < k.g.opts.MinDistractors {
		return Problem{}, fmt.Errorf("%w: %d listings differ only in the fact", errTooFewDistractors, distractors)
	}
	if top, ok := k.firstHit(c); !ok || productCarries(top, f.Answer) {
		return Problem{}, errors.New("the item's words alone find the answer")
	}
	specs := []*itemSpec{c}
	return Problem{Type: TypeKnowledge, Query: query, Reward: Reward{Items: []Item{c.item()}}, Knowledge: f.Answer,
		Difficulty: grade([]int{cands}, steps(specs, false)+2, pairCount(specs))}, nil
}

// firstHit is the first result of find_product for the item's words with
// its filters.
func (k *KnowledgeGenerator) firstHit(c *itemSpec) (*shop.Product, bool) {
	req := shop.FindRequest{Query: c.searchQuery(), Page: 1}
	if c.price != nil {
		req.Price, _ = shop.ParsePriceRange(c.price.Filter())
	}
	req.Services, _ = shop.ParseServices(strings.Join(c.services, ","))
	res, err := k.g.idx.Find(req)
	if err != nil || len(res.Items) == 0 {
		return nil, false
	}
	return res.Items[0], true
}

// kindOnly keeps the words of a core name that name the product's kind:
// the brand may be the answer the agent must look up, and a listing's
// own features would find it without the fact.
func kindOnly(c coreName) coreName {
	var words []string
	for _, w := range c.words {
		if containsWord(c.kind, w) {
			words = append(words, w)
		}
	}
	c.words, c.brand, c.extra = words, nil, nil
	return c
}

// findsPage reports whether searching q ranks the page at url among the
// first three results, as an agent reading the first results would see it.
func (k *KnowledgeGenerator) findsPage(q, url string) bool {
	for _, i := range k.corpus.Search(q, 3) {
		if k.corpus.Page(i).URL == url {
			return true
		}
	}
	return false
}

// SolveKnowledge answers a knowledge problem through the tools as Solve
// does other types: it searches the web for the question (the query up
// to its last question mark) and takes the answer from the results (the
// solver knows what to look for, but must find it there); then it
// searches the catalog for the answer with the item's words and filters,
// views the listings whose titles fit, and recommends the first that
// meets every constraint and carries the answer in its title or
// description.
func SolveKnowledge(ctx context.Context, p *Problem, call Caller) ([]string, error) {
	if p.Type != TypeKnowledge || len(p.Reward.Items) != 1 {
		return nil, fmt.Errorf("solve knowledge: a %s problem with %d items", p.Type, len(p.Reward.Items))
	}
	s := &solver{ctx: ctx, call: call}
	var results []shop.WebResult
	if err := s.get(shop.ToolWebSearch, map[string]any{"q": knowledge.Question(p.Query)}, &results); err != nil {
		return nil, err
	}
	found := false
	for _, r := range results {
		found = found || knowledge.ContainsFold(r.Title+" "+r.Content, p.Knowledge)
	}
	if !found {
		return nil, fmt.Errorf("web_search results do not state %q", p.Knowledge)
	}
	it := p.Reward.Items[0]
	it.ProductID = ""
	args := map[string]any{"q": strings.Join(append(append([]string{p.Knowledge}, it.Title...), itemWords(&it)...), " ")}
	if len(it.Price) > 0 {
		args["price"] = it.Price[0].Filter()
	}
	if len(it.Service) > 0 {
		args["service"] = strings.Join(it.Service, ",")
	}
	for page := 1; page <= shop.MaxPages; page++ {
		args["page"] = page
		var hits []hit
		if err := s.get(shop.ToolFindProduct, args, &hits); err != nil {
			return nil, err
		}
		var ids []string
		for _, h := range hits {
			if len(it.Title) == 0 || titleSimilar(h.Title, it.Title[0]) {
				ids = append(ids, h.ProductID)
			}
		}
		if len(ids) > 0 {
			var infos []struct {
				info
				Description string `json:"description"`
			}
			if err := s.get(shop.ToolViewProductInformation, map[string]any{"product_ids": strings.Join(ids, ",")}, &infos); err != nil {
				return nil, err
			}
			for _, in := range infos {
				for _, h := range hits {
					if h.ProductID == in.ProductID && constraintsMet(&it, h, in.info) &&
						(knowledge.ContainsFold(h.Title, p.Knowledge) || knowledge.ContainsFold(in.Description, p.Knowledge)) {
						if _, err := call(ctx, shop.ToolRecommendProduct, map[string]any{"product_ids": h.ProductID}); err != nil {
							return nil, err
						}
						return []string{h.ProductID}, nil
					}
				}
			}
		}
		if len(hits) < shop.PageSize {
			break
		}
	}
	return nil, errors.New("no listing carries the answer and meets the constraints")
}
