package validator

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/internal/llmclient/llmtest"
	"arena/knowledge"
	"arena/store"
	"arena/suite"
)

// TestPrepareSuiteFollowsMix: the public set and the hidden pool a fresh
// validator generates hold exactly the types validator.problem_mix names,
// knowledge included (served by the web corpus built from the catalog).
func TestPrepareSuiteFollowsMix(t *testing.T) {
	ts := loadTestSuite(t)
	idx := ts.index
	web, err := knowledge.Build(context.Background(), idx.Catalog(), knowledge.Options{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mix        string
		paraphrase bool
		want       map[suite.Type]bool
	}{
		{"product:0.4,shop:0.3,voucher:0.3", false, map[suite.Type]bool{suite.TypeProduct: true, suite.TypeShop: true, suite.TypeVoucher: true}},
		{"knowledge:1", false, map[suite.Type]bool{suite.TypeKnowledge: true}},
		{"product:0.5,knowledge:0.5", true, map[suite.Type]bool{suite.TypeProduct: true, suite.TypeKnowledge: true}},
	} {
		t.Run(tc.mix, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(store.Options{Dir: t.TempDir()}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			mix, err := suite.ParseMix(tc.mix)
			if err != nil {
				t.Fatal(err)
			}
			vc := config.Default().Validator
			vc.PublicProblems, vc.QualifyingProblems, vc.HiddenMinClusters, vc.RaceProblems = 20, 6, 12, 4
			gi := generatorInputs{stock: &Stock{Index: idx, Web: web}, mix: mix}
			if tc.paraphrase {
				srv := llmtest.NewServer(t, func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "Hello. " + r.Last} })
				gi.paraphraser, err = suite.NewParaphraser(suite.ParaphraseOptions{BaseURL: srv.URL + "/v1", Model: "m",
					Catalog: idx.Catalog(), HTTPClient: srv.Client()}, zerolog.Nop())
				if err != nil {
					t.Fatal(err)
				}
			}
			if _, err := prepareSuite(ctx, ledger, gi, 5, vc, zerolog.Nop(), func(string, int, int) {}); err != nil {
				t.Fatal(err)
			}
			ps, err := ledger.AllProblems(ctx)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[suite.Type]int{}
			for _, p := range ps {
				seen[p.Type]++
				if tc.paraphrase != (p.Paraphrase != nil) || tc.paraphrase && !strings.HasPrefix(p.Query, "Hello. ") {
					t.Errorf("problem %s: paraphrase %+v, query %q; want it paraphrased: %v", p.ID, p.Paraphrase, p.Query, tc.paraphrase)
				}
			}
			t.Logf("%d problems by type: %v", len(ps), seen)
			for typ, n := range seen {
				if !tc.want[typ] {
					t.Errorf("%d %s problems; the mix does not name %s", n, typ, typ)
				}
			}
			for typ := range tc.want {
				if seen[typ] == 0 {
					t.Errorf("no %s problem although the mix names it", typ)
				}
			}
		})
	}
}
