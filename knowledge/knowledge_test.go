package knowledge

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
)

// testCatalogSize keeps the generated-catalog tests quick; the suite's
// knowledge tests cover the 100k default.
const testCatalogSize = 20_000

var catalogs sync.Map // size -> *shop.Catalog

func generated(t *testing.T, n int) *shop.Catalog {
	t.Helper()
	if c, ok := catalogs.Load(n); ok {
		return c.(*shop.Catalog)
	}
	g, err := gen.New(gen.Options{Products: n, Seed: 3}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	catalogs.Store(n, cat)
	return cat
}

func build(t *testing.T, cat *shop.Catalog, opts Options) *Corpus {
	t.Helper()
	c, err := Build(context.Background(), cat, opts, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBuildIsDeterministic(t *testing.T) {
	cat := generated(t, testCatalogSize)
	a, b := build(t, cat, Options{}), build(t, cat, Options{})
	if !reflect.DeepEqual(a.pages, b.pages) || !reflect.DeepEqual(a.facts, b.facts) {
		t.Fatal("two builds of one catalog differ")
	}
	other := build(t, cat, Options{Seed: 99})
	if reflect.DeepEqual(a.pages, other.pages) {
		t.Fatal("another seed gave the same invented details")
	}
	answers := func(c *Corpus) []string {
		var out []string
		for _, f := range c.Facts() {
			out = append(out, f.Kind+":"+f.Answer)
		}
		return out
	}
	if !reflect.DeepEqual(answers(a), answers(other)) {
		t.Fatal("the seed changed which facts exist, not only their details")
	}
}

// TestFacts checks every fact of a generated catalog: its questions are
// answerable through search and do not give the answer away; exactly the
// products that carry the answer by the scoring rule are its products;
// and the invented details appear nowhere in the catalog.
func TestFacts(t *testing.T) {
	// The checks are exhaustive (every fact against every product), so
	// the catalog is small.
	cat := generated(t, 5000)
	c := build(t, cat, Options{})
	kinds := map[string]int{}
	questions, top := 0, 0
	text := make([]string, cat.Len())
	for i := range text {
		p := cat.At(i)
		text[i] = strings.ToLower(p.Title + "\n" + p.Description)
	}
	all := strings.Join(text, "\n")
	for _, f := range c.Facts() {
		kinds[f.Kind]++
		if len(f.Questions) == 0 || len(f.Products) == 0 {
			t.Fatalf("%s %q: %d questions, %d products", f.Kind, f.Answer, len(f.Questions), len(f.Products))
		}
		page := -1
		for i := range c.Len() {
			if c.Page(i).URL == f.URL {
				page = i
			}
		}
		if page < 0 || !ContainsFold(c.Page(page).Snippet, f.Answer) || !strings.HasPrefix(c.Page(page).Title, f.Answer) {
			t.Fatalf("%s %q: no page at %s stating the answer", f.Kind, f.Answer, f.URL)
		}
		for _, q := range f.Questions {
			questions++
			if ContainsFold(q, f.Answer) {
				t.Errorf("question %q names its answer %q", q, f.Answer)
			}
			if hits := c.Search(q, 1); len(hits) == 1 && hits[0] == page {
				top++
			}
		}
		in := map[int32]bool{}
		for _, pos := range f.Products {
			in[pos] = true
			if !strings.Contains(text[pos], strings.ToLower(f.Answer)) {
				t.Fatalf("%s %q: product %d does not carry the answer", f.Kind, f.Answer, pos)
			}
		}
		if f.Kind != KindBrand {
			continue
		}
		for i, s := range text {
			p := cat.At(i)
			if !in[int32(i)] && strings.Contains(s, strings.ToLower(f.Answer)) {
				t.Fatalf("brand %q: product %s of brand %q carries the answer too", f.Answer, p.ProductID, p.Brand)
			}
		}
		snippet := c.Page(page).Snippet
		founder := snippet[strings.LastIndex(snippet, " by ")+4 : len(snippet)-1]
		if strings.Contains(all, strings.ToLower(founder)) {
			t.Fatalf("brand %q: its founder %q appears in the catalog", f.Answer, founder)
		}
	}
	t.Logf("%d pages, facts by kind %v; %d of %d questions find their page first", c.Len(), kinds, top, questions)
	if kinds[KindBrand] < 100 || kinds[KindTerm] < 5 {
		t.Errorf("facts by kind %v: want at least 100 brands and 5 terms on a %d-product catalog", kinds, cat.Len())
	}
	if top*100 < questions*98 {
		t.Errorf("only %d of %d questions find their page first", top, questions)
	}
}

// TestAmbiguousAnswersAreDropped builds facts over hand-made catalogs: an
// answer that another product's text contains (inside another word or
// under another brand) would let that product pass the scoring rule, so
// no fact may use it.
func TestAmbiguousAnswersAreDropped(t *testing.T) {
	prod := func(id, brand, title string) shop.Product {
		return shop.Product{ProductID: id, Brand: brand, Title: title, Price: 10, Category: "Audio > Headphones > Earbuds"}
	}
	for _, tc := range []struct {
		name     string
		products []shop.Product
		want     []string // kind:answer of the facts
	}{
		{"clean", []shop.Product{prod("1", "Lumo", "Lumo TWS Earbuds"), prod("2", "Vex", "Vex Earbuds")},
			[]string{"brand:Lumo", "brand:Vex", "term:TWS"}},
		{"brand inside another word", []shop.Product{prod("1", "Lumo", "Lumo Earbuds"), prod("2", "Vex", "Vex Lumora Earbuds")},
			[]string{"brand:Vex"}},
		{"brand in an unbranded title", []shop.Product{prod("1", "Lumo", "Lumo Earbuds"), prod("2", "", "Earbuds like Lumo")},
			nil},
		{"placeholder brands are no brand", []shop.Product{prod("1", "nobrand", "Nobrand Earbuds"), prod("2", "Vex", "Vex Earbuds")},
			[]string{"brand:Vex"}},
		{"brand name too short", []shop.Product{prod("1", "Qi", "Qi Earbuds")}, nil},
		{"term inside another word", []shop.Product{prod("1", "Vex", "Vex GaN Charger"), prod("2", "Vex", "Vex Organic Soap")},
			[]string{"brand:Vex"}},
		{"term standing alone", []shop.Product{prod("1", "Vex", "Vex GaN Charger")}, []string{"brand:Vex", "term:GaN"}},
		{"brand missing from its listings", []shop.Product{prod("1", "Lumo", "Great Earbuds")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := shop.NewCatalog(tc.products)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range build(t, cat, Options{}).Facts() {
				got = append(got, f.Kind+":"+f.Answer)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("facts %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWebSearch(t *testing.T) {
	c := build(t, generated(t, testCatalogSize), Options{})
	f := c.Facts()[0]
	for _, tc := range []struct {
		name string
		n    int
		want int
	}{{"default page", 10, 10}, {"one", 1, 1}, {"capped", 50, MaxResults}, {"none", 0, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.WebSearch(context.Background(), f.Questions[0], tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != tc.want {
				t.Fatalf("%d results, want %d", len(res), tc.want)
			}
			if tc.want > 0 && (res[0].URL != f.URL || res[0].Title == "" || !ContainsFold(res[0].Content, f.Answer)) {
				t.Fatalf("first result %+v, want the page of %q with its snippet as content", res[0], f.Answer)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.WebSearch(ctx, "anything", 5); err == nil {
		t.Fatal("a canceled search succeeded")
	}
}

func TestImportSimpleQA(t *testing.T) {
	raw, err := os.ReadFile("testdata/knowledge_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	pages, rep, err := ImportSimpleQA(strings.NewReader(string(raw)), "knowledge_sample.jsonl")
	if err != nil || len(rep.Errors) > 0 || rep.Imported != 5 || len(pages) != 5 {
		t.Fatalf("import: %d pages, %+v, %v", len(pages), rep, err)
	}
	c := build(t, generated(t, testCatalogSize), Options{Extra: pages})
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec struct {
			Query  string `json:"query"`
			Answer string `json:"Knowledge_Attribute"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		q := Question(rec.Query)
		if !strings.HasSuffix(q, "?") || strings.Contains(q, "buy") || strings.Contains(q, "purchase") {
			t.Errorf("line %d: question %q still holds the purchase request", i+1, q)
		}
		res, err := c.WebSearch(context.Background(), q, 3)
		if err != nil || len(res) == 0 {
			t.Fatalf("line %d: search %q: %v", i+1, q, err)
		}
		if !strings.HasPrefix(res[0].Title, rec.Answer) || !strings.Contains(res[0].Content, rec.Answer) {
			t.Errorf("line %d: first result for %q is %+v, want the page answering %q", i+1, q, res[0], rec.Answer)
		}
	}

	bad := strings.Join([]string{
		`{"query": "Which city? Buy a strap.", "Knowledge_Attribute": "Milan", "reward": {}}`,
		`{"query": "Which city? Buy a strap.", "Knowledge_Attribute": "Milan", "reward": {}}`,
		`not json`,
		`{"Knowledge_Attribute": "Milan"}`,
		`{"query": "Which year?", "Knowledge_Attribute": 1974}`,
		`{"query": "Which year?", "Knowledge_Attribute": ""}`,
		`{"query": "Which one?", "Knowledge_Attribute": ["a"]}`,
		``,
		`{"query": "Which one?"}`,
	}, "\n")
	pages, rep, err = ImportSimpleQA(strings.NewReader(bad), "bad.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []int{3, 4, 6, 7, 9}
	var gotLines []int
	for _, e := range rep.Errors {
		gotLines = append(gotLines, e.Line)
		if msg := e.Error(); !strings.HasPrefix(msg, "bad.jsonl:") || strings.Contains(msg, "\n") {
			t.Errorf("error %q is not one line naming file and line", msg)
		}
	}
	if !reflect.DeepEqual(gotLines, wantLines) || rep.Records != 8 || rep.Duplicates != 1 || len(pages) != 2 {
		t.Fatalf("bad input: error lines %v (want %v), report %+v, %d pages", gotLines, wantLines, rep, len(pages))
	}
	if pages[1].Snippet != "Which year? The answer is 1974." {
		t.Errorf("numeric attribute page %+v", pages[1])
	}
}

func TestNewRejectsBadPages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages []Page
	}{
		{"no url", []Page{{Title: "t", Snippet: "s"}}},
		{"no title", []Page{{URL: "u", Snippet: "s"}}},
		{"no snippet", []Page{{URL: "u", Title: "t"}}},
		{"duplicate url", []Page{{URL: "u", Title: "t", Snippet: "s"}, {URL: "u", Title: "t2", Snippet: "s2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(context.Background(), tc.pages, zerolog.Nop()); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestSplitQuestion(t *testing.T) {
	for _, tc := range []struct{ query, question, request string }{
		{"Which brand of audio products was founded in Bergen in 1987? I want to buy a bluetooth speaker from that brand.",
			"Which brand of audio products was founded in Bergen in 1987?", "I want to buy a bluetooth speaker from that brand."},
		{"Ana Lind founded a company in Oslo, Norway, that sells audio products. What is the brand called? Show me earbuds from them.",
			"Ana Lind founded a company in Oslo, Norway, that sells audio products. What is the brand called?", "Show me earbuds from them."},
		{"Ana Lind founded a company in Oslo. What is it called? I'd like a mug.\n\nMy budget is `500`.",
			"Ana Lind founded a company in Oslo. What is it called?", "I'd like a mug.\n\nMy budget is `500`."},
		{"In which city did Marina Abramović perform \"Rhythm 4\" in 1974? I would like to purchase a metal magnetic strap themed around this city.",
			"In which city did Marina Abramović perform \"Rhythm 4\" in 1974?", "I would like to purchase a metal magnetic strap themed around this city."},
		{"What is the name of the audio brand that Ana Lind started in 1987? Can you get me earbuds by that company?",
			"What is the name of the audio brand that Ana Lind started in 1987?", "Can you get me earbuds by that company?"},
		{"Can you find a red mug? Also, under 500 pesos.", "", ""},
		{"Which mug is the cheapest?", "", ""},
		{"I'm looking for a red mug.", "", ""},
	} {
		q, r, ok := SplitQuestion(tc.query)
		if q != tc.question || r != tc.request || ok != (tc.question != "") {
			t.Errorf("SplitQuestion(%q) = %q, %q, %v; want %q, %q", tc.query, q, r, ok, tc.question, tc.request)
		}
	}
}
