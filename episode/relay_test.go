package episode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"net/http"
	"net/http/httptest"

	"github.com/gorilla/websocket"

	"arena/chain"
)

// fakeRelay answers every infer with a completion whose content is the
// body's last message, numbering completions; fail makes it answer a
// provider error instead.
type fakeRelay struct {
	mu     sync.Mutex
	n      int
	fail   bool
	opened int
}

func (f *fakeRelay) Open(miner, episodeID string) RelaySession {
	f.mu.Lock()
	f.opened++
	f.mu.Unlock()
	return &fakeSession{f: f}
}

type fakeSession struct {
	f     *fakeRelay
	usage RelayUsage
}

func (s *fakeSession) Offer() WireRelay {
	return WireRelay{Models: []string{"m"}, MaxCompletions: 10, MaxInferBytes: DefaultMaxInferBytes}
}

func (s *fakeSession) Infer(ctx context.Context, req *Infer) (*InferResult, *Completion) {
	s.f.mu.Lock()
	s.f.n++
	id := fmt.Sprintf("cmpl-%d", s.f.n)
	fail := s.f.fail
	s.f.mu.Unlock()
	if fail {
		s.usage.ProviderFailures++
		return &InferResult{Error: &InferError{Code: InferProviderError, Message: "provider answered 500"}},
			&Completion{ID: id, RequestID: req.RequestID, Request: req.Body, Error: InferProviderError}
	}
	resp := json.RawMessage(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"}}]}`)
	s.usage.Completions++
	return &InferResult{CompletionID: id, Completion: resp, Usage: &Usage{PromptTokens: 3}},
		&Completion{ID: id, RequestID: req.RequestID, Request: req.Body, Response: resp, Usage: Usage{PromptTokens: 3}}
}

func (s *fakeSession) Close() RelayUsage { return s.usage }

func newRelayRunner(t testing.TB, relay Relay, lim Limits) *Runner {
	t.Helper()
	tools, _ := catalogTools(t, 0)
	r := newTestRunner(t, tools, lim)
	r.opts.Relay = relay
	return r
}

// inferringAgent asks the relay once per step (when it can) and names the
// completion in its step; it plays scriptedAgent's moves.
func inferringAgent(seen chan<- bool) Agent {
	inner := scriptedAgent()
	return AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
		act, err := inner.Step(ctx, v)
		if err != nil {
			return act, err
		}
		if seen != nil {
			select {
			case seen <- v.Infer != nil:
			default:
			}
		}
		if v.Infer == nil {
			return act, nil
		}
		res, err := v.Infer(ctx, json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"step"}]}`))
		if err != nil {
			return act, nil
		}
		act.CompletionID = res.CompletionID
		return act, nil
	})
}

func TestVersionNegotiation(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	cases := []struct {
		name        string
		relay       bool
		serverMax   int
		wantVersion int
		wantInfer   bool
	}{
		{"no relay: version 1", false, 0, 1, false},
		{"relay, v2 miner: version 2", true, 0, 2, true},
		{"relay, v1 miner: version 1", true, 1, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			miner := newSigner(t)
			seen := make(chan bool, 1)
			addr := startServer(t, miner, inferringAgent(seen), ServerOptions{MaxVersion: tc.serverMax})
			r := newTestRunner(t, tools, testLimits())
			if tc.relay {
				r.opts.Relay = &fakeRelay{}
			}
			conn, err := r.Connect(context.Background(), Miner{Hotkey: chain.Mirror(miner.Address), Endpoint: addr})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if conn.Version() != tc.wantVersion {
				t.Fatalf("version %d, want %d", conn.Version(), tc.wantVersion)
			}
			tr := conn.Episode(context.Background(), problems[0])
			if tr.EndReason != ReasonTerminated {
				t.Fatalf("end %s (%s)", tr.EndReason, tr.EndDetail)
			}
			if got := <-seen; got != tc.wantInfer {
				t.Fatalf("agent had an infer function: %v, want %v", got, tc.wantInfer)
			}
			if (len(tr.Completions) > 0) != tc.wantInfer {
				t.Fatalf("%d completions recorded, want some: %v", len(tr.Completions), tc.wantInfer)
			}
		})
	}
}

func TestInferBindsCompletionsToSteps(t *testing.T) {
	_, problems := catalogTools(t, 0)
	miner := newSigner(t)
	addr := startServer(t, miner, inferringAgent(nil), ServerOptions{})
	r := newRelayRunner(t, &fakeRelay{}, testLimits())
	trs := r.Run(context.Background(), Miner{Hotkey: chain.Mirror(miner.Address), Endpoint: addr}, problems[:2])
	for _, tr := range trs {
		if tr.EndReason != ReasonTerminated || tr.Protocol != Version2 || tr.Relay == nil {
			t.Fatalf("end %s protocol %d relay %v", tr.EndReason, tr.Protocol, tr.Relay)
		}
		if len(tr.Completions) != len(tr.Steps) {
			t.Fatalf("%d completions for %d steps", len(tr.Completions), len(tr.Steps))
		}
		for i, st := range tr.Steps {
			c, ok := tr.CompletionByID(st.CompletionID)
			if !ok {
				t.Fatalf("step %d names %q, not a recorded completion", i, st.CompletionID)
			}
			if c.Observations != i {
				t.Fatalf("step %d's completion was asked after %d observations, want %d", i, c.Observations, i)
			}
			if !strings.Contains(string(c.Request), `"step"`) || len(c.Response) == 0 {
				t.Fatalf("completion record incomplete: %+v", c)
			}
		}
		if tr.RelayUsage == nil || tr.RelayUsage.Completions != len(tr.Steps) {
			t.Fatalf("usage %+v", tr.RelayUsage)
		}
	}
}

func TestInferProviderFailureFlagsEpisode(t *testing.T) {
	_, problems := catalogTools(t, 0)
	miner := newSigner(t)
	var errs []string
	var mu sync.Mutex
	agent := AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
		_, err := v.Infer(ctx, json.RawMessage(`{"model":"m","messages":[]}`))
		mu.Lock()
		errs = append(errs, fmt.Sprint(err))
		mu.Unlock()
		return Action{Think: "no model", ToolCalls: []ToolCall{{ID: "t", Name: "terminate", Parameters: json.RawMessage(`{"status":"failure"}`)}}}, nil
	})
	addr := startServer(t, miner, agent, ServerOptions{})
	r := newRelayRunner(t, &fakeRelay{fail: true}, testLimits())
	tr := r.Run(context.Background(), Miner{Hotkey: chain.Mirror(miner.Address), Endpoint: addr}, problems[:1])[0]
	if !tr.RelayFault || tr.EndReason != ReasonTerminated {
		t.Fatalf("relay fault %v, end %s", tr.RelayFault, tr.EndReason)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], InferProviderError) {
		t.Fatalf("agent saw %v, want a provider_error", errs)
	}
}

// rawV2Miner completes a version-2 handshake by hand and then runs play
// on the socket.
func rawV2Miner(t *testing.T, play func(ws *websocket.Conn)) (string, *chain.Signer) {
	t.Helper()
	miner := newSigner(t)
	addr := serveRaw(t, func(ws *websocket.Conn) {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			return
		}
		msg, err := Decode(frame)
		if err != nil {
			return
		}
		hello := msg.(*Hello)
		ack, _ := NewHelloAckVersion(miner.PrivateKey(), hello, time.Now(), Negotiate(hello, MaxVersion))
		data, _ := Encode(ack)
		if ws.WriteMessage(websocket.TextMessage, data) != nil {
			return
		}
		play(ws)
	})
	return addr, miner
}

func TestInferWireRules(t *testing.T) {
	_, problems := catalogTools(t, 0)
	lim := testLimits()
	lim.MaxFrameBytes = 8 << 10
	lim.MaxThinkBytes = 4 << 10
	lim.MaxInferBytes = 64 << 10
	big := strings.Repeat("x", 20<<10) // above max_frame_bytes, below max_infer_bytes
	cases := []struct {
		name      string
		send      func(episodeID string) []string
		wantEnd   EndReason
		wantError string // infer_result error code the miner must see
	}{
		{"large infer is within max_infer_bytes", func(id string) []string {
			return []string{`{"type":"infer","episode_id":"` + id + `","request_id":"a","body":{"model":"m","messages":[{"role":"user","content":"` + big + `"}]}}`}
		}, ReasonTerminated, ""},
		{"large step is oversized", func(id string) []string {
			return []string{`{"type":"step","episode_id":"` + id + `","think":"` + big + `","tool_calls":[]}`}
		}, ReasonOversized, ""},
		{"infer for another episode is refused", func(id string) []string {
			return []string{`{"type":"infer","episode_id":"nope","request_id":"a","body":{}}`}
		}, ReasonTerminated, InferNoEpisode},
		{"infer without request_id is malformed", func(id string) []string {
			return []string{`{"type":"infer","episode_id":"` + id + `","request_id":"","body":{}}`}
		}, ReasonMalformed, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gotErr := make(chan string, 1)
			addr, miner := rawV2Miner(t, func(ws *websocket.Conn) {
				_, frame, err := ws.ReadMessage()
				if err != nil {
					return
				}
				start, _ := Decode(frame)
				id := start.(*EpisodeStart).EpisodeID
				for _, f := range tc.send(id) {
					if ws.WriteMessage(websocket.TextMessage, []byte(f)) != nil {
						return
					}
				}
				// Read until the infer answer or the end, then terminate.
				for {
					_, frame, err := ws.ReadMessage()
					if err != nil {
						return
					}
					msg, err := Decode(frame)
					if err != nil {
						return
					}
					switch m := msg.(type) {
					case *InferResult:
						code := ""
						if m.Error != nil {
							code = m.Error.Code
						}
						gotErr <- code
						_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"step","episode_id":"`+id+`","think":"t","tool_calls":[{"id":"1","name":"terminate","parameters":{"status":"failure"}}]}`))
					case *EpisodeEnd:
						return
					}
				}
			})
			r := newRelayRunner(t, &fakeRelay{}, lim)
			tr := r.Run(context.Background(), Miner{Hotkey: chain.Mirror(miner.Address), Endpoint: addr}, problems[:1])[0]
			if tr.EndReason != tc.wantEnd {
				t.Fatalf("end %s (%s), want %s", tr.EndReason, tr.EndDetail, tc.wantEnd)
			}
			if tc.wantEnd == ReasonTerminated {
				if got := <-gotErr; got != tc.wantError {
					t.Fatalf("infer_result error %q, want %q", got, tc.wantError)
				}
			}
		})
	}
}

// serveRaw serves handle on a loopback websocket at Path until the test
// ends.
func serveRaw(t *testing.T, handle func(ws *websocket.Conn)) string {
	t.Helper()
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		handle(ws)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}
