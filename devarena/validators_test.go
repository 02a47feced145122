package devarena

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/chain"
	"arena/validator"
)

// TestThreeValidatorsAgree runs three independent validators (own keys,
// stores and hidden draws, equal stake) against the same reference miners
// of clearly different skill, and checks on chain that all three set their
// weights for the best miner and that the devnet's Yuma pays it (nearly)
// all the incentive, with full consensus and validator trust.
func TestThreeValidatorsAgree(t *testing.T) {
	skills := []float64{1.0, 0.8, 0.6}
	a, events := testArena(t, func(o *Options) {
		o.Validators, o.Miners, o.Skills = 3, len(skills), skills
	})
	if len(a.Stacks) != 3 || len(a.ValidatorUIDs) != 3 {
		t.Fatalf("%d stacks, validator uids %v; want 3", len(a.Stacks), a.ValidatorUIDs)
	}
	best := a.Miners[0].UID // skill 1.0
	ctx := context.Background()
	client, err := chain.Dial(ctx, chain.Options{URL: a.Devnet.URL()}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	deadline := time.Now().Add(8 * time.Minute)
	var (
		leaders []int
		agreed  uint64 // the block at which all three first led with the best miner
	)
	for {
		// The first validator's story, for the log.
		for drained := false; !drained; {
			select {
			case e := <-events:
				if e.Kind == validator.EventRaceDone || e.Kind == validator.EventRaceSkipped || e.Kind == validator.EventQualified {
					t.Logf("validator uid %d, block %d: %s", a.ValidatorUIDs[0], e.Block, e.Text)
				}
			default:
				drained = true
			}
		}
		leaders = leaders[:0]
		for _, st := range a.Stacks {
			l := -1
			if rows, err := st.Validator.Leaderboard(); err == nil && len(rows) > 0 && rows[0].Leader {
				l = int(rows[0].UID)
			}
			leaders = append(leaders, l)
		}
		meta, err := client.Metagraph(ctx, a.Devnet.Netuid())
		if err != nil {
			t.Fatal(err)
		}
		all := true
		for _, l := range leaders {
			all = all && l == int(best)
		}
		if all && agreed == 0 {
			agreed = meta.Block
			t.Logf("block %d: every validator leads with uid %d (skill 1.0)", meta.Block, best)
		}
		// Two tempos after the agreement every validator's weights have
		// landed and an epoch has run on them.
		if agreed > 0 && meta.Block > agreed+2*a.Devnet.Tempo()+10 {
			incentive := chain.U16ToFloat(meta.Neurons[best].Incentive)
			for _, uid := range a.ValidatorUIDs {
				n := meta.Neurons[uid]
				t.Logf("validator uid %d: vtrust %.3f, dividends %.3f", uid, chain.U16ToFloat(n.Vtrust), chain.U16ToFloat(n.Dividends))
				if v := chain.U16ToFloat(n.Vtrust); v < 0.9 {
					t.Errorf("validator uid %d has vtrust %.3f: its weights disagree with the majority", uid, v)
				}
			}
			t.Logf("block %d: best miner uid %d has incentive %.3f and consensus %.3f", meta.Block, best, incentive, chain.U16ToFloat(meta.Neurons[best].Consensus))
			if incentive < 0.9 {
				t.Fatalf("the best miner gets %.3f of the incentive, want >= 0.9", incentive)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 8 minutes the validators lead with %v; want uid %d everywhere", leaders, best)
		}
		if err := a.Devnet.WaitForBlock(ctx, meta.Block+5); err != nil {
			t.Fatal(err)
		}
	}
}
