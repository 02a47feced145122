package devarena

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/config"
	"arena/scoring/weights"
	"arena/validator"
	"arena/validator/records"
)

// testArena starts an arena (4 miners, 100 ms blocks) in a temp dir and
// runs it until the test ends; tweak, if set, adjusts the options. Events
// arrive on the returned channel.
func testArena(t *testing.T, tweak func(*Options)) (*Arena, <-chan validator.Event) {
	t.Helper()
	events := make(chan validator.Event, 1024)
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Metrics.Listen = "127.0.0.1:0"
	opts := Options{Config: cfg, Miners: 4, BlockTime: 100 * time.Millisecond, Registry: prometheus.NewRegistry(),
		OnEvent: func(e validator.Event) {
			select {
			case events <- e:
			default:
			}
		}}
	if tweak != nil {
		tweak(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := Start(ctx, opts, zerolog.Nop())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("arena run: %v", err)
		}
		a.Close()
	})
	return a, events
}

// waitEvent returns the first event that match accepts, logging the rest.
func waitEvent(t *testing.T, events <-chan validator.Event, timeout time.Duration, match func(validator.Event) bool) validator.Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e := <-events:
			t.Logf("block %d %s: %s", e.Block, e.Kind, e.Text)
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no matching event within %v", timeout)
		}
	}
}

// TestEndToEnd runs the devnet, 4 reference miners of different skill and
// the validator until a race is decided and its weights are on chain, then
// checks the chain against the store.
func TestEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name         string
		commitReveal bool
		landed       validator.EventKind
	}{
		{"set weights", false, validator.EventWeightsSet},
		{"commit reveal", true, validator.EventWeightsReveal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, events := testArena(t, func(o *Options) { o.CommitReveal = tc.commitReveal })
			raceDone := waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool { return e.Kind == validator.EventRaceDone })
			// Races keep coming; the first weights that land for this race or
			// a later one are checked against the race they came from.
			if tc.commitReveal {
				waitEvent(t, events, 2*time.Minute, func(e validator.Event) bool {
					return e.Kind == validator.EventWeightsCommit && e.RaceID >= raceDone.RaceID
				})
			}
			landed := waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool {
				return e.Kind == tc.landed && e.RaceID >= raceDone.RaceID
			})
			ctx := context.Background()
			st := a.Stack.Store
			rec := a.Stack.Validator.Records()

			// The store holds every trajectory and verdict of the race, and
			// its cross-references are clean.
			var rc records.Race
			err := st.View(func(txn *badger.Txn) error {
				var ok bool
				var err error
				if rc, ok, err = rec.GetRace(txn, landed.RaceID); err != nil || !ok {
					t.Fatalf("race %d: ok=%v err=%v", landed.RaceID, ok, err)
				}
				ids, err := rec.RaceEpisodes(txn, rc.ID)
				if err != nil {
					return err
				}
				if want := len(rc.Racers) * len(rc.Problems); len(ids) != want || want == 0 {
					t.Errorf("race %d stored %d episodes, want %d", rc.ID, len(ids), want)
				}
				for _, id := range ids {
					if _, ok, err := rec.GetVerdict(txn, id); err != nil || !ok {
						t.Errorf("episode %s: verdict ok=%v err=%v", id, ok, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := rec.Check(ctx, st, a.Stack.Ledger)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Errorf("store check: %v", rep.Problems)
			}
			if rc.Output == nil || rc.Output.Leader == nil || len(rc.Output.Ranked) == 0 {
				t.Fatalf("race %d has no leader: %+v", rc.ID, rc.Output)
			}
			t.Logf("race %d: %s, results %+v, ranked %v", rc.ID, rc.Output.Outcome, rc.Results, rc.Output.Ranked)

			// The weights on chain equal the policy's output for the
			// recorded race, through the SDK-exact conversion.
			client, err := chain.Dial(ctx, chain.Options{URL: a.Devnet.URL()}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			hyper, err := client.Hyperparams(ctx, a.Devnet.Netuid())
			if err != nil {
				t.Fatal(err)
			}
			meta, err := client.Metagraph(ctx, a.Devnet.Netuid())
			if err != nil {
				t.Fatal(err)
			}
			n := len(meta.Neurons)
			policy := weights.Policy{Kind: weights.Kind(a.Config.Weights.Policy), TopShare: a.Config.Weights.TopShare,
				TailShare: a.Config.Weights.TailShare, BurnFraction: a.Config.Weights.BurnFraction, BurnUID: a.Config.Weights.BurnUID}
			vec, err := policy.Vector(rc.Output.Ranked, n)
			if err != nil {
				t.Fatal(err)
			}
			uids := make([]uint16, n)
			for i := range uids {
				uids[i] = uint16(i)
			}
			wantUIDs, wantVals, err := weights.EmitWeightsForNetuid(uids, vec, n, int(hyper.MinAllowedWeights), float32(chain.U16ToFloat(hyper.MaxWeightLimit)), 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.Devnet.Weights(ctx, a.ValidatorUID)
			if err != nil {
				t.Fatal(err)
			}
			var gotUIDs, gotVals []uint16
			for _, w := range got {
				gotUIDs, gotVals = append(gotUIDs, w.UID), append(gotVals, w.Value)
			}
			if !slices.Equal(gotUIDs, wantUIDs) || !slices.Equal(gotVals, wantVals) {
				t.Fatalf("weights on chain %v %v, want the policy's %v %v", gotUIDs, gotVals, wantUIDs, wantVals)
			}

			checkOperatorSurface(t, a, rc)

			// After the next epoch, the devnet's incentive follows the
			// weights to the winner.
			leader := rc.Output.Leader.UID
			deadline := time.Now().Add(time.Minute)
			for {
				meta, err := client.Metagraph(ctx, a.Devnet.Netuid())
				if err != nil {
					t.Fatal(err)
				}
				best, bestUID := uint16(0), -1
				for _, nr := range meta.Neurons {
					if nr.Incentive > best {
						best, bestUID = nr.Incentive, int(nr.UID)
					}
				}
				if bestUID == int(leader) && best > 0 && meta.Block > landed.Block {
					t.Logf("block %d: incentive of leader uid %d is %d/65535", meta.Block, leader, best)
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("incentive did not move to leader uid %d (best uid %d with %d)", leader, bestUID, best)
				}
				if err := a.Devnet.WaitForBlock(ctx, meta.Block+2); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// checkOperatorSurface reads every operator endpoint of the running
// validator: health, metrics (linted as promtool would), and the JSON API.
func checkOperatorSurface(t *testing.T, a *Arena, rc records.Race) {
	t.Helper()
	base := "http://" + a.Stack.Server.Addr()
	get := func(path string, wantCode int) []byte {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != wantCode {
			t.Errorf("GET %s: %d, want %d: %s", path, resp.StatusCode, wantCode, body)
		}
		return body
	}
	get("/livez", http.StatusOK)
	get("/readyz", http.StatusOK)

	metrics := string(get("/metrics", http.StatusOK))
	problems, err := promlint.New(strings.NewReader(metrics)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("metric lint: %s: %s", p.Metric, p.Text)
	}
	for _, name := range []string{
		"arena_chain_head_block", "arena_validator_head_age_seconds", "arena_validator_blocks_behind",
		"arena_validator_metagraph_neurons", "arena_validator_serving_miners", "arena_episode_episodes_total",
		"arena_shop_tool_duration_seconds", "arena_validator_judge_seconds", "arena_validator_race_phase",
		"arena_validator_leader_uid", "arena_validator_qualifiers", "arena_validator_races_total",
		"arena_validator_weights_submissions_total", "arena_validator_blocks_since_weights",
		"arena_suite_pool_clusters", "arena_store_size_bytes", "arena_store_gc_runs_total",
	} {
		if !strings.Contains(metrics, "\n"+name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}

	var st validator.Status
	if err := json.Unmarshal(get("/api/v1/status", http.StatusOK), &st); err != nil {
		t.Fatal(err)
	}
	if !st.Ready || st.Races < 1 || st.Leader == nil || st.LastWeights == nil {
		t.Errorf("status: %+v", st)
	}
	var board []validator.LeaderboardRow
	if err := json.Unmarshal(get("/api/v1/leaderboard", http.StatusOK), &board); err != nil {
		t.Fatal(err)
	}
	// Races keep running, so the leader is the status's, not necessarily rc's.
	if len(board) == 0 || !board[0].Leader || st.Leader == nil || board[0].UID != st.Leader.UID {
		t.Errorf("leaderboard does not start with the current leader %+v: %+v", st.Leader, board)
	}
	var races []records.Race
	if err := json.Unmarshal(get("/api/v1/races?limit=5", http.StatusOK), &races); err != nil || len(races) == 0 {
		t.Errorf("races: %v %d", err, len(races))
	}
	var one records.Race
	if err := json.Unmarshal(get(fmt.Sprintf("/api/v1/races/%d", rc.ID), http.StatusOK), &one); err != nil || one.ID != rc.ID {
		t.Errorf("race %d: %v %+v", rc.ID, err, one.ID)
	}
	for id := range rc.Episodes {
		var doc validator.EpisodeDoc
		if err := json.Unmarshal(get("/api/v1/episodes/"+id, http.StatusOK), &doc); err != nil || doc.Verdict == nil || doc.Episode.Trajectory.EpisodeID != id {
			t.Errorf("episode %s: %v", id, err)
		}
		break
	}
	get("/api/v1/races/999999", http.StatusNotFound)
	get("/api/v1/races/x", http.StatusBadRequest)
	get("/api/v1/races?limit=0", http.StatusBadRequest)
	get("/api/v1/episodes/nope", http.StatusNotFound)
}
