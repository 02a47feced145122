package chain

import (
	"errors"
	"testing"
)

func TestPreflight(t *testing.T) {
	base := PreflightState{
		NextBlock: 1000, UIDCount: 8, Registered: true, SelfUID: 0, Permit: true, LastUpdate: 950,
		Hyper: Hyperparams{WeightsVersionKey: 3, WeightsSetRateLimit: 20, MinAllowedWeights: 2},
	}
	ok := Weights{Netuid: 15, UIDs: []uint16{1, 2}, Values: []uint16{100, 200}, VersionKey: 3}
	tests := []struct {
		name   string
		op     string
		mutate func(*PreflightState, *Weights)
		want   error
	}{
		{"valid", "setWeights", func(*PreflightState, *Weights) {}, nil},
		{"not registered", "setWeights", func(s *PreflightState, _ *Weights) { s.Registered = false }, ErrNotRegistered},
		{"commit-reveal on", "setWeights", func(s *PreflightState, _ *Weights) { s.Hyper.CommitRevealEnabled = true }, ErrCommitRevealEnabled},
		{"reveal with commit-reveal off", "revealWeights", func(*PreflightState, *Weights) {}, ErrCommitRevealOff},
		{"version key low", "setWeights", func(_ *PreflightState, w *Weights) { w.VersionKey = 2 }, ErrVersionKeyTooLow},
		{"length mismatch", "setWeights", func(_ *PreflightState, w *Weights) { w.Values = w.Values[:1] }, ErrLengthMismatch},
		{"duplicate", "setWeights", func(_ *PreflightState, w *Weights) { w.UIDs = []uint16{1, 1} }, ErrDuplicateUids},
		{"unknown uid", "setWeights", func(_ *PreflightState, w *Weights) { w.UIDs = []uint16{1, 8} }, ErrUnknownUid},
		{"no permit", "setWeights", func(s *PreflightState, _ *Weights) { s.Permit = false }, ErrNoValidatorPermit},
		{"no permit self weight ok", "setWeights", func(s *PreflightState, w *Weights) {
			s.Permit = false
			w.UIDs, w.Values = []uint16{0}, []uint16{1}
		}, nil},
		{"too few non-zero", "setWeights", func(_ *PreflightState, w *Weights) { w.Values = []uint16{0, 5} }, ErrTooFewWeights},
		{"min capped by uid count", "setWeights", func(s *PreflightState, w *Weights) {
			s.UIDCount, s.Hyper.MinAllowedWeights = 3, 10
			w.UIDs, w.Values = []uint16{0, 1, 2}, []uint16{1, 1, 1}
		}, nil},
		{"rate limited", "setWeights", func(s *PreflightState, _ *Weights) { s.LastUpdate = 990 }, ErrRateLimited},
		{"rate limit boundary passes", "setWeights", func(s *PreflightState, _ *Weights) { s.LastUpdate = 980 }, nil},
		{"first set never rate limited", "setWeights", func(s *PreflightState, _ *Weights) { s.LastUpdate = 0 }, nil},
		{"reveal ignores rate limit", "revealWeights", func(s *PreflightState, _ *Weights) {
			s.Hyper.CommitRevealEnabled = true
			s.LastUpdate = 999
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, w := base, ok
			w.UIDs = append([]uint16(nil), ok.UIDs...)
			w.Values = append([]uint16(nil), ok.Values...)
			tt.mutate(&st, &w)
			err := Preflight(tt.op, st, w)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Preflight = %v, want %v", err, tt.want)
			}
			var rej *RejectedError
			if err != nil && (!errors.As(err, &rej) || rej.OnChain) {
				t.Fatalf("want a preflight RejectedError, got %#v", err)
			}
		})
	}
}

func TestClassifyRevert(t *testing.T) {
	tests := []struct {
		msg  string
		want error
	}{
		{"execution reverted: SettingWeightsTooFast", ErrRateLimited},
		{"execution reverted: CommitRevealEnabled", ErrCommitRevealEnabled},
		{"execution reverted: CommitRevealDisabled", ErrCommitRevealOff},
		// The shape Frontier gives for a failed precompile dispatch.
		{`Dispatched call failed with error: Module(ModuleError { index: 7, error: [19, 0, 0, 0], message: Some("IncorrectWeightVersionKey") })`, ErrVersionKeyTooLow},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			err := classifyRevert("setWeights", errors.New(tt.msg))
			var rej *RejectedError
			if !errors.Is(err, tt.want) || !errors.As(err, &rej) || !rej.OnChain {
				t.Fatalf("classifyRevert = %#v, want on-chain %v", err, tt.want)
			}
		})
	}
	if err := classifyRevert("x", errors.New("connection refused")); errors.As(err, new(*RejectedError)) {
		t.Fatalf("plain error classified as rejection: %v", err)
	}
}

func TestPreflightCommit(t *testing.T) {
	base := PreflightState{NextBlock: 100, Registered: true, LastUpdate: 95,
		Hyper: Hyperparams{CommitRevealEnabled: true, WeightsSetRateLimit: 5}}
	tests := []struct {
		name   string
		mutate func(*PreflightState)
		want   error
	}{
		{"ok at the limit", func(*PreflightState) {}, nil},
		{"not registered", func(s *PreflightState) { s.Registered = false }, ErrNotRegistered},
		{"commit-reveal off", func(s *PreflightState) { s.Hyper.CommitRevealEnabled = false }, ErrCommitRevealOff},
		{"too soon", func(s *PreflightState) { s.LastUpdate = 97 }, ErrRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := base
			tt.mutate(&st)
			if err := PreflightCommit(st, 15); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("PreflightCommit = %v, want %v", err, tt.want)
			}
		})
	}
}
