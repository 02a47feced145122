package devarena

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/dgraph-io/badger/v4"

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
// leaderboard after each race and the chain's incentive after each epoch
// that follows a weights transaction, each table only when it changed.
// With races > 0 it returns once the races-th race's weights are on chain
// and the incentive after them has been shown; otherwise when ctx ends.
func (a *Arena) Follow(ctx context.Context, events <-chan validator.Event, w io.Writer, races int) (Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	heads := a.heads(ctx)
	s := newStream(w)
	sum := Summary{Leader: -1}
	tempo, netuid := a.Devnet.Tempo(), a.Devnet.Netuid()
	// The incentive after weights is Yuma's at the end of their epoch;
	// waiting marks the epoch whose end is awaited.
	var waiting bool
	var epoch uint64
	// With races > 0: done is set by the last race, final once the weights
	// that follow it have landed.
	var done, final bool
	var want uint64 // race the final weights come from; 0: any
	for {
		select {
		case <-ctx.Done():
			return sum, nil
		case h, ok := <-heads:
			if !ok {
				heads = nil
				continue
			}
			s.seen(h)
			if !waiting || chain.EpochIndex(h, netuid, tempo) <= epoch {
				continue
			}
			waiting = false
			if err := a.printIncentive(ctx, s); err != nil {
				if ctx.Err() != nil {
					return sum, nil
				}
				return sum, err
			}
			sum.IncentiveSeen = true
			if final {
				return sum, nil
			}
		case e := <-events:
			s.event(e)
			switch e.Kind {
			case validator.EventRaceDone:
				sum.Races++
				a.printLeaderboard(s)
				if rows, err := a.Stack.Validator.Leaderboard(); err == nil && len(rows) > 0 && rows[0].Leader {
					sum.Leader = int(rows[0].UID)
				}
				if races > 0 && sum.Races == races {
					done = true
					want = a.rankedBy(e.RaceID)
				}
			case validator.EventWeightsSet, validator.EventWeightsReveal:
				sum.WeightsTx++
				waiting, epoch = true, chain.EpochIndex(e.Block, netuid, tempo)
				if done && (want == 0 || e.RaceID == want) {
					final = true
				}
			}
		}
	}
}

// rankedBy is the race whose weights follow race id: id itself if it
// ranked the racers, or 0 if it left the ranking (and so the weights)
// as they were, when any weights that land next are the ones after it.
func (a *Arena) rankedBy(id uint64) uint64 {
	var ranked bool
	err := a.Stack.Store.View(func(txn *badger.Txn) error {
		rc, ok, err := a.Stack.Validator.Records().GetRace(txn, id)
		ranked = ok && rc.Output != nil && len(rc.Output.Ranked) > 0
		return err
	})
	if err != nil || ranked {
		return id
	}
	return 0
}

// heads delivers the devnet's head as it moves, until ctx ends.
func (a *Arena) heads(ctx context.Context) <-chan uint64 {
	ch := make(chan uint64)
	go func() {
		defer close(ch)
		for {
			h, err := a.Devnet.Head(ctx)
			if err != nil {
				return
			}
			select {
			case ch <- h:
			case <-ctx.Done():
				return
			}
			if err := a.Devnet.WaitForBlock(ctx, h+1); err != nil {
				return
			}
		}
	}()
	return ch
}

// stream writes the live view. Each line carries the latest block known
// when it is printed, so the column never goes backwards although events
// name their own blocks (a race's start, a transaction's) and come from
// several of the validator's loops; and a table is printed only when its
// body differs from the last one printed under the same name.
type stream struct {
	w      io.Writer
	block  uint64
	tables map[string]string
}

func newStream(w io.Writer) *stream { return &stream{w: w, tables: map[string]string{}} }

// seen moves the block column forward to block.
func (s *stream) seen(block uint64) { s.block = max(s.block, block) }

func (s *stream) event(e validator.Event) {
	s.seen(e.Block)
	fmt.Fprintf(s.w, "%s  block %-5d %s\n", time.Now().Format("15:04:05"), s.block, e.Text)
}

// table prints title and body unless body equals the last body printed
// under name, and reports whether it printed.
func (s *stream) table(name, title, body string) bool {
	if last, ok := s.tables[name]; ok && last == body {
		return false
	}
	s.tables[name] = body
	fmt.Fprintf(s.w, "\n%s%s\n", title, body)
	return true
}

// columns renders rows of tab-separated cells as aligned text.
func columns(rows func(io.Writer)) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	rows(tw)
	_ = tw.Flush()
	return b.String()
}

func (a *Arena) skill(uid uint16) string {
	for _, m := range a.Miners {
		if m.UID == uid {
			return fmt.Sprintf("%.2f", m.Skill)
		}
	}
	return "-"
}

func (a *Arena) printLeaderboard(s *stream) {
	rows, err := a.Stack.Validator.Leaderboard()
	if err != nil {
		fmt.Fprintf(s.w, "  (leaderboard unavailable: %v)\n", err)
		return
	}
	s.table("leaderboard", "", columns(func(tw io.Writer) {
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
	}))
	if len(a.Stacks) > 1 {
		s.table("leaders", "", a.leadersLine())
	}
}

// leadersLine names every validator's leader: independent validators,
// each on its own hidden problems, should name the same one.
func (a *Arena) leadersLine() string {
	var b bytes.Buffer
	b.WriteString("  leaders:")
	for i, st := range a.Stacks {
		leader := "none yet"
		if rows, err := st.Validator.Leaderboard(); err != nil {
			leader = "unavailable"
		} else if len(rows) > 0 && rows[0].Leader {
			leader = fmt.Sprintf("uid %d", rows[0].UID)
		}
		fmt.Fprintf(&b, " validator uid %d → %s;", a.ValidatorUIDs[i], leader)
	}
	b.WriteString("\n")
	return b.String()
}

// printIncentive shows the incentive Yuma consensus gave each miner at the
// epoch that just ended, if it changed since it was last shown.
func (a *Arena) printIncentive(ctx context.Context, s *stream) error {
	meta, err := a.Stack.Chain.Metagraph(ctx, a.Devnet.Netuid())
	if err != nil {
		return err
	}
	s.seen(meta.Block)
	s.table("incentive", fmt.Sprintf("  incentive after the epoch (block %d):\n", meta.Block), columns(func(tw io.Writer) {
		fmt.Fprintln(tw, "  UID\tROLE\tSKILL\tINCENTIVE\tCONSENSUS\tVTRUST\tDIVIDENDS\t")
		for _, n := range meta.Neurons {
			role := "miner"
			if slices.Contains(a.ValidatorUIDs, n.UID) {
				role = "validator"
			}
			pct := func(v uint16) string { return fmt.Sprintf("%5.1f%%", 100*chain.U16ToFloat(v)) }
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n.UID, role, a.skill(n.UID), pct(n.Incentive), pct(n.Consensus), pct(n.Vtrust), pct(n.Dividends))
		}
	}))
	return nil
}
