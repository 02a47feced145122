package episode

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"
)

// wirePair connects a Wire (the validator's side) to a raw socket (the
// miner's side) over loopback.
func wirePair(t *testing.T, version int) (*Wire, *websocket.Conn) {
	t.Helper()
	minerSide := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		minerSide <- ws
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := <-minerSide
	t.Cleanup(func() { m.Close() })
	w := NewWire(ws, WireOptions{Version: version, MaxFrameBytes: 1 << 16, WriteTimeout: time.Second}, zerolog.Nop())
	t.Cleanup(func() { w.Close("test over") })
	return w, m
}

// closeFrame reads the miner's side until the close frame and returns its
// code and text.
func closeFrame(t *testing.T, m *websocket.Conn) (int, string) {
	t.Helper()
	_ = m.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := m.ReadMessage(); err != nil {
			ce, ok := err.(*websocket.CloseError)
			if !ok {
				t.Fatalf("read: %v, want a close frame", err)
			}
			return ce.Code, ce.Text
		}
	}
}

// TestWire: the core routes each frame as the runner and the checker both
// rely on; a connection it ends gets 1008 and the reason, an abort
// included.
func TestWire(t *testing.T) {
	const live = "ep-live"
	tests := []struct {
		name    string
		version int
		send    string
		// episodeFails or connection dies, with reason and the cause.
		episodeFails bool
		wantReason   EndReason
		wantCause    WireCause
		wantStep     bool
	}{
		{name: "a step reaches its episode", version: 1, send: `{"type":"step","episode_id":"ep-live","think":"t","tool_calls":[]}`, wantStep: true},
		{name: "a bad frame naming a live episode fails only it", version: 1,
			send:         `{"type":"step","episode_id":"ep-live","think":"t","tool_calls":[{"id":"a","name":"find_product","parameters":"{}"}]}`,
			episodeFails: true, wantReason: ReasonMalformed, wantCause: WireCause{Frame: &DecodeError{Type: TypeStep, Field: "tool_calls[0].parameters"}}},
		{name: "a bad frame naming no episode ends the connection", version: 1, send: `{"type":`,
			wantReason: ReasonMalformed, wantCause: WireCause{Frame: &DecodeError{}}},
		{name: "an infer on version 1 ends the connection", version: 1,
			send:       `{"type":"infer","episode_id":"ep-live","request_id":"r","body":{}}`,
			wantReason: ReasonUnexpected, wantCause: WireCause{Type: TypeInfer}},
		{name: "a validator's message ends the connection", version: 1,
			send:       `{"type":"episode_end","episode_id":"ep-live","reason":"terminated"}`,
			wantReason: ReasonUnexpected, wantCause: WireCause{Type: TypeEpisodeEnd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, m := wirePair(t, tt.version)
			ep := NewWireEpisode(0)
			w.Add(live, ep)
			if err := m.WriteMessage(websocket.TextMessage, []byte(tt.send)); err != nil {
				t.Fatal(err)
			}
			select {
			case in := <-ep.Inbox:
				if !tt.wantStep || in.Step.EpisodeID != live {
					t.Fatalf("step %+v delivered", in.Step)
				}
				return
			case <-ep.Failed():
				reason, _, cause := ep.Failure()
				if !tt.episodeFails || reason != tt.wantReason || !sameCause(cause, tt.wantCause) {
					t.Fatalf("episode failed: %s %+v; want connection %v, %s %+v", reason, cause, !tt.episodeFails, tt.wantReason, tt.wantCause)
				}
				return
			case <-w.Dead():
				reason, _, cause := w.Death()
				if tt.episodeFails || tt.wantStep || reason != tt.wantReason || !sameCause(cause, tt.wantCause) {
					t.Fatalf("connection died: %s %+v; want %s %+v", reason, cause, tt.wantReason, tt.wantCause)
				}
				if code, text := closeFrame(t, m); code != websocket.ClosePolicyViolation || text != string(tt.wantReason) {
					t.Errorf("close %d %q, want 1008 %q", code, text, tt.wantReason)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("nothing happened")
			}
		})
	}
}

func sameCause(got, want WireCause) bool {
	if (got.Frame == nil) != (want.Frame == nil) || got.Type != want.Type {
		return false
	}
	return got.Frame == nil || got.Frame.Type == want.Frame.Type && got.Frame.Field == want.Frame.Field
}

// TestWireCloseIsPolicyViolation: the validator's side ends a connection
// it aborts with 1008 and the reason, as it ends one for a violation, so
// the checker's close matches the runner's.
func TestWireCloseIsPolicyViolation(t *testing.T) {
	w, m := wirePair(t, 1)
	w.Close("connection closed by the validator")
	if code, text := closeFrame(t, m); code != websocket.ClosePolicyViolation || text != string(ReasonAborted) {
		t.Errorf("close %d %q, want 1008 %q", code, text, ReasonAborted)
	}
	if reason, detail, _ := w.Death(); reason != ReasonAborted || detail != "connection closed by the validator" {
		t.Errorf("death %s %q", reason, detail)
	}
}
