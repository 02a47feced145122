package devarena

import (
	"context"
	"testing"
	"time"

	"arena/chain"
)

// TestStatusShowsTheChainsSubnet: over the devnet's StorageQuery, the
// validator's status shows the subnet's epoch schedule, its mechanism
// count and MinerBurned as the chain sets them.
func TestStatusShowsTheChainsSubnet(t *testing.T) {
	a, _ := testArena(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.Devnet.SetMechanismCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := a.Devnet.SetMinerBurned(ctx, chain.U96F32{Lo: 1 << 30}); err != nil { // 0.25
		t.Fatal(err)
	}
	for {
		st, err := a.Stack.Validator.StatusNow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sn, e := st.Subnet, st.Epochs; sn != nil && e != nil && sn.Mechanisms == 2 && sn.MinerBurned == 0.25 {
			if e.Tempo != uint16(a.Devnet.Tempo()) || e.EpochIndex == 0 {
				t.Errorf("epochs %+v, tempo %d", e, a.Devnet.Tempo())
			}
			return
		}
		head, err := a.Devnet.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Devnet.WaitForBlock(ctx, head+1); err != nil {
			t.Fatalf("status never showed 2 mechanisms and 25%% burned: %+v %+v", st.Subnet, st.Epochs)
		}
	}
}
