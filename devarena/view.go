package devarena

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"arena/chain"
	"arena/validator"
)

// Summary is what Follow saw.
type Summary struct {
	Races         int
	Leader        int // -1: none
	WeightsTx     int
	IncentiveSeen bool
}

// Follow renders the validator's events as a live log, with the
// leaderboard after each race and the chain's incentive after each
// weights transaction of a race. With races > 0 it returns once the
// races-th race's weights are on chain and the incentive has been shown;
// otherwise when ctx ends.
func (a *Arena) Follow(ctx context.Context, events <-chan validator.Event, w io.Writer, races int) (Summary, error) {
	sum := Summary{Leader: -1}
	var lastRace uint64
	for {
		var e validator.Event
		select {
		case <-ctx.Done():
			return sum, nil
		case e = <-events:
		}
		fmt.Fprintf(w, "%s  block %-5d %s\n", time.Now().Format("15:04:05"), e.Block, e.Text)
		switch e.Kind {
		case validator.EventRaceDone:
			sum.Races++
			lastRace = e.RaceID
			a.printLeaderboard(w)
		case validator.EventWeightsSet, validator.EventWeightsReveal:
			sum.WeightsTx++
			if e.RaceID == 0 || e.RaceID != lastRace {
				continue
			}
			if err := a.printIncentive(ctx, w, e.Block); err != nil {
				if ctx.Err() != nil {
					return sum, nil
				}
				return sum, err
			}
			sum.IncentiveSeen = true
			if races > 0 && sum.Races >= races {
				return sum, nil
			}
		}
		if rows, err := a.Stack.Validator.Leaderboard(); err == nil && len(rows) > 0 && rows[0].Leader {
			sum.Leader = int(rows[0].UID)
		}
	}
}

func (a *Arena) skill(uid uint16) string {
	for _, m := range a.Miners {
		if m.UID == uid {
			return fmt.Sprintf("%.2f", m.Skill)
		}
	}
	return "-"
}

func (a *Arena) printLeaderboard(w io.Writer) {
	rows, err := a.Stack.Validator.Leaderboard()
	if err != nil {
		fmt.Fprintf(w, "  (leaderboard unavailable: %v)\n", err)
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  UID\tSKILL\tQUALIFYING\tLAST RACE\t")
	for _, r := range rows {
		if r.Skipped != "" && r.Qualifying == nil {
			continue
		}
		mark := ""
		if r.Leader {
			mark = "  <- leader"
		}
		qualifying, lastRace := r.ScoreCells()
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", r.UID, a.skill(r.UID), qualifying, lastRace, mark)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
}

// printIncentive waits for the first epoch boundary after block and shows
// the incentive Yuma consensus gave each miner.
func (a *Arena) printIncentive(ctx context.Context, w io.Writer, block uint64) error {
	tempo := a.Devnet.Tempo()
	netuid := a.Devnet.Netuid()
	epoch := chain.EpochIndex(block, netuid, tempo)
	for {
		head, err := a.Devnet.Head(ctx)
		if err != nil {
			return err
		}
		if chain.EpochIndex(head, netuid, tempo) > epoch {
			break
		}
		if err := a.Devnet.WaitForBlock(ctx, head+1); err != nil {
			return err
		}
	}
	meta, err := a.Stack.Chain.Metagraph(ctx, netuid)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n  incentive after the epoch (block %d):\n", meta.Block)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  UID\tROLE\tSKILL\tINCENTIVE\t")
	for _, n := range meta.Neurons {
		role := "miner"
		if n.UID == a.ValidatorUID {
			role = "validator"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%5.1f%%\t\n", n.UID, role, a.skill(n.UID), 100*chain.U16ToFloat(n.Incentive))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	return nil
}
