package devarena

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"arena/validator"
)

// TestBestMinerArrivesLate: the weaker miner races alone and is crowned;
// the best one announces its axon a race window later, qualifies, and
// takes the crown once the accumulated heats show it better by more than
// the margin.
func TestBestMinerArrivesLate(t *testing.T) {
	a, events := testArena(t, func(o *Options) {
		o.Miners, o.Skills, o.BestArrivesAfter = 2, []float64{1.0, 0.5}, 1
	})
	best, weak := a.Miners[0], a.Miners[1]
	if best.ArrivesAt != a.Config.Validator.RaceEveryBlocks || weak.ArrivesAt != 0 {
		t.Fatalf("arrivals: best at block %d, weak at %d; want %d and 0", best.ArrivesAt, weak.ArrivesAt, a.Config.Validator.RaceEveryBlocks)
	}
	var crowns []string
	deadline := time.After(6 * time.Minute)
	for {
		var e validator.Event
		select {
		case e = <-events:
		case <-deadline:
			t.Fatalf("no dethronement within 6 minutes; crowns so far: %v", crowns)
		}
		if e.Kind == validator.EventQualified {
			t.Logf("block %d: %s", e.Block, e.Text)
			if e.UID == best.UID && e.Block < best.ArrivesAt {
				t.Fatalf("the held-back miner qualified at block %d, before its arrival at %d", e.Block, best.ArrivesAt)
			}
		}
		if e.Kind != validator.EventRaceDone {
			continue
		}
		t.Logf("block %d: %s", e.Block, e.Text)
		switch {
		case strings.Contains(e.Text, ": crowned"):
			crowns = append(crowns, e.Text)
			if !strings.Contains(e.Text, leaderText(weak.UID)) {
				t.Fatalf("the first crown went elsewhere than the miner racing alone (uid %d): %s", weak.UID, e.Text)
			}
		case strings.Contains(e.Text, ": dethroned"):
			if len(crowns) == 0 {
				t.Fatalf("dethroned before any crown: %s", e.Text)
			}
			if !strings.Contains(e.Text, leaderText(best.UID)) {
				t.Fatalf("the crown passed to someone other than the best miner (uid %d): %s", best.UID, e.Text)
			}
			return
		}
	}
}

func leaderText(uid uint16) string { return fmt.Sprintf("leader uid %d (", uid) }
