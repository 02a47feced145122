package main

import (
	"context"
	"testing"
	"time"

	"arena/chain"
	"arena/validator/records"
)

// TestNextRaceWindow: the banner names the window the validator will race
// next, by the validator's rule (each window races once; window 0 never).
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

// TestMeasureBlockTime: the block time comes from the arrival of live
// heads after the first (delivered at an arbitrary point of its block);
// backfilled heads are not timed.
func TestMeasureBlockTime(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name     string
		heads    []chain.Head
		arrivals []time.Duration // clock readings, in the order they are taken
		wantHead uint64
		wantTime time.Duration
		wantOK   bool
	}{
		{"one block apart", []chain.Head{{Number: 100}, {Number: 101}, {Number: 102}},
			[]time.Duration{300 * time.Millisecond, 550 * time.Millisecond}, 102, 250 * time.Millisecond, true},
		{"a backfilled head between", []chain.Head{{Number: 100}, {Number: 101}, {Number: 102, Backfilled: true}, {Number: 103}},
			[]time.Duration{time.Second, 25 * time.Second}, 103, 12 * time.Second, true},
		{"heads end too soon", []chain.Head{{Number: 100}, {Number: 101}}, []time.Duration{time.Second}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			heads := make(chan chain.Head, len(tt.heads))
			for _, h := range tt.heads {
				heads <- h
			}
			close(heads)
			readings := tt.arrivals
			now := func() time.Time {
				if len(readings) == 0 {
					t.Fatal("clock read more often than heads were timed")
				}
				at := start.Add(readings[0])
				readings = readings[1:]
				return at
			}
			head, blockTime, ok := measureBlockTime(context.Background(), heads, now)
			if head != tt.wantHead || blockTime != tt.wantTime || ok != tt.wantOK {
				t.Fatalf("got head %d, block time %v, ok %v; want %d, %v, %v", head, blockTime, ok, tt.wantHead, tt.wantTime, tt.wantOK)
			}
		})
	}
}
