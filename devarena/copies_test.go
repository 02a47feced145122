package devarena

import (
	"context"
	"github.com/dgraph-io/badger/v4"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/chain"
)

// TestCopiesLeadAsOne: three copies of the best reference miner (the same
// skill, each with its own luck on each problem) and two weaker miners,
// raced by three independent validators on their own hidden problems.
// The weaker miners are strong enough to qualify on every validator, so
// each crowns by showing the copies better than them; below the floor
// they would leave only the near-tie among the copies, which takes far
// more races to show.
// The copy registered first is not the lowest uid (that one registers
// again after setup), and every validator must lead with it, so that Yuma
// consensus pays it, not a split among the copies (docs/scoring.md,
// "Copies").
func TestCopiesLeadAsOne(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-validator devnet race")
	}
	a, _ := testArena(t, func(o *Options) {
		o.Validators, o.Miners = 3, 5
		o.Skills = []float64{0.95, 0.95, 0.95, 0.7, 0.55}
		o.Reregistered = []int{0}
	})
	// Setup registers the miners in one block or two, so among them the
	// lower uid is the earlier; the re-registered lowest uid is the latest.
	copies := a.Miners[:3]
	first := copies[1]
	if copies[0].UID > first.UID || copies[0].RegisteredAt <= first.RegisteredAt || copies[2].RegisteredAt < first.RegisteredAt {
		t.Fatalf("copies registered at uid %d block %d, uid %d block %d, uid %d block %d: want uid %d first although not the lowest uid",
			copies[0].UID, copies[0].RegisteredAt, copies[1].UID, copies[1].RegisteredAt, copies[2].UID, copies[2].RegisteredAt, first.UID)
	}

	client, err := chain.Dial(context.Background(), chain.Options{URL: a.Devnet.URL()}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	deadline := time.Now().Add(4 * time.Minute)
	var leaders []int
	var incentive float64
	for time.Now().Before(deadline) {
		leaders = leaders[:0]
		for _, st := range a.Stacks {
			l := -1
			if rows, err := st.Validator.Leaderboard(); err == nil && len(rows) > 0 && rows[0].Leader {
				l = int(rows[0].UID)
			}
			leaders = append(leaders, l)
		}
		meta, err := client.Metagraph(context.Background(), a.Devnet.Netuid())
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range meta.Neurons {
			if n.UID == first.UID {
				incentive = chain.U16ToFloat(n.Incentive)
			}
		}
		agree := true
		for _, l := range leaders {
			agree = agree && l == int(first.UID)
		}
		if agree && incentive >= 0.9 {
			t.Logf("every validator leads with uid %d (registered at block %d); its incentive is %.3f", first.UID, first.RegisteredAt, incentive)
			return
		}
		time.Sleep(time.Second)
	}
	for i, st := range a.Stacks {
		_ = st.Validator.Store().View(func(txn *badger.Txn) error {
			races, err := st.Validator.Records().ListRaces(txn, 6)
			for _, rc := range races {
				if o := rc.Output; o != nil {
					t.Logf("validator %d race %d (block %d, %s): %s, racers %v, group %v, decision %+v", i, rc.ID, rc.StartedBlock, rc.Phase, o.Outcome, o.Results, o.Group, o.Decision)
				} else {
					t.Logf("validator %d race %d (block %d, %s): abort %q, %d racers", i, rc.ID, rc.StartedBlock, rc.Phase, rc.AbortReason, len(rc.Racers))
				}
			}
			return err
		})
	}
	t.Fatalf("after 4 minutes the validators lead with %v and uid %d (the earliest-registered copy) has incentive %.3f; want uid %d everywhere and at least 0.9",
		leaders, first.UID, incentive, first.UID)
}
