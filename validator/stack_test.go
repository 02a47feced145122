package validator

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
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
		mix  string
		want map[suite.Type]bool
	}{
		{"product:0.4,shop:0.3,voucher:0.3", map[suite.Type]bool{suite.TypeProduct: true, suite.TypeShop: true, suite.TypeVoucher: true}},
		{"knowledge:1", map[suite.Type]bool{suite.TypeKnowledge: true}},
		{"product:0.5,knowledge:0.5", map[suite.Type]bool{suite.TypeProduct: true, suite.TypeKnowledge: true}},
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
			if _, err := prepareSuite(ctx, ledger, idx, web, mix, 5, vc, zerolog.Nop(), func(string, int, int) {}); err != nil {
				t.Fatal(err)
			}
			ps, err := ledger.AllProblems(ctx)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[suite.Type]int{}
			for _, p := range ps {
				seen[p.Type]++
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
