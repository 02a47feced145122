package validator

import (
	"context"
	"testing"
	"time"
)

// TestSettleContext: a weights transaction's context survives the
// shutdown signal by the grace period, and no longer.
func TestSettleContext(t *testing.T) {
	tests := []struct {
		name       string
		grace      time.Duration
		callCancel bool
		wantDone   bool // done once the parent is cancelled (and cancel called if callCancel)
	}{
		{name: "long grace keeps it alive", grace: time.Hour, wantDone: false},
		{name: "grace elapses", grace: time.Millisecond, wantDone: true},
		{name: "cancel ends it at once", grace: time.Hour, callCancel: true, wantDone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent, stopParent := context.WithCancel(context.Background())
			ctx, cancel := settleContext(parent, tt.grace)
			defer cancel()
			if ctx.Err() != nil {
				t.Fatal("done before the parent was cancelled")
			}
			stopParent()
			if tt.callCancel {
				cancel()
			}
			if !tt.wantDone {
				// The grace timer only starts after the parent's
				// AfterFunc runs; an hour cannot have passed either way.
				select {
				case <-ctx.Done():
					t.Fatal("cancelled with the parent despite the grace period")
				default:
				}
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("not cancelled after the grace period")
			}
		})
	}
}
