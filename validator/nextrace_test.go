package validator

import (
	"strings"
	"testing"
	"time"

	"arena/chain"
	"arena/validator/records"
)

// TestNextRaceWindow: the window the validator races next, by its rule (each window races once; window 0 never).
func TestNextRaceWindow(t *testing.T) {
	tests := []struct {
		name  string
		head  uint64
		state records.RaceState
		want  raceWindow
	}{
		{"fresh start inside window 40", 50, records.RaceState{}, raceWindow{Window: 40, OpenNow: true}},
		{"window 0 never races", 30, records.RaceState{}, raceWindow{Window: 40}},
		{"current window already raced", 50, records.RaceState{LastWindow: 40}, raceWindow{Window: 80}},
		{"first block of an unraced window", 80, records.RaceState{LastWindow: 40}, raceWindow{Window: 80, OpenNow: true}},
		{"race in progress", 50, records.RaceState{LastWindow: 40, Current: 3}, raceWindow{Window: 80, InProgress: 3}},
		{"an aborted race's window races again", 85, records.RaceState{LastWindow: 79}, raceWindow{Window: 80, OpenNow: true}},
		{"state ahead of the chain", 18, records.RaceState{LastWindow: 240}, raceWindow{Window: 280}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextRaceWindow(tt.head, 40, tt.state); got != tt.want {
				t.Fatalf("nextRaceWindow(%d) = %+v, want %+v", tt.head, got, tt.want)
			}
		})
	}
}

// TestBlockTimer: the block time comes from the arrival of live heads
// after the first (delivered at an arbitrary point of its block);
// backfilled heads are not timed, and it is given once.
func TestBlockTimer(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name     string
		heads    []chain.Head
		arrivals []time.Duration // arrival of each head
		wantHead uint64
		wantTime time.Duration
		wantOK   bool
	}{
		{"one block apart", []chain.Head{{Number: 100}, {Number: 101}, {Number: 102}, {Number: 103}},
			[]time.Duration{0, 300 * time.Millisecond, 550 * time.Millisecond, 800 * time.Millisecond}, 102, 250 * time.Millisecond, true},
		{"a backfilled head between", []chain.Head{{Number: 100}, {Number: 101}, {Number: 102, Backfilled: true}, {Number: 103}},
			[]time.Duration{0, time.Second, 2 * time.Second, 25 * time.Second}, 103, 12 * time.Second, true},
		{"heads end too soon", []chain.Head{{Number: 100}, {Number: 101}}, []time.Duration{0, time.Second}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				timer     blockTimer
				head      uint64
				blockTime time.Duration
				ok        bool
			)
			for i, h := range tt.heads {
				bt, given := timer.observe(h, start.Add(tt.arrivals[i]))
				if given && ok {
					t.Fatalf("block time given again at head %d", h.Number)
				}
				if given {
					head, blockTime, ok = h.Number, bt, true
				}
			}
			if head != tt.wantHead || blockTime != tt.wantTime || ok != tt.wantOK {
				t.Fatalf("got head %d, block time %v, ok %v; want %d, %v, %v", head, blockTime, ok, tt.wantHead, tt.wantTime, tt.wantOK)
			}
		})
	}
}

// TestNextRaceLoggedOnce: the validator says when the next race window
// opens once, after timing its live heads, and never again.
func TestNextRaceLoggedOnce(t *testing.T) {
	var logs lockedBuffer
	h := newHarness(t, harnessOptions{logs: &logs, edit: func(o *Options) { o.RaceEveryBlocks = 10 }})
	for n := uint64(1); n <= 8; n++ {
		h.head(n)
		h.settle()
	}
	got := strings.Count(logs.String(), `"next race window"`)
	if got != 1 || !strings.Contains(logs.String(), `"window":10`) || !strings.Contains(logs.String(), `"blocks_left":7`) {
		t.Fatalf("%d next-race lines, want 1 naming window 10, 7 blocks on:\n%s", got, logs.String())
	}
}
