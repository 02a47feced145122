package episode_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
)

// victimAgent is the scripted honest agent, except that at its first step
// it publishes its episode id and then waits for release: its episode is
// live on the validator for as long as the attacker needs.
func victimAgent(ids chan<- string, release <-chan struct{}) episode.Agent {
	honest := episode.ScriptedAgent()
	var once sync.Once
	return episode.AgentFunc(func(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
		if len(v.History) == 0 {
			once.Do(func() { ids <- v.EpisodeID })
			select {
			case <-release:
			case <-ctx.Done():
				return episode.Action{}, ctx.Err()
			}
		}
		return honest.Step(ctx, v)
	})
}

// TestEpisodeIsolation proves that a miner cannot read or write another
// miner's episode through the protocol, even knowing its id: one Runner
// (as in the validator) runs a victim and an attacker at the same time; the
// attacker sends frames carrying the victim's live episode id, or an
// unknown id. Such a step is never applied to any episode (a well-formed
// one is dropped; a malformed one ends the attacker's own connection), the
// attacker never receives a frame about the victim's episode, and the
// victim's trajectory equals a run without the attacker.
func TestEpisodeIsolation(t *testing.T) {
	tools, problems := episode.CatalogTools(t, 0)
	lim := episode.LimitsForTest()
	// Generous deadlines: the victim waits on the attacker, and the test
	// is about routing, not timing.
	lim.StepTimeout, lim.EpisodeTimeout = 10*time.Second, 30*time.Second
	problem := problems[:1]
	victimKey := episode.NewSigner(t)
	victimMiner := func(agent episode.Agent) episode.Miner {
		return episode.Miner{UID: 1, Hotkey: chain.Mirror(victimKey.Address), Endpoint: episode.StartServer(t, victimKey, agent, episode.ServerOptions{})}
	}

	released := make(chan struct{})
	close(released)
	baseline := episode.NewTestRunner(t, tools, lim).Run(context.Background(), victimMiner(victimAgent(make(chan string, 1), released)), problem)[0]
	if baseline.EndReason != episode.ReasonTerminated {
		t.Fatalf("baseline victim: %s (%s)", baseline.EndReason, baseline.EndDetail)
	}

	const unknownID = "0123456789abcdef0123456789abcdef"
	stepWith := func(id, think string) []byte { return episodetest.StepJSON(id, think, 1) }
	tests := []struct {
		name string
		// inject returns the frames the attacker sends before its own step.
		inject     func(victim, own string) [][]byte
		want       episode.EndReason
		wantSteps  int
		ownAnswers bool // the attacker's connection survives and gets its observation
	}{
		{
			name: "step carrying the victim's episode id",
			inject: func(victim, _ string) [][]byte {
				return [][]byte{stepWith(victim, "stolen")}
			},
			want: episode.ReasonTerminated, wantSteps: 2, ownAnswers: true,
		},
		{
			name: "step carrying an unknown episode id",
			inject: func(_, _ string) [][]byte {
				return [][]byte{stepWith(unknownID, "stolen")}
			},
			want: episode.ReasonTerminated, wantSteps: 2, ownAnswers: true,
		},
		{
			name: "many steps for the victim and unknown ids",
			inject: func(victim, _ string) [][]byte {
				return [][]byte{stepWith(victim, "stolen"), stepWith(unknownID, "stolen"), stepWith(victim, "stolen"), stepWith(strings.ToUpper(victim), "stolen")}
			},
			want: episode.ReasonTerminated, wantSteps: 2, ownAnswers: true,
		},
		{
			name: "malformed frame naming the victim's episode",
			inject: func(victim, _ string) [][]byte {
				return [][]byte{[]byte(`{"type":"step","episode_id":"` + victim + `","think":"stolen"}`)}
			},
			want: episode.ReasonMalformed, wantSteps: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := make(chan string, 1)
			release := make(chan struct{})
			var releaseOnce sync.Once
			releaseVictim := func() { releaseOnce.Do(func() { close(release) }) }
			t.Cleanup(releaseVictim)

			var (
				mu       sync.Mutex
				received [][]byte // every frame the attacker read
				victimID string
				ownID    string
				failures []string
			)
			fail := func(msg string) {
				mu.Lock()
				failures = append(failures, msg)
				mu.Unlock()
			}
			read := func(ws *websocket.Conn) (episode.Message, bool) {
				_ = ws.SetReadDeadline(time.Now().Add(15 * time.Second))
				_, frame, err := ws.ReadMessage()
				if err != nil {
					return nil, false
				}
				mu.Lock()
				received = append(received, frame)
				mu.Unlock()
				msg, err := episode.Decode(frame)
				if err != nil {
					fail("undecodable frame from the validator: " + err.Error())
					return nil, false
				}
				return msg, true
			}
			attacker := func(ws *websocket.Conn, env *episodetest.Env) {
				defer releaseVictim()
				if !episodetest.AckHello(ws, env) {
					fail("handshake failed")
					return
				}
				var own *episode.EpisodeStart
				for own == nil {
					msg, ok := read(ws)
					if !ok {
						fail("no episode_start")
						return
					}
					own, _ = msg.(*episode.EpisodeStart)
				}
				var victim string
				select {
				case victim = <-ids:
				case <-time.After(15 * time.Second):
					fail("victim never started")
					return
				}
				mu.Lock()
				victimID, ownID = victim, own.EpisodeID
				mu.Unlock()
				for _, f := range tt.inject(victim, own.EpisodeID) {
					if ws.WriteMessage(websocket.TextMessage, f) != nil {
						return
					}
				}
				// The attacker's own first step: its observation must be the
				// next thing it reads, for its own episode, step 0.
				if ws.WriteMessage(websocket.TextMessage, stepWith(own.EpisodeID, "own")) != nil {
					return
				}
				msg, ok := read(ws)
				if !tt.ownAnswers {
					if ok {
						if _, isObs := msg.(*episode.Observation); isObs {
							fail("attacker got an observation after a malformed frame")
						}
					}
					for ok {
						_, ok = read(ws)
					}
					return
				}
				obs, isObs := msg.(*episode.Observation)
				if !ok || !isObs || obs.EpisodeID != own.EpisodeID || obs.Step != 0 {
					fail("attacker's own step 0 was not answered with its own observation")
					return
				}
				releaseVictim()
				term := []byte(`{"type":"step","episode_id":"` + own.EpisodeID + `","think":"own done","tool_calls":[{"id":"t","name":"terminate","parameters":{"status":"failure"}}]}`)
				if ws.WriteMessage(websocket.TextMessage, term) != nil {
					return
				}
				for ok {
					_, ok = read(ws)
				}
			}
			env := &episodetest.Env{Signer: episode.NewSigner(t)}
			attackerMiner := episode.Miner{UID: 2, Hotkey: chain.Mirror(env.Signer.Address), Endpoint: episodetest.Serve(t, env, attacker)}

			r := episode.NewTestRunner(t, tools, lim)
			var victimTr, attackerTr episode.Trajectory
			var wg sync.WaitGroup
			wg.Go(func() { victimTr = r.Run(context.Background(), victimMiner(victimAgent(ids, release)), problem)[0] })
			wg.Go(func() { attackerTr = r.Run(context.Background(), attackerMiner, problem)[0] })
			wg.Wait()

			mu.Lock()
			defer mu.Unlock()
			for _, f := range failures {
				t.Error(f)
			}
			if victimID == "" || ownID == "" {
				t.Fatal("the attack never ran")
			}
			if victimTr.EpisodeID != victimID || attackerTr.EpisodeID != ownID {
				t.Fatalf("ids: victim %s/%s attacker %s/%s", victimTr.EpisodeID, victimID, attackerTr.EpisodeID, ownID)
			}
			if len(victimID) != 32 || victimID == ownID {
				t.Errorf("episode ids %q and %q: want distinct 128-bit hex", victimID, ownID)
			}

			// The victim: untouched.
			if a, b := episode.Normalized(t, baseline), episode.Normalized(t, victimTr); a != b {
				t.Errorf("victim's trajectory differs from the run without the attacker:\n%s\n%s", a, b)
			}
			// The attacker: its injected frames were applied to nothing.
			if attackerTr.EndReason != tt.want {
				t.Errorf("attacker ended %s (%s), want %s", attackerTr.EndReason, attackerTr.EndDetail, tt.want)
			}
			if len(attackerTr.Steps) != tt.wantSteps {
				t.Errorf("attacker's trajectory has %d steps, want %d", len(attackerTr.Steps), tt.wantSteps)
			}
			for i, s := range attackerTr.Steps {
				if s.Think == "stolen" {
					t.Errorf("attacker step %d is an injected frame", i)
				}
			}
			// Nothing the attacker read names the victim's episode.
			for _, f := range received {
				if bytes.Contains(f, []byte(victimID)) {
					t.Errorf("attacker received a frame naming the victim's episode: %.200s", f)
				}
				if msg, err := episode.Decode(f); err == nil {
					var id string
					switch m := msg.(type) {
					case *episode.EpisodeStart:
						id = m.EpisodeID
					case *episode.Observation:
						id = m.EpisodeID
					case *episode.EpisodeEnd:
						id = m.EpisodeID
					}
					if id != "" && id != ownID {
						t.Errorf("attacker received %s for episode %s", msg.MessageType(), id)
					}
				}
			}
			if len(received) == 0 {
				t.Error("attacker received nothing: the test observed nothing")
			}
		})
	}
}
