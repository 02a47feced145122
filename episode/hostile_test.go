package episode

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"arena/chain"
)

// hostile is a misbehaving miner on a real loopback socket. Its behave
// function gets the connection after the upgrade; it returns when it has
// done its damage or the connection closes.
type hostile struct {
	name   string
	behave func(ws *websocket.Conn, h *hostileEnv)
	// uidKeyOf, when set, registers the uid with another key's hotkey.
	identityOf *chain.Signer
	want       EndReason
}

type hostileEnv struct {
	signer *chain.Signer
}

// startHostile serves behave on a loopback port until the test ends.
func startHostile(t *testing.T, env *hostileEnv, behave func(*websocket.Conn, *hostileEnv)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []*websocket.Conn
		wg    sync.WaitGroup
	)
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, ws)
		wg.Add(1)
		mu.Unlock()
		defer wg.Done()
		defer ws.Close()
		behave(ws, env)
	})}
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// readHello reads and decodes the validator's hello.
func readHello(ws *websocket.Conn) *Hello {
	_, frame, err := ws.ReadMessage()
	if err != nil {
		return nil
	}
	msg, err := Decode(frame)
	if err != nil {
		return nil
	}
	h, _ := msg.(*Hello)
	return h
}

// ackHello answers the handshake properly; false if the connection died.
func ackHello(ws *websocket.Conn, env *hostileEnv) bool {
	h := readHello(ws)
	if h == nil {
		return false
	}
	ack, err := NewHelloAck(env.signer.PrivateKey(), h, time.Now())
	if err != nil {
		return false
	}
	data, _ := Encode(ack)
	return ws.WriteMessage(websocket.TextMessage, data) == nil
}

// nextStart waits for the next episode_start, skipping other frames.
func nextStart(ws *websocket.Conn) *EpisodeStart {
	for {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			return nil
		}
		if msg, err := Decode(frame); err == nil {
			if s, ok := msg.(*EpisodeStart); ok {
				return s
			}
		}
	}
}

// drain reads until the connection closes, so the validator's writes
// never block on this miner.
func drain(ws *websocket.Conn) {
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			return
		}
	}
}

func stepJSON(episodeID, think string, calls int) []byte {
	tc := make([]ToolCall, calls)
	for i := range tc {
		tc[i] = ToolCall{ID: fmt.Sprint("c", i), Name: "find_product", Parameters: json.RawMessage(`{"q":"phone","page":1}`)}
	}
	data, _ := Encode(&Step{EpisodeID: episodeID, Think: think, ToolCalls: tc})
	return data
}

// afterStart handshakes, waits for an episode and sends one frame.
func afterStart(frame func(*EpisodeStart) []byte) func(*websocket.Conn, *hostileEnv) {
	return func(ws *websocket.Conn, env *hostileEnv) {
		if !ackHello(ws, env) {
			return
		}
		s := nextStart(ws)
		if s == nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, frame(s))
		drain(ws)
	}
}

// answerSlowly plays a find_product step delay after each prompt, never
// terminating.
func answerSlowly(delay time.Duration) func(*websocket.Conn, *hostileEnv) {
	return func(ws *websocket.Conn, env *hostileEnv) {
		if !ackHello(ws, env) {
			return
		}
		s := nextStart(ws)
		if s == nil {
			return
		}
		for {
			time.Sleep(delay) // the miner is slow on purpose
			if ws.WriteMessage(websocket.TextMessage, stepJSON(s.EpisodeID, "still looking", 1)) != nil {
				return
			}
			_, frame, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if msg, err := Decode(frame); err != nil || msg.MessageType() != TypeObservation {
				drain(ws)
				return
			}
		}
	}
}

// prematureSteps sends two steps without waiting for the observation.
func prematureSteps(ws *websocket.Conn, env *hostileEnv) {
	if !ackHello(ws, env) {
		return
	}
	s := nextStart(ws)
	if s == nil {
		return
	}
	for range 3 {
		_ = ws.WriteMessage(websocket.TextMessage, stepJSON(s.EpisodeID, "hurry", 1))
	}
	drain(ws)
}

func hostileCases(other *chain.Signer) []hostile {
	return []hostile{
		{name: "malformed JSON", want: ReasonMalformed, behave: afterStart(func(*EpisodeStart) []byte { return []byte(`{"type":"step","episode_id":`) })},
		{name: "missing field", want: ReasonMalformed, behave: afterStart(func(s *EpisodeStart) []byte {
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"x"}`)
		})},
		{name: "unknown message type", want: ReasonUnknownType, behave: afterStart(func(s *EpisodeStart) []byte {
			return []byte(`{"type":"gossip","episode_id":"` + s.EpisodeID + `"}`)
		})},
		{name: "oversized frame", want: ReasonOversized, behave: afterStart(func(s *EpisodeStart) []byte {
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","pad":"` + strings.Repeat("x", DefaultMaxFrameBytes+1) + `"}`)
		})},
		{name: "50 tool calls in one step", want: ReasonTooManyCalls, behave: afterStart(func(s *EpisodeStart) []byte { return stepJSON(s.EpisodeID, "many", 50) })},
		{name: "think of 1 MiB", want: ReasonOversized, behave: afterStart(func(s *EpisodeStart) []byte { return stepJSON(s.EpisodeID, strings.Repeat("a", 1<<20), 1) })},
		{name: "think above the think limit", want: ReasonThinkTooLong, behave: afterStart(func(s *EpisodeStart) []byte {
			return stepJSON(s.EpisodeID, strings.Repeat("a", DefaultMaxThinkBytes+1), 1)
		})},
		{name: "stops answering", want: ReasonStepTimeout, behave: func(ws *websocket.Conn, env *hostileEnv) {
			if ackHello(ws, env) {
				drain(ws)
			}
		}},
		{name: "writes one byte a second", want: ReasonStepTimeout, behave: func(ws *websocket.Conn, env *hostileEnv) {
			if !ackHello(ws, env) {
				return
			}
			s := nextStart(ws)
			if s == nil {
				return
			}
			// A server frame is unmasked: FIN+text, 7-bit length, payload.
			payload := stepJSON(s.EpisodeID, "slow", 1)
			raw := append([]byte{0x81, 126, byte(len(payload) >> 8), byte(len(payload))}, payload...)
			nc := ws.UnderlyingConn()
			for _, b := range raw {
				if _, err := nc.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(time.Second) // the attack is the slowness itself
			}
		}},
		{name: "drops the connection mid-episode", want: ReasonDisconnected, behave: func(ws *websocket.Conn, env *hostileEnv) {
			if !ackHello(ws, env) {
				return
			}
			s := nextStart(ws)
			if s == nil {
				return
			}
			_ = ws.WriteMessage(websocket.TextMessage, stepJSON(s.EpisodeID, "one step", 1))
			_, _, _ = ws.ReadMessage() // the observation
			ws.UnderlyingConn().Close()
		}},
		{name: "wrong signature", want: ReasonBadSignature, behave: func(ws *websocket.Conn, env *hostileEnv) {
			h := readHello(ws)
			if h == nil {
				return
			}
			ack, _ := NewHelloAck(other.PrivateKey(), h, time.Now())
			ack.MinerAddress = env.signer.Address.Hex() // claims its own address, signed by another key
			data, _ := Encode(ack)
			_ = ws.WriteMessage(websocket.TextMessage, data)
			drain(ws)
		}},
		{name: "replayed hello", want: ReasonReplay, behave: func(ws *websocket.Conn, env *hostileEnv) {
			h := readHello(ws)
			if h == nil {
				return
			}
			// A valid ack captured from an earlier handshake: right key,
			// right validator, but the old nonce.
			old := *h
			old.Nonce = strings.Repeat("ab", NonceBytes)
			ack, _ := NewHelloAck(env.signer.PrivateKey(), &old, time.Now().Add(-time.Minute))
			data, _ := Encode(ack)
			_ = ws.WriteMessage(websocket.TextMessage, data)
			drain(ws)
		}},
		{name: "another uid's key", want: ReasonIdentityMismatch, identityOf: other, behave: func(ws *websocket.Conn, env *hostileEnv) {
			if ackHello(ws, env) {
				drain(ws)
			}
		}},
		{name: "never acks", want: ReasonHandshakeTimeout, behave: func(ws *websocket.Conn, env *hostileEnv) { drain(ws) }},
		{name: "binary frame", want: ReasonMalformed, behave: func(ws *websocket.Conn, env *hostileEnv) {
			if ackHello(ws, env) && nextStart(ws) != nil {
				_ = ws.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})
				drain(ws)
			}
		}},
		{name: "never terminates", want: ReasonMaxSteps, behave: answerSlowly(0)},
		{name: "steps without waiting for observations", want: ReasonUnexpected, behave: prematureSteps},
		{name: "slow past the episode timeout", want: ReasonEpisodeTimeout, behave: answerSlowly(time.Second)},
	}
}

// TestHostileMiners runs every hostile miner at the same time as two
// honest ones, over real sockets, and checks that each hostile episode
// ends with its reason while the honest trajectories equal a run without
// the hostile miners.
func TestHostileMiners(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	lim := testLimits()
	problems = problems[:3]

	honest := make([]Miner, 2)
	for i := range honest {
		s := newSigner(t)
		honest[i] = Miner{UID: uint16(i), Hotkey: chain.Mirror(s.Address), Endpoint: startServer(t, s, scriptedAgent(), ServerOptions{})}
	}
	runHonest := func(r *Runner) [][]Trajectory {
		out := make([][]Trajectory, len(honest))
		var wg sync.WaitGroup
		for i, m := range honest {
			wg.Go(func() { out[i] = r.Run(context.Background(), m, problems) })
		}
		wg.Wait()
		return out
	}
	baseline := runHonest(newTestRunner(t, tools, lim))

	other := newSigner(t)
	cases := hostileCases(other)
	r := newTestRunner(t, tools, lim)
	hostileOut := make([][]Trajectory, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		env := &hostileEnv{signer: newSigner(t)}
		hotkey := chain.Mirror(env.signer.Address)
		if c.identityOf != nil {
			hotkey = chain.Mirror(c.identityOf.Address)
		}
		m := Miner{UID: uint16(10 + i), Hotkey: hotkey, Endpoint: startHostile(t, env, c.behave)}
		wg.Go(func() { hostileOut[i] = r.Run(context.Background(), m, problems[:1]) })
	}
	// A dead endpoint: nothing listens there.
	var deadOut []Trajectory
	wg.Go(func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Error(err)
			return
		}
		addr := ln.Addr().String()
		ln.Close()
		deadOut = r.Run(context.Background(), Miner{UID: 99, Endpoint: addr}, problems[:1])
	})
	start := time.Now()
	mixed := runHonest(r)
	wg.Wait()
	t.Logf("hostile run took %s", time.Since(start).Round(time.Millisecond))

	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := hostileOut[i][0]
			if got.EndReason != c.want {
				t.Errorf("end reason %s (%s), want %s", got.EndReason, got.EndDetail, c.want)
			}
			if !got.EndReason.MinerFault() && got.EndReason != ReasonMaxSteps {
				t.Errorf("reason %s is not charged to the miner", got.EndReason)
			}
		})
	}
	t.Run("dead endpoint", func(t *testing.T) {
		if deadOut[0].EndReason != ReasonDialFailed {
			t.Errorf("end reason %s, want dial_failed", deadOut[0].EndReason)
		}
	})
	t.Run("honest miners unaffected", func(t *testing.T) {
		for i := range honest {
			for j := range problems {
				if mixed[i][j].EndReason != ReasonTerminated {
					t.Errorf("miner %d problem %d: %s (%s)", i, j, mixed[i][j].EndReason, mixed[i][j].EndDetail)
				}
				if a, b := normalized(t, baseline[i][j]), normalized(t, mixed[i][j]); a != b {
					t.Errorf("miner %d problem %d differs from the run without hostile miners:\n%s\n%s", i, j, a, b)
				}
			}
		}
	})
}
