package suite

import (
	"context"
	"errors"
	"testing"

	"github.com/rs/zerolog"

	"arena/internal/testseed"
	"arena/shop"
	"arena/shop/gen"
	"arena/store"
)

// restockingShop is a generated catalog that restocks lot after lot, as
// the validator's shop does on its block schedule.
type restockingShop struct {
	t    *testing.T
	g    *gen.Generator
	lot  int
	size int
	idx  *shop.Index
}

func newRestockingShop(t *testing.T, products, lotSize int, seed uint64) *restockingShop {
	t.Helper()
	g, err := gen.New(gen.Options{Products: products, Seed: seed}, zerolog.Nop())
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
	s := &restockingShop{t: t, g: g, size: lotSize}
	s.index(cat)
	return s
}

func (s *restockingShop) index(cat *shop.Catalog) {
	s.t.Helper()
	var err error
	if s.idx, err = shop.BuildIndex(context.Background(), cat, shop.IndexOptions{Workers: 2}, zerolog.Nop()); err != nil {
		s.t.Fatal(err)
	}
}

// restock adds the next lot.
func (s *restockingShop) restock() {
	s.t.Helper()
	s.lot++
	more, err := s.g.Lot(context.Background(), s.lot, s.size)
	if err != nil {
		s.t.Fatal(err)
	}
	cat, err := s.idx.Catalog().With(more)
	if err != nil {
		s.t.Fatal(err)
	}
	s.index(cat)
}

// jaccard is the exact Jaccard similarity of two queries' shingle sets, the
// quantity the ledger's MinHash estimates.
func jaccard(sh *shingler, a, b string) float64 {
	sa, sb := sh.shingles(a), sh.shingles(b)
	in := map[uint64]bool{}
	for _, x := range sa {
		in[x] = true
	}
	both := 0
	for _, x := range sb {
		if in[x] {
			both++
		}
	}
	union := len(sa) + len(sb) - both
	if union == 0 {
		return 0
	}
	return float64(both) / float64(union)
}

// TestRestockedRacesKeepTheGuarantee races a small catalog far past what
// its own products can target, restocking every few races, and checks
// the leak-cluster guarantee at every draw against everything a racer
// has seen (the public set and every exposed race problem): no problem
// is drawn again, none shares a target with one seen (its answer would
// follow from the one seen), none is a near-duplicate of one seen (exact
// shingle Jaccard at or above 0.7, where the MinHash LSH misses one pair
// in ten thousand). With restocks the pool never runs dry; without them
// it does, which shows the races needed them.
func TestRestockedRacesKeepTheGuarantee(t *testing.T) {
	seed := testseed.Seed(t)
	const (
		products, lotSize, restockEvery = 800, 150, 5
		races, perRace, poolMin         = 70, 10, 20
	)
	tests := []struct {
		name    string
		restock bool
	}{
		{"restocking", true},
		{"never restocking", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(store.Options{Dir: t.TempDir()}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			l, err := NewLedger(LedgerOptions{Store: st, ProblemsPerRace: perRace}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			s := newRestockingShop(t, products, lotSize, 3)
			source := func() Source {
				g, err := NewGenerator(GeneratorOptions{Index: s.idx, Seed: seed, Workers: 2}, zerolog.Nop())
				if err != nil {
					t.Fatal(err)
				}
				return GeneratorSource(g, nil)
			}
			src := source()
			public, err := src(ctx, 1<<40, 20, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Add(ctx, public, Public); err != nil {
				t.Fatal(err)
			}
			sh := &shingler{k: 2, ignored: ignoredWords()}
			seen := append([]Problem(nil), public...)
			seenTargets := map[string]bool{}
			for _, p := range public {
				for _, tg := range p.Targets {
					seenTargets[tg] = true
				}
			}
			exposed := map[string]bool{}
			for race := range races {
				if tt.restock && race > 0 && race%restockEvery == 0 {
					s.restock()
					src = source()
				}
				if _, err := l.Refill(ctx, poolMin, src); err != nil {
					t.Logf("race %d: %v", race, err)
				}
				drawn, err := l.Draw(Hidden, perRace, seed+uint64(race))
				if errors.Is(err, ErrPoolExhausted) && !tt.restock {
					t.Logf("ran dry at race %d, as a catalog of %d products must", race, products)
					return
				}
				if err != nil {
					t.Fatalf("race %d (%d lots restocked): %v", race, s.lot, err)
				}
				var clusters []string
				for _, p := range drawn {
					if exposed[p.Cluster] {
						t.Fatalf("race %d: cluster %s drawn again", race, p.Cluster)
					}
					c, _, err := l.ClusterRecord(p.Cluster)
					if err != nil {
						t.Fatal(err)
					}
					for _, tg := range c.Targets {
						if seenTargets[tg] {
							t.Fatalf("race %d: problem %s's cluster targets %s, a target of a problem racers have seen", race, p.ID, tg)
						}
					}
					for _, q := range seen {
						if j := jaccard(sh, p.Query, q.Query); j >= 0.7 {
							t.Fatalf("race %d: problem %s is a near-duplicate (Jaccard %.2f) of %s, which racers have seen:\n%q\n%q",
								race, p.ID, j, q.ID, p.Query, q.Query)
						}
					}
					clusters = append(clusters, p.Cluster)
				}
				if err := l.MarkExposed(clusters, []string{"racer"}, uint64(race+1)); err != nil {
					t.Fatal(err)
				}
				for _, id := range clusters {
					exposed[id] = true
					c, _, err := l.ClusterRecord(id)
					if err != nil {
						t.Fatal(err)
					}
					for _, tg := range c.Targets {
						seenTargets[tg] = true
					}
					for _, pid := range c.Problems {
						p, _, err := l.Problem(pid)
						if err != nil {
							t.Fatal(err)
						}
						seen = append(seen, p)
					}
				}
			}
			if !tt.restock {
				t.Fatalf("%d races of %d problems on %d products without a restock: the test no longer needs restocks to pass", races, perRace, products)
			}
			t.Logf("%d races on %d products and %d lots of %d; %d targets seen", races, products, s.lot, lotSize, len(seenTargets))
		})
	}
}
