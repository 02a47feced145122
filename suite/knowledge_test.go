package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"arena/knowledge"
	"arena/shop"
)

// knowledgeFixture is a catalog's knowledge generator and the tools that
// serve its corpus, built once per catalog size.
type knowledgeFixture struct {
	once  sync.Once
	gen   *KnowledgeGenerator
	tools *shop.Tools
	err   error
}

var knowledgeFixtures sync.Map // int -> *knowledgeFixture

func knowledgeEnv(t *testing.T, n int) (*KnowledgeGenerator, *shop.Tools) {
	t.Helper()
	v, _ := knowledgeFixtures.LoadOrStore(n, &knowledgeFixture{})
	f := v.(*knowledgeFixture)
	f.once.Do(func() {
		g := testGenerator(t, n, 5)
		corpus, err := knowledge.Build(context.Background(), g.cat, knowledge.Options{}, zerolog.Nop())
		if err != nil {
			f.err = err
			return
		}
		if f.gen, f.err = NewKnowledgeGenerator(KnowledgeOptions{Generator: g, Corpus: corpus}, zerolog.Nop()); f.err != nil {
			return
		}
		f.tools, f.err = shop.NewTools(shop.ToolsOptions{Index: g.idx, Web: corpus}, zerolog.Nop(), nil)
	})
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f.gen, f.tools
}

// checkKnowledgeAnswer is checkAnswer plus the knowledge rule: the answer
// in the recommended product's title or description.
func checkKnowledgeAnswer(cat *shop.Catalog, p *Problem, ids []string) error {
	if err := checkAnswer(cat, p, ids); err != nil {
		return err
	}
	if prod, _ := cat.Product(ids[0]); !productCarries(prod, p.Knowledge) {
		return fmt.Errorf("%s does not carry %q", ids[0], p.Knowledge)
	}
	return nil
}

// TestKnowledgeSolvable generates knowledge problems on the default
// catalog (100k products, seed 1; 20k with -short) and solves each one
// through the tools as an agent would: web_search for the question, the
// answer read from the results, then find_product and
// view_product_information. At least 150 must be solvable (issue 14's
// target). A lazy agent that searches the raw query and recommends the
// first hit must almost always fail.
func TestKnowledgeSolvable(t *testing.T) {
	n, count := 100_000, 200
	if testing.Short() {
		n, count = 20_000, 60
	}
	k, tools := knowledgeEnv(t, n)
	ps, rep, err := k.Generate(context.Background(), Request{Count: count})
	if err != nil {
		t.Fatal(err)
	}
	solved, lazy, calls := 0, 0, 0
	for i := range ps {
		p := &ps[i]
		c := &toolCaller{tools: tools, maxCalls: 30}
		ids, err := SolveKnowledge(context.Background(), p, c.call)
		if err == nil {
			err = checkKnowledgeAnswer(k.g.cat, p, ids)
		}
		calls += c.calls
		if err != nil {
			t.Logf("%s (%s) not solved: %v\n  %s", p.ID, p.Knowledge, err, p.Query)
		} else {
			solved++
		}
		first := tools.Execute(context.Background(), shop.ToolFindProduct, json.RawMessage(fmt.Sprintf(`{"q": %q, "page": 1}`, p.Query)))
		var hits []hit
		if first.OK() && json.Unmarshal(first.Output, &hits) == nil && len(hits) > 0 &&
			checkKnowledgeAnswer(k.g.cat, p, []string{hits[0].ProductID}) == nil {
			lazy++
		}
	}
	t.Logf("%d-product catalog: %d knowledge problems generated (%+v), %d solved through web_search and the catalog (%.1f tool calls each), lazy agent %d",
		n, len(ps), rep.Difficulty, solved, float64(calls)/float64(max(1, len(ps))), lazy)
	if rep.Problems < count*95/100 {
		t.Errorf("generated %d of %d: %+v", rep.Problems, count, rep)
	}
	if want := min(150, count*9/10); solved < want || solved*100 < len(ps)*95 {
		t.Errorf("%d of %d knowledge problems solved, want at least %d and 95%%", solved, len(ps), want)
	}
	if lazy*100 > len(ps)*15 {
		t.Errorf("the lazy agent solves %d of %d knowledge problems", lazy, len(ps))
	}
	// With a web that does not know the fact, it cannot be solved.
	other, err := knowledge.New(context.Background(), []knowledge.Page{knowledge.SimpleQAPage("Which city hosted it?", "Milan")}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	unaware, err := shop.NewTools(shop.ToolsOptions{Index: k.g.idx, Web: other}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &toolCaller{tools: unaware, maxCalls: 30}
	if ids, err := SolveKnowledge(context.Background(), &ps[0], c.call); err == nil {
		t.Fatalf("solved %s with a web that does not state %q: %v", ps[0].ID, ps[0].Knowledge, ids)
	}
}

func TestKnowledgeGenerateDeterministic(t *testing.T) {
	k, _ := knowledgeEnv(t, 20_000)
	ctx := context.Background()
	a, _, err := k.Generate(ctx, Request{Count: 12})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := k.Generate(ctx, Request{Count: 12})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same request gave different problems")
	}
	tail, _, err := k.Generate(ctx, Request{Count: 4, Offset: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 12 || !reflect.DeepEqual(a[8:], tail) {
		t.Fatal("slot problems depend on more than the seed and the slot")
	}
	one, err := k.One(deriveSeed(k.g.opts.Seed^knowledgeStream, 3))
	if err != nil || !reflect.DeepEqual(one, a[3]) {
		t.Fatalf("One(slot 3) = %s, %v; want %s", one.ID, err, a[3].ID)
	}
}

// TestKnowledgeProblems checks the suite's properties on generated
// knowledge problems: valid with stable content ids, the answer and the
// ground truth out of the public view and out of the query, leak clusters
// by shared target only, and the ledger's partitions and draws.
func TestKnowledgeProblems(t *testing.T) {
	k, _ := knowledgeEnv(t, 20_000)
	ctx := context.Background()
	ps, _, err := k.Generate(ctx, Request{Count: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if err := p.Validate(); err != nil || p.Type != TypeKnowledge || p.Knowledge == "" || len(p.Targets) != 1 {
			t.Fatalf("%s: %v, type %s, attribute %q, targets %v", p.ID, err, p.Type, p.Knowledge, p.Targets)
		}
		if id, _ := p.ContentID(); id != p.ID {
			t.Fatalf("%s: content id %s", p.ID, id)
		}
		other := p
		other.Knowledge += " Pro"
		if id, _ := other.ContentID(); id == p.ID {
			t.Fatalf("%s: the content id ignores the knowledge attribute", p.ID)
		}
		pub, err := json.Marshal(p.Public())
		if err != nil {
			t.Fatal(err)
		}
		for _, banned := range []string{`"reward"`, `"targets"`, `"knowledge_attribute"`, `"seed"`, p.Targets[0]} {
			if bytes.Contains(pub, []byte(banned)) {
				t.Errorf("public view of %s contains %s: %s", p.ID, banned, pub)
			}
		}
		if knowledge.ContainsFold(string(pub), p.Knowledge) {
			t.Errorf("public view of %s states the answer %q: %s", p.ID, p.Knowledge, pub)
		}
	}

	// Two problems on one target join one cluster; generated problems
	// otherwise stay apart, although every question shares a template.
	twin := ps[1]
	twin.Query = "Another wording of it? " + twin.Query
	if err := twin.Finish(); err != nil {
		t.Fatal(err)
	}
	cl, err := Cluster(ctx, append(append([]Problem(nil), ps...), twin), ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Of[twin.ID] != cl.Of[ps[1].ID] {
		t.Error("two knowledge problems on one target are in different clusters")
	}
	if got := len(cl.Clusters); got < len(ps)*9/10 {
		t.Errorf("%d generated knowledge problems fell into %d clusters", len(ps), got)
	}

	// Queries that share only the question and lead templates are not
	// near-duplicates.
	tpl := knowledge.QuestionTemplates()[2]
	lead := knowledgeLeads[knowledge.KindBrand][0]
	a := Problem{Type: TypeKnowledge, Knowledge: "Kovix", Reward: Reward{Items: []Item{{ProductID: "1", Title: []string{"Mug"}}}},
		Query: fmt.Sprintf(tpl, "audio", "Oslo", 1990) + " " + fmt.Sprintf(lead, "a mug")}
	b := Problem{Type: TypeKnowledge, Knowledge: "Trelo", Reward: Reward{Items: []Item{{ProductID: "2", Title: []string{"Lamp"}}}},
		Query: fmt.Sprintf(tpl, "toys", "Perth", 2001) + " " + fmt.Sprintf(lead, "a lamp")}
	if err := errors.Join(a.Finish(), b.Finish()); err != nil {
		t.Fatal(err)
	}
	if cl, err := Cluster(ctx, []Problem{a, b}, ClusterOptions{}); err != nil || cl.Of[a.ID] == cl.Of[b.ID] {
		t.Fatalf("two knowledge problems sharing only templates are one leak cluster (%v)", err)
	}
	ignored := ignoredWords()
	for _, w := range []string{"founded", "established", "called", "started", "maker", "company"} {
		if !ignored[w] {
			t.Errorf("leak clustering does not ignore the template word %q", w)
		}
	}

	l := testLedger(t)
	if _, err := l.Add(ctx, ps[:20], Public); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(ctx, ps[20:], Hidden); err != nil {
		t.Fatal(err)
	}
	st, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Partitions[Public].ByType[TypeKnowledge] + st.Partitions[Hidden].ByType[TypeKnowledge]; got != len(ps) {
		t.Errorf("ledger counts %d knowledge problems, want %d: %+v", got, len(ps), st.Partitions)
	}
	drawn, err := l.Draw(Hidden, 2, 7)
	if err != nil || len(drawn) != 2 || drawn[0].Knowledge == "" {
		t.Fatalf("draw: %d problems, %v", len(drawn), err)
	}
	back, ok, err := l.Problem(drawn[0].ID)
	if err != nil || !ok || !reflect.DeepEqual(back.Reward, drawn[0].Reward) || back.Knowledge != drawn[0].Knowledge {
		t.Fatalf("stored problem %s does not read back: %v %v", drawn[0].ID, ok, err)
	}
}

// TestImportKnowledge imports ShoppingBench's web_simpleqa sample and
// checks every round trip: back to the ShoppingBench line, through
// arena's own JSON, and through ORO's format.
func TestImportKnowledge(t *testing.T) {
	path := referenceFile(t, "shoppingbench/knowledge_sample.jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, rep, err := ImportShoppingBench(bytes.NewReader(raw), "knowledge_sample.jsonl")
	if err != nil || len(rep.Errors) > 0 || len(ps) != 5 {
		t.Fatalf("import: %d problems, %+v, %v", len(ps), rep, err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i := range ps {
		p := &ps[i]
		var rec struct {
			Answer string `json:"Knowledge_Attribute"`
			Reward struct {
				ProductID string `json:"product_id"`
				Title     string `json:"title"`
			} `json:"reward"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &rec); err != nil {
			t.Fatal(err)
		}
		it := p.Reward.Items[0]
		if p.Type != TypeKnowledge || p.Knowledge != rec.Answer || p.Targets[0] != rec.Reward.ProductID ||
			!reflect.DeepEqual(it.Title, []string{rec.Reward.Title}) || it.Price != nil || it.SKUOptions != nil {
			t.Errorf("line %d imported as %s %q targets %v item %+v", i+1, p.Type, p.Knowledge, p.Targets, it)
		}
		got, err := ShoppingBenchRecord(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(generic(t, got), generic(t, []byte(lines[i]))) {
			t.Errorf("line %d does not round-trip:\n got %s\nwant %s", i+1, got, lines[i])
		}
		native, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Problem
		if err := json.Unmarshal(native, &back); err != nil || !reflect.DeepEqual(&back, p) {
			t.Fatalf("line %d: native round trip: %v\n got %+v\nwant %+v", i+1, err, back, *p)
		}
	}
	var oro bytes.Buffer
	if err := WriteORO(&oro, ps); err != nil {
		t.Fatal(err)
	}
	back, rep, err := ImportORO(&oro, "oro.json")
	if err != nil || len(rep.Errors) > 0 || len(back) != len(ps) {
		t.Fatalf("ORO round trip: %d problems, %+v, %v", len(back), rep, err)
	}
	for i := range ps {
		if back[i].ID != ps[i].ID || back[i].Type != TypeKnowledge || back[i].Knowledge != ps[i].Knowledge {
			t.Errorf("ORO round trip of %s gave %s %s %q", ps[i].ID, back[i].ID, back[i].Type, back[i].Knowledge)
		}
	}
}

// TestGeneratedKnowledgeRoundTrip writes generated knowledge problems as
// web_simpleqa lines and imports them again: same problems, same ids.
func TestGeneratedKnowledgeRoundTrip(t *testing.T) {
	k, _ := knowledgeEnv(t, 20_000)
	ps, _, err := k.Generate(context.Background(), Request{Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteShoppingBench(&buf, ps); err != nil {
		t.Fatal(err)
	}
	back, rep, err := ImportShoppingBench(&buf, "generated.jsonl")
	if err != nil || len(rep.Errors) > 0 || len(back) != len(ps) {
		t.Fatalf("import: %d problems, %+v, %v", len(back), rep, err)
	}
	for i := range ps {
		if back[i].ID != ps[i].ID || !reflect.DeepEqual(back[i].Reward, ps[i].Reward) || back[i].Knowledge != ps[i].Knowledge {
			t.Errorf("%s came back as %s: %+v", ps[i].ID, back[i].ID, back[i].Reward)
		}
	}
}

func TestKnowledgeRecordErrors(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"empty attribute", `{"query": "q?", "Knowledge_Attribute": "", "reward": {"product_id": "1", "title": "t"}}`, "is empty"},
		{"attribute list", `{"query": "q?", "Knowledge_Attribute": ["a"], "reward": {"product_id": "1", "title": "t"}}`, "string or a number"},
		{"no query", `{"Knowledge_Attribute": "a", "reward": {"product_id": "1", "title": "t"}}`, `missing "query"`},
		{"no reward", `{"query": "q?", "Knowledge_Attribute": "a"}`, `missing "reward"`},
		{"no product id", `{"query": "q?", "Knowledge_Attribute": "a", "reward": {"title": "t"}}`, "no product_id"},
		{"reward list", `{"query": "q?", "Knowledge_Attribute": "a", "reward": [{"product_id": "1"}]}`, "want the target product or an item"},
		{"voucher", `{"query": "q?", "Knowledge_Attribute": "a", "reward": {"product_id": "1", "title": "t"}, "voucher": {}}`, "with a voucher"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, rep, err := ImportShoppingBench(strings.NewReader(tc.line+"\n"+`{"query": "q?", "Knowledge_Attribute": 1974, "reward": {"product_id": "1", "title": "t"}}`), "k.jsonl")
			if err != nil || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), tc.want) || !strings.HasPrefix(rep.Errors[0].Error(), "k.jsonl:1: ") {
				t.Fatalf("errors %v (%v), want one on line 1 containing %q", rep.Errors, err, tc.want)
			}
			if len(ps) != 1 || ps[0].Knowledge != "1974" {
				t.Fatalf("the good line was not kept: %+v", ps)
			}
		})
	}
}

func TestNewKnowledgeGeneratorChecksCorpus(t *testing.T) {
	g := testGenerator(t, 5000, 1)
	other := testGenerator(t, 20_000, 1)
	corpus, err := knowledge.Build(context.Background(), other.cat, knowledge.Options{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewKnowledgeGenerator(KnowledgeOptions{Generator: g, Corpus: corpus}, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), "another catalog") {
		t.Fatalf("a corpus of another catalog: %v", err)
	}
	if _, err := NewKnowledgeGenerator(KnowledgeOptions{Generator: g}, zerolog.Nop()); err == nil {
		t.Fatal("no corpus accepted")
	}
}

func TestKnowledgeValidate(t *testing.T) {
	item := Item{ProductID: "1", Title: []string{"Violin Bow"}}
	for _, tc := range []struct {
		name string
		p    Problem
		want string // "" for valid
	}{
		{"valid", Problem{Type: TypeKnowledge, Query: "q?", Knowledge: "Violin", Reward: Reward{Items: []Item{item}}}, ""},
		{"no attribute", Problem{Type: TypeKnowledge, Query: "q?", Reward: Reward{Items: []Item{item}}}, "knowledge attribute"},
		{"blank attribute", Problem{Type: TypeKnowledge, Query: "q?", Knowledge: "  ", Reward: Reward{Items: []Item{item}}}, "knowledge attribute"},
		{"two items", Problem{Type: TypeKnowledge, Query: "q?", Knowledge: "Violin", Reward: Reward{Items: []Item{item, item}}}, "2 items, want 1"},
		{"attribute on a product task", Problem{Type: TypeProduct, Query: "q", Knowledge: "Violin", Reward: Reward{Items: []Item{item}}}, "knowledge attribute"},
		{"voucher", Problem{Type: TypeKnowledge, Query: "q?", Knowledge: "Violin", Reward: Reward{Items: []Item{item}},
			Voucher: &Voucher{VoucherType: VoucherPlatform, DiscountType: DiscountFixed, FaceValue: ptr(1.0)}}, "voucher present"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
	if typ, err := ParseType("Knowledge"); err != nil || typ != TypeKnowledge {
		t.Fatalf("ParseType(Knowledge) = %s, %v", typ, err)
	}
	if all := AllTypes(); len(all) != 4 || all[3] != TypeKnowledge {
		t.Fatalf("AllTypes() = %v", all)
	}
}

// TestGeneratorMixesKnowledge: a Generator given the web corpus makes
// knowledge problems in the proportion its Mix asks, deterministically;
// without the corpus, asking for them is an error, not a silent omission.
func TestGeneratorMixesKnowledge(t *testing.T) {
	k, _ := knowledgeEnv(t, 20_000)
	g, err := NewGenerator(GeneratorOptions{Index: k.g.idx, Seed: 9, Knowledge: k.corpus}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Count: 24, Mix: Mix{TypeProduct: 1, TypeKnowledge: 1}}
	ps, rep, err := g.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ByType[TypeKnowledge] < 10 || rep.ByType[TypeProduct] < 10 {
		t.Fatalf("by type %v, want about 12 of each", rep.ByType)
	}
	for _, p := range ps {
		if p.Type == TypeKnowledge && (p.Knowledge == "" || len(p.Reward.Items) != 1) {
			t.Fatalf("knowledge problem %s without its fact or item: %+v", p.ID, p)
		}
	}
	again, _, err := g.Generate(context.Background(), req)
	if err != nil || !slices.EqualFunc(ps, again, func(a, b Problem) bool { return a.ID == b.ID }) {
		t.Fatalf("a second run differs (err %v)", err)
	}

	plain, err := NewGenerator(GeneratorOptions{Index: k.g.idx, Seed: 9}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := plain.Generate(context.Background(), req); err == nil || !strings.Contains(err.Error(), "web corpus") {
		t.Fatalf("knowledge without a corpus: err %v, want one naming the web corpus", err)
	}
}
