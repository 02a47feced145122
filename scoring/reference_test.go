package scoring

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"arena/shop"
	"arena/suite"
)

// referenceDir is where the ShoppingBench and ORO samples live: they are
// problem files, so the suite package that imports them holds them.
const referenceDir = "../suite/testdata"

func loadReference(t *testing.T, format, rel string) []suite.Problem {
	t.Helper()
	path := filepath.Join(referenceDir, rel)
	problems, rep, err := suite.ImportFile(path, format)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	if len(problems) == 0 {
		t.Fatalf("import %s: no problems (%+v)", path, rep)
	}
	return problems
}

// targetDocuments builds, for a sample that ships no product documents,
// the target documents from the reward's own constraints: the title is
// the title phrase (ShoppingBench's reward titles are the target's own
// title), the price lies inside every bound, the services, SKU options
// (one variant holding all requested options) and attributes are the
// requested ones, and every item sits in one shop. For voucher problems
// the basket total is the one ShoppingBench's price_after_voucher implies,
// split evenly over the items. Nothing is added that the reward does not
// state, so the documents are what a correct catalog entry must at least
// contain.
func targetDocuments(t *testing.T, p *suite.Problem) []*shop.Product {
	t.Helper()
	docs := make([]*shop.Product, len(p.Reward.Items))
	for i, it := range p.Reward.Items {
		d := &shop.Product{ProductID: it.ProductID, ShopID: "reference-shop", Price: 100}
		if len(it.Title) > 0 {
			d.Title = it.Title[0]
		}
		for _, b := range it.Price {
			switch {
			case b.Op == suite.OpBetween && b.Lo != nil && b.Hi != nil:
				d.Price = (*b.Lo + *b.Hi) / 2
			case b.Op == suite.OpGreaterThan && b.Lo != nil:
				d.Price = *b.Lo + 1
			case b.Op == suite.OpLessThan && b.Hi != nil:
				d.Price = *b.Hi / 2
			}
		}
		for _, s := range it.Service {
			bit, ok := shop.ParseService(s)
			if !ok {
				t.Fatalf("%s item %d: unknown service %q", p.Source, i+1, s)
			}
			d.Service |= bit
		}
		var sku shop.SKU
		for _, m := range it.SKUOptions {
			for _, k := range sortedKeys(m) {
				sku = append(sku, shop.Option{Key: k, Value: m[k]})
			}
		}
		if sku != nil {
			// A decoy variant first, so the best-variant choice matters.
			decoy := make(shop.SKU, len(sku))
			for j, o := range sku {
				decoy[j] = shop.Option{Key: o.Key, Value: o.Value + " (other)"}
			}
			d.SKUOptions = []shop.SKU{decoy, sku}
		}
		for _, m := range it.Attributes {
			for _, k := range sortedKeys(m) {
				d.Attributes = append(d.Attributes, shop.Attribute{Key: k, Values: m[k]})
			}
		}
		docs[i] = d
	}
	if v := p.Voucher; v != nil {
		total := impliedTotal(t, v)
		for _, d := range docs {
			d.Price = total / float64(len(docs))
		}
	}
	return docs
}

// impliedTotal inverts the voucher: the basket total whose discounted
// price is price_after_voucher.
func impliedTotal(t *testing.T, v *suite.Voucher) float64 {
	t.Helper()
	switch v.DiscountType {
	case suite.DiscountFixed:
		return v.PriceAfterVoucher + *v.FaceValue
	case suite.DiscountPercentage:
		total := v.PriceAfterVoucher / (1 - *v.Discount)
		if v.Cap != nil && total**v.Discount > *v.Cap {
			total = v.PriceAfterVoucher + *v.Cap
		}
		return total
	}
	t.Fatalf("discount type %q", v.DiscountType)
	return 0
}

func checkPerfect(t *testing.T, p *suite.Problem, ans []Answer, wantGT float64) Metrics {
	t.Helper()
	m, err := Rules(context.Background(), Input{Problem: p, Answers: ans, Observed: observedOf(ans)}, Options{})
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	if m.GT != wantGT || m.Rule != 1 || !m.Success {
		b, _ := json.MarshalIndent(m, "", " ")
		t.Fatalf("gt %v (want %v) rule %v success %v:\n%s", m.GT, wantGT, m.Rule, m.Success, b)
	}
	return m
}

func observedOf(ans []Answer) map[string]bool {
	o := map[string]bool{}
	for _, a := range ans {
		o[a.ID] = true
	}
	return o
}

// TestReferenceSamples answers every ShoppingBench product/shop/voucher
// sample and the ORO sample with its target documents and expects
// gt = rule = ASR = 1. It then answers with the same documents under
// other ids, so the constraints alone must give rule = 1 (the id
// shortcut cannot hide a constraint the scorer misreads).
func TestReferenceSamples(t *testing.T) {
	sets := []struct{ format, file string }{
		{suite.FormatShoppingBench, "shoppingbench/product_sample.jsonl"},
		{suite.FormatShoppingBench, "shoppingbench/shop_sample.jsonl"},
		{suite.FormatShoppingBench, "shoppingbench/voucher_sample.jsonl"},
		{suite.FormatORO, "oro/problem_suite_v3_sample.json"},
	}
	for _, set := range sets {
		for i, p := range loadReference(t, set.format, set.file) {
			t.Run(fmt.Sprintf("%s#%d", set.file, i+1), func(t *testing.T) {
				docs := targetDocuments(t, &p)
				ans := make([]Answer, len(docs))
				decoys := make([]Answer, len(docs))
				for j, d := range docs {
					ans[j] = Answer{ID: d.ProductID, Product: d}
					c := *d
					c.ProductID = "decoy-" + d.ProductID
					decoys[j] = Answer{ID: c.ProductID, Product: &c}
				}
				m := checkPerfect(t, &p, ans, 1)
				if p.Voucher != nil {
					if !m.VoucherApplied || math.Abs(m.AfterVoucher-p.Voucher.PriceAfterVoucher) > 1e-6 {
						t.Fatalf("voucher applied %v, after %v, want %v", m.VoucherApplied, m.AfterVoucher, p.Voucher.PriceAfterVoucher)
					}
				}
				checkPerfect(t, &p, decoys, 0)
			})
		}
	}
}

// TestReferenceKnowledgeDocuments uses the one sample that ships real
// target documents: knowledge_sample.jsonl's reward is the full product.
// A product problem whose title phrase is that product's title is
// answered with the document itself, through the product JSON codec.
func TestReferenceKnowledgeDocuments(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(referenceDir, "shoppingbench/knowledge_sample.jsonl"))
	if err != nil {
		t.Fatalf("read knowledge sample: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		t.Run(fmt.Sprintf("line%d", n), func(t *testing.T) {
			var rec struct {
				Query  string          `json:"query"`
				Reward json.RawMessage `json:"reward"`
			}
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("decode: %v", err)
			}
			var doc shop.Product
			if err := doc.UnmarshalJSON(rec.Reward); err != nil {
				t.Fatalf("product document: %v", err)
			}
			if err := doc.Validate(); err != nil {
				t.Fatalf("product document: %v", err)
			}
			it := suite.Item{ProductID: doc.ProductID, Title: []string{doc.Title}}
			if doc.Price > 0 {
				it.Price = []suite.PriceBound{between(doc.Price, doc.Price)}
			}
			it.Service = doc.Service.Names()
			for _, sku := range doc.SKUOptions[:min(1, len(doc.SKUOptions))] {
				m := map[string]string{}
				for _, o := range sku {
					m[o.Key] = o.Value
				}
				it.SKUOptions = append(it.SKUOptions, m)
			}
			for _, a := range doc.Attributes {
				it.Attributes = append(it.Attributes, map[string][]string{a.Key: a.Values})
			}
			p := &suite.Problem{ID: "k", Type: suite.TypeProduct, Query: rec.Query, Reward: suite.Reward{Items: []suite.Item{it}}}
			checkPerfect(t, p, []Answer{{ID: doc.ProductID, Product: &doc}}, 1)
			c := doc
			c.ProductID = "decoy"
			checkPerfect(t, p, []Answer{{ID: "decoy", Product: &c}}, 0)
		})
	}
	if err := sc.Err(); err != nil || n == 0 {
		t.Fatalf("knowledge sample: %d lines, %v", n, err)
	}
}

// TestReferenceTitleThreshold: the default threshold passes every title
// phrase of the ShoppingBench samples against the target's own title,
// and the phrase of one sample does not pass for another sample's title
// (the threshold is not vacuous on this data).
func TestReferenceTitleThreshold(t *testing.T) {
	var titles []string
	for _, f := range []string{"product_sample.jsonl", "shop_sample.jsonl", "voucher_sample.jsonl"} {
		for _, p := range loadReference(t, suite.FormatShoppingBench, "shoppingbench/"+f) {
			for _, it := range p.Reward.Items {
				titles = append(titles, it.Title...)
			}
		}
	}
	if len(titles) < 100 {
		t.Fatalf("only %d title phrases", len(titles))
	}
	lex := Lexical{}
	cross := 0
	for i, ph := range titles {
		if ok, _ := lex.MatchTitle(context.Background(), ph, ph); !ok {
			t.Errorf("own title fails: %q (similarity %v)", ph, TokenSetSimilarity(ph, ph))
		}
		other := titles[(i+1)%len(titles)]
		if ok, _ := lex.MatchTitle(context.Background(), ph, other); ok && ph != other {
			cross++
			t.Logf("phrase %q passes for %q", ph, other)
		}
	}
	if cross > len(titles)/20 {
		t.Errorf("%d of %d phrases pass for an unrelated title", cross, len(titles))
	}
}
