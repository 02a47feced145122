package validator

import (
	"bytes"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"arena/episode"
	"arena/store"
)

// TestStoreWriteFaults injects ENOSPC and EIO into the store's commits of
// a validator with real miners. While commits fail the validator is not
// ready (the reason names the kind), starts no qualifying run, and adds no
// error line per block; a qualifying run whose results could not be
// stored is not counted; once writes succeed, the work is redone.
func TestStoreWriteFaults(t *testing.T) {
	faults := &store.FaultSwitch{}
	gate := make(chan struct{})
	var hold atomic.Bool
	var logs bytes.Buffer
	h := newHarness(t, harnessOptions{miners: 2, storeFaults: faults, logs: &logs,
		wrapAgent: func(_ uint16, a episode.Agent) episode.Agent { return gatedAgent{inner: a, gate: gate, hold: &hold} }})

	// A fault from the first block: no sync, so nothing starts.
	faults.Set(syscall.ENOSPC)
	for n := uint64(1); n <= 5; n++ {
		h.head(n)
	}
	h.settle()
	ready, why := h.v.Ready()
	if ready || !strings.Contains(strings.Join(why, "; "), "store writes failing") || !strings.Contains(strings.Join(why, "; "), "enospc") {
		t.Fatalf("Ready = %v %q, want not ready: store writes failing (enospc)", ready, why)
	}
	if n := len(h.eventsOf(EventQualifyStart)); n != 0 {
		t.Fatalf("%d qualifying runs started while writes fail", n)
	}
	if n := strings.Count(logs.String(), `"level":"error"`) + strings.Count(logs.String(), `"level":"warn"`); n != 0 {
		t.Errorf("%d error lines from the validator for a fault the store logs itself:\n%s", n, logs.String())
	}

	// Writes work again: sync, then qualifying runs start; they are held
	// mid-episode while the disk fails with EIO.
	faults.Set(nil)
	hold.Store(true)
	h.head(6)
	for deadline := time.Now().Add(30 * time.Second); len(h.eventsOf(EventQualifyStart)) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d qualifying runs started after the fault cleared, want 2", len(h.eventsOf(EventQualifyStart)))
		}
	}
	faults.Set(syscall.EIO)
	close(gate)
	h.settle()
	for uid := uint16(1); uid <= 2; uid++ {
		if m := h.miner(uid); m.Qualifying != nil {
			t.Errorf("uid %d: qualifying result recorded although its writes failed: %+v", uid, m.Qualifying)
		}
	}
	attempts := func() int {
		return strings.Count(logs.String(), `"message":"qualifying started"`) + strings.Count(logs.String(), `"message":"qualifying: record exposure"`)
	}
	started := attempts()
	for n := uint64(7); n <= 10; n++ {
		h.head(n)
	}
	h.settle()
	if _, why := h.v.Ready(); !strings.Contains(strings.Join(why, "; "), "eio") {
		t.Errorf("readiness reasons %q, want the eio fault", why)
	}
	if n := attempts(); n != started {
		t.Errorf("%d qualifying runs started while writes fail", n-started)
	}

	// Writes succeed again: the qualifying runs are redone and stored.
	faults.Set(nil)
	hold.Store(false)
	h.run(11, 16)
	for uid := uint16(1); uid <= 2; uid++ {
		if m := h.miner(uid); m.Qualifying == nil || len(m.Qualifying.Episodes) != h.v.opts.QualifyingProblems {
			t.Errorf("uid %d: qualifying not redone after the fault: %+v", uid, m.Qualifying)
		}
	}
	if ready, why := h.v.Ready(); !ready {
		t.Errorf("not ready after writes recovered: %q", why)
	}
}
