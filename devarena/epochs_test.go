package devarena

import (
	"context"
	"testing"
	"time"

	"arena/validator"
)

// TestCommitRevealSurvivesTempoChange: the subnet's tempo changes while
// the validator's weights are committed and not yet revealed. Subtensor
// then restarts the epoch cycle at the change (LastEpochBlock) and counts
// commit-reveal epochs with SubnetEpochIndex, so a validator timing its
// reveal by the configured tempo and the legacy formula reveals in the
// wrong epoch. Reading the schedule from the chain, the reveal lands and
// no weights transaction fails. (An owner-triggered early epoch cannot
// happen mid-commit: subtensor refuses trigger_epoch while commit-reveal
// is on, and so does the devnet.)
func TestCommitRevealSurvivesTempoChange(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tempo func(old uint64) uint64
	}{
		// A shorter cycle: the reveal epoch comes early, and a validator
		// counting with the old tempo reveals after it has passed. Half the
		// old tempo rather than a few blocks: at 100 ms blocks a 5-block
		// reveal epoch is half a second, which a loaded machine can miss
		// whatever the schedule.
		{"shorter", func(old uint64) uint64 { return old / 2 }},
		// A longer cycle: the reveal epoch comes late.
		{"longer", func(old uint64) uint64 { return 3 * old }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, events := testArena(t, func(o *Options) { o.CommitReveal = true })
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			// Subtensor refuses a tempo change in the AdminFreezeWindow
			// before an epoch; with none, the change can come right after
			// the commit, so the reveal epoch moves.
			if err := a.Devnet.SetAdminFreezeWindow(ctx, 0); err != nil {
				t.Fatal(err)
			}
			commit := waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool { return e.Kind == validator.EventWeightsCommit })
			newTempo := tc.tempo(a.Devnet.Tempo())
			changedAt, err := a.Devnet.SetTempo(ctx, newTempo)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("committed in block %d (race %d); tempo %d from block %d", commit.Block, commit.RaceID, newTempo, changedAt)
			revealed := waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool {
				if e.Kind == validator.EventWeightsFailed {
					t.Fatalf("weights failed after the tempo change: %s", e.Text)
				}
				return e.Kind == validator.EventWeightsReveal && e.Block >= commit.Block
			})
			if revealed.Block < changedAt+newTempo {
				t.Errorf("revealed in block %d, before the first epoch after the tempo change (block %d + tempo %d)", revealed.Block, changedAt, newTempo)
			}
		})
	}
}
