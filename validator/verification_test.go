package validator

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/internal/llmclient/llmtest"
	"arena/relay"
	"arena/scoring/judge"
	"arena/validator/records"
)

// testRelay is a relay to a provider that answers every request; the
// heuristic miners never ask it.
func testRelay(t *testing.T) *relay.Relay {
	t.Helper()
	prov := llmtest.NewServer(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} })
	rl, err := relay.New(relay.Options{BaseURL: prov.URL + "/v1", Models: []string{"m"},
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rl
}

// TestVerificationPolicy: with the relay on, the scripted (heuristic)
// miner's qualifying steps are unverified; relay.required gives them no
// credit, with the finding and its reason stored in the verdict, and
// without it the finding is recorded and the score kept.
func TestVerificationPolicy(t *testing.T) {
	tests := []struct {
		name       string
		mode       judge.Verification
		wantCredit bool
	}{
		{name: "required", mode: judge.VerifyRequire},
		{name: "recorded only", mode: judge.VerifyRecord, wantCredit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl := testRelay(t)
			h := newHarness(t, harnessOptions{miners: 1, edit: func(o *Options) { o.Relay, o.Verification = rl, tt.mode }})
			h.run(1, 5)
			vds := h.verdictsOf(1, records.Qualifying)
			if len(vds) != h.v.opts.QualifyingProblems {
				t.Fatalf("%d qualifying verdicts, want %d", len(vds), h.v.opts.QualifyingProblems)
			}
			credited := 0.0
			for _, vd := range vds {
				credited += vd.Final
				if !vd.Judge.Has(judge.FindingUnverified) || vd.Judge.Verification == nil {
					t.Errorf("episode %s: findings %+v, want unverified", vd.EpisodeID, vd.Judge.Findings)
					continue
				}
				verified, steps := vd.Judge.VerifiedSteps()
				if verified != 0 || steps == 0 || !strings.Contains(vd.Judge.Findings[len(vd.Judge.Findings)-1].Detail, "names no completion") {
					t.Errorf("episode %s: %d of %d verified, finding %+v", vd.EpisodeID, verified, steps, vd.Judge.Findings)
				}
				if vd.Judge.NoCredit != !tt.wantCredit {
					t.Errorf("episode %s: no_credit %v", vd.EpisodeID, vd.Judge.NoCredit)
				}
			}
			if (credited > 0) != tt.wantCredit {
				t.Errorf("credited %v in total, want credit %v", credited, tt.wantCredit)
			}
		})
	}
}

// TestRequireWithoutRelayRefused: a validator that requires verification
// with no relay to verify against does not start.
func TestRequireWithoutRelayRefused(t *testing.T) {
	_, err := New(Options{Verification: judge.VerifyRequire}, zerolog.Nop(), nil)
	if err == nil || !strings.Contains(err.Error(), "no relay is configured (relay.base_url)") {
		t.Fatalf("error %v, want the missing relay named", err)
	}
}

// TestNewRelayPolicy: the relay and the verification mode built from
// relay.* for the chain the validator reached.
func TestNewRelayPolicy(t *testing.T) {
	prov := llmtest.NewServer(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} })
	tests := []struct {
		name     string
		chainID  uint64
		baseURL  string
		required string
		models   string
		want     judge.Verification
		wantErr  string
	}{
		{name: "devnet without a relay", chainID: 0, required: config.RelayAuto, want: judge.VerifyOff},
		{name: "finney without a relay", chainID: 964, required: config.RelayAuto, wantErr: "chain 964 is a public chain"},
		{name: "testnet, explicitly unverified", chainID: 945, required: config.RelayFalse, want: judge.VerifyOff},
		{name: "finney with a relay", chainID: 964, baseURL: prov.URL + "/v1", required: config.RelayAuto, want: judge.VerifyRequire},
		{name: "devnet with a relay", chainID: 0, baseURL: prov.URL + "/v1", required: config.RelayAuto, want: judge.VerifyRecord},
		{name: "devnet, relay required", chainID: 0, baseURL: prov.URL + "/v1", required: config.RelayTrue, want: judge.VerifyRequire},
		{name: "the stand-in is no model", chainID: 0, baseURL: prov.URL + "/v1", required: config.RelayTrue, models: config.StandInModel,
			wantErr: "the offline stand-in, which is not a model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Relay.BaseURL, cfg.Relay.Required = tt.baseURL, tt.required
			if tt.models != "" {
				cfg.Relay.Models = tt.models
			}
			rl, mode, err := NewRelay(cfg, tt.chainID, zerolog.Nop(), prometheus.NewRegistry())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if mode != tt.want || (rl == nil) != (tt.baseURL == "") {
				t.Errorf("mode %q relay %v, want %q", mode, rl != nil, tt.want)
			}
		})
	}
}
