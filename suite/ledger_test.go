package suite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/store"
)

func testLedger(t *testing.T) *Ledger {
	t.Helper()
	st, err := store.Open(store.Options{Dir: t.TempDir()}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l, err := NewLedger(LedgerOptions{Store: st, ProblemsPerRace: 2}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// syntheticSource makes problems whose targets come from a pool of
// poolSize ids (so new problems often share a target with old ones) and
// whose queries are random words, every seventh a near-copy of an earlier
// slot's query (so near-duplicates occur too). Slot i always gives the
// same problem.
func syntheticSource(poolSize int) Source {
	query := func(slot uint64) string {
		r := rand.New(rand.NewPCG(slot, 2))
		var ws []string
		for range 10 {
			ws = append(ws, fmt.Sprintf("w%d", r.IntN(50000)))
		}
		return strings.Join(ws, " ")
	}
	return func(_ context.Context, offset uint64, n int, _ []string) ([]Problem, error) {
		var out []Problem
		for i := range uint64(n) {
			slot := offset + i
			r := rand.New(rand.NewPCG(slot, 1))
			q := query(slot)
			if slot%7 == 6 && slot > 20 {
				q = query(slot-uint64(1+r.IntN(20))) + " again"
			}
			p := Problem{Type: Types()[slot%3], Query: "Looking for " + q, Reward: Reward{List: true}}
			items := 1 + r.IntN(2)
			if p.Type == TypeProduct {
				items = 1
			}
			for range items {
				p.Reward.Items = append(p.Reward.Items, Item{ProductID: fmt.Sprint(r.IntN(poolSize)), Title: []string{"t"}})
			}
			if p.Type == TypeVoucher {
				p.Voucher = &Voucher{VoucherType: VoucherPlatform, DiscountType: DiscountFixed, FaceValue: ptr(5.0), Budget: 100}
			}
			if err := p.Finish(); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
}

func TestLedgerRaces(t *testing.T) {
	ctx := context.Background()
	l := testLedger(t)
	src := syntheticSource(6000)
	public, err := src(ctx, 1<<40, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(ctx, public, Public); err != nil {
		t.Fatal(err)
	}
	const races, k = 1000, 2
	exposedClusters := map[string]bool{}
	exposedTargets := map[string]bool{}
	publicTargets := map[string]bool{}
	for _, p := range public {
		for _, tg := range p.Targets {
			publicTargets[tg] = true
		}
	}
	refills := 0
	for race := range races {
		avail, err := l.HiddenAvailable()
		if err != nil {
			t.Fatal(err)
		}
		if avail < k {
			if _, err := l.Refill(ctx, 10*k, src); err != nil {
				t.Fatalf("race %d: %v", race, err)
			}
			refills++
		}
		drawn, err := l.Draw(Hidden, k, uint64(race))
		if err != nil {
			t.Fatalf("race %d: %v", race, err)
		}
		var clusters []string
		seen := map[string]bool{}
		for _, p := range drawn {
			if seen[p.Cluster] {
				t.Fatalf("race %d: two problems from cluster %s", race, p.Cluster)
			}
			seen[p.Cluster] = true
			if exposedClusters[p.Cluster] {
				t.Fatalf("race %d: cluster %s drawn after it was exposed", race, p.Cluster)
			}
			c, _, err := l.ClusterRecord(p.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range c.Targets {
				if exposedTargets[tg] || publicTargets[tg] {
					t.Fatalf("race %d: cluster %s shares target %s with an exposed or public cluster", race, p.Cluster, tg)
				}
			}
			clusters = append(clusters, p.Cluster)
		}
		if err := l.MarkExposed(clusters, []string{"miner-a", fmt.Sprintf("miner-%d", race%5)}, uint64(race+1)); err != nil {
			t.Fatal(err)
		}
		for _, id := range clusters {
			exposedClusters[id] = true
			c, _, err := l.ClusterRecord(id)
			if err != nil {
				t.Fatal(err)
			}
			if c.Partition != Retired || c.FirstExposed != uint64(race+1) {
				t.Fatalf("race %d: cluster %s is %s, first exposed %d", race, id, c.Partition, c.FirstExposed)
			}
			for _, tg := range c.Targets {
				exposedTargets[tg] = true
			}
		}
		if race%50 == 0 {
			// A leak found by the judge: compromise a hidden cluster; it
			// must never be drawn either.
			if extra, err := l.Draw(Hidden, 1, uint64(race)+1e6); err == nil {
				if err := l.MarkCompromised(extra[0].Cluster, "ungrounded answer"); err != nil {
					t.Fatal(err)
				}
				exposedClusters[extra[0].Cluster] = true
				c, _, _ := l.ClusterRecord(extra[0].Cluster)
				for _, tg := range c.Targets {
					exposedTargets[tg] = true
				}
			}
		}
	}
	st, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d races, %d refills; retired %d clusters, compromised %d, hidden available %d",
		races, refills, st.Partitions[Retired].Clusters, st.Partitions[Compromised].Clusters, st.HiddenAvailable)
	if st.Partitions[Retired].Clusters != races*k {
		t.Errorf("retired %d clusters, want %d", st.Partitions[Retired].Clusters, races*k)
	}
}

func TestLedgerOperations(t *testing.T) {
	ctx := context.Background()
	l := testLedger(t)
	mk := func(q string, targets ...string) Problem { return mkProblem(t, q, targets...) }
	pub := []Problem{mk("alpha beta gamma delta", "1"), mk("epsilon zeta eta theta", "2")}
	hid := []Problem{mk("iota kappa lambda mu", "3"), mk("nu xi omicron pi", "4"), mk("rho sigma tau upsilon", "4", "5")}
	rep, err := l.Add(ctx, pub, Public)
	if err != nil || rep.Added != 2 || rep.NewClusters != 2 {
		t.Fatalf("add public: %+v %v", rep, err)
	}
	rep, err = l.Add(ctx, hid, Hidden)
	if err != nil || rep.Added != 3 || rep.NewClusters != 2 {
		t.Fatalf("add hidden: %+v %v", rep, err)
	}
	t.Run("idempotent add", func(t *testing.T) {
		rep, err := l.Add(ctx, hid, Hidden)
		if err != nil || rep.Known != 3 || rep.Added != 0 {
			t.Fatalf("re-add: %+v %v", rep, err)
		}
	})
	t.Run("new problem in a public cluster is discarded", func(t *testing.T) {
		rep, err := l.Add(ctx, []Problem{mk("phi chi psi omega", "1"), mk("alpha beta gamma delta again", "99")}, Hidden)
		if err != nil || rep.Discarded != 2 || rep.Added != 0 {
			t.Fatalf("add: %+v %v", rep, err)
		}
	})
	t.Run("new problem in a hidden cluster joins it", func(t *testing.T) {
		rep, err := l.Add(ctx, []Problem{mk("one two three four", "3")}, Hidden)
		if err != nil || rep.Joined != 1 {
			t.Fatalf("add: %+v %v", rep, err)
		}
	})
	t.Run("draw distinct clusters", func(t *testing.T) {
		ps, err := l.Draw(Hidden, 2, 1)
		if err != nil || len(ps) != 2 || ps[0].Cluster == ps[1].Cluster {
			t.Fatalf("draw: %v %v", ps, err)
		}
		again, err := l.Draw(Hidden, 2, 1)
		if err != nil || again[0].ID != ps[0].ID || again[1].ID != ps[1].ID {
			t.Fatalf("same seed drew %v then %v", ps, again)
		}
		if _, err := l.Draw(Hidden, 3, 1); !errors.Is(err, ErrPoolExhausted) {
			t.Fatalf("draw 3 of 2: %v", err)
		}
		if _, err := l.Draw(Hidden, 0, 1); err == nil {
			t.Fatal("draw 0: no error")
		}
	})
	t.Run("mark exposed is atomic", func(t *testing.T) {
		ps, _ := l.Draw(Hidden, 1, 1)
		err := l.MarkExposed([]string{ps[0].Cluster, "cnope"}, []string{"m"}, 7)
		if err == nil || !strings.Contains(err.Error(), "cnope") {
			t.Fatalf("err %v", err)
		}
		c, _, _ := l.ClusterRecord(ps[0].Cluster)
		if c.Exposed() || c.Partition != Hidden {
			t.Fatalf("failed MarkExposed changed %+v", c)
		}
		if err := l.MarkExposed([]string{ps[0].Cluster}, []string{"m"}, 0); err == nil {
			t.Fatal("block 0 accepted")
		}
	})
	t.Run("compromised is never drawn", func(t *testing.T) {
		ps, _ := l.Draw(Hidden, 1, 1)
		if err := l.MarkCompromised(ps[0].Cluster, "leak"); err != nil {
			t.Fatal(err)
		}
		left, err := l.Draw(Hidden, 1, 2)
		if err != nil || left[0].Cluster == ps[0].Cluster {
			t.Fatalf("draw: %v %v", left, err)
		}
		if err := l.MarkCompromised("cnope", "x"); err == nil {
			t.Fatal("unknown cluster accepted")
		}
	})
	t.Run("stats", func(t *testing.T) {
		st, err := l.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Partitions[Public].Clusters != 2 || st.Partitions[Compromised].Clusters != 1 || st.HiddenAvailable != 1 || st.RacesCovered != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
	if _, err := l.Add(ctx, pub, Retired); err == nil {
		t.Error("add to retired accepted")
	}
}
