package episode

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"

	"arena/chain"
)

func TestHelloAckVerification(t *testing.T) {
	validator, miner, stranger := newSigner(t), newSigner(t), newSigner(t)
	now := time.Now()
	hello, nonce, err := NewHello(validator.PrivateKey(), now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ack    func() *HelloAck
		reason EndReason // "" = accepted
	}{
		{"valid", func() *HelloAck { a, _ := NewHelloAck(miner.PrivateKey(), hello, now); return a }, ""},
		{"signed by another key", func() *HelloAck {
			a, _ := NewHelloAck(stranger.PrivateKey(), hello, now)
			a.MinerAddress = miner.Address.Hex()
			return a
		}, ReasonBadSignature},
		{"tampered timestamp", func() *HelloAck { a, _ := NewHelloAck(miner.PrivateKey(), hello, now); a.Timestamp--; return a }, ReasonBadSignature},
		{"other nonce", func() *HelloAck {
			h2, _, _ := NewHello(validator.PrivateKey(), now)
			a, _ := NewHelloAck(miner.PrivateKey(), h2, now)
			return a
		}, ReasonReplay},
		{"stale", func() *HelloAck { a, _ := NewHelloAck(miner.PrivateKey(), hello, now.Add(-time.Hour)); return a }, ReasonReplay},
		{"other version", func() *HelloAck { a, _ := NewHelloAck(miner.PrivateKey(), hello, now); a.Version = 2; return a }, ReasonVersionMismatch},
		{"signed for another validator", func() *HelloAck {
			h := *hello
			h.ValidatorAddress = stranger.Address.Hex()
			a, _ := NewHelloAck(miner.PrivateKey(), &h, now)
			return a
		}, ReasonBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := VerifyHelloAck(tt.ack(), validator.Address, nonce, now, DefaultMaxClockSkew)
			if tt.reason == "" {
				if err != nil || got != miner.Address {
					t.Fatalf("got %s, %v; want %s", got, err, miner.Address)
				}
				return
			}
			var he *HandshakeError
			if !errors.As(err, &he) || he.Reason != tt.reason {
				t.Fatalf("error %v, want reason %s", err, tt.reason)
			}
		})
	}
}

func TestSignatureIsEIP191(t *testing.T) {
	s := newSigner(t)
	payload := []byte("arena/v1 hello\nversion:1")
	sig, err := SignPayload(s.PrivateKey(), payload)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(sig, "1b") && !strings.HasSuffix(sig, "1c") {
		t.Fatalf("v is not 27/28: %s", sig)
	}
	got, err := RecoverSigner(payload, sig)
	if err != nil || got != s.Address {
		t.Fatalf("recovered %s, %v; want %s", got, err, s.Address)
	}
	// v given as 0/1 is accepted too.
	alt := sig[:130] + map[bool]string{true: "00", false: "01"}[strings.HasSuffix(sig, "1b")]
	if got, err := RecoverSigner(payload, alt); err != nil || got != s.Address {
		t.Fatalf("v=0/1: recovered %s, %v", got, err)
	}
}

// TestHighSAccepted: a signature with s above n/2 (the same point's other
// representation, recovery id flipped) recovers the same signer, as
// docs/protocol.md tells miners whose libraries do not normalise s.
func TestHighSAccepted(t *testing.T) {
	s := newSigner(t)
	payload := []byte("arena/v1 hello\nversion:2")
	low, err := SignPayload(s.PrivateKey(), payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := hex.DecodeString(low[2:])
	if err != nil {
		t.Fatal(err)
	}
	n := crypto.S256().Params().N
	sv := new(big.Int).SetBytes(sig[32:64])
	if sv.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		t.Fatalf("SignPayload gave high s %x", sv)
	}
	new(big.Int).Sub(n, sv).FillBytes(sig[32:64])
	sig[64] = 27 + 28 - sig[64] // the negated s recovers with the other parity
	got, err := RecoverSigner(payload, "0x"+hex.EncodeToString(sig))
	if err != nil || got != s.Address {
		t.Fatalf("high s: recovered %s, %v; want %s", got, err, s.Address)
	}
}

func TestNonceCache(t *testing.T) {
	c := NewNonceCache(time.Second, 2)
	now := time.Now()
	if !c.Use("a", now) || c.Use("a", now) {
		t.Fatal("second use of a nonce accepted")
	}
	if !c.Use("b", now) {
		t.Fatal("fresh nonce refused")
	}
	if c.Use("c", now) {
		t.Fatal("full cache of live nonces accepted a new one")
	}
	if !c.Use("c", now.Add(3*time.Second)) {
		t.Fatal("expired entries not pruned")
	}
}

// dialServer opens a raw websocket to a Server.
func dialServer(t *testing.T, addr string) *websocket.Conn {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial("ws://"+addr+Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestServerRejectsReplayedHello(t *testing.T) {
	miner, validator := newSigner(t), newSigner(t)
	addr := startServer(t, miner, scriptedAgent(), ServerOptions{})
	hello, _, err := NewHello(validator.PrivateKey(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := Encode(hello)
	stale, _, _ := NewHello(validator.PrivateKey(), time.Now().Add(-time.Hour))
	staleData, _ := Encode(stale)
	forged := *hello
	forged.ValidatorAddress = miner.Address.Hex()
	forgedData, _ := Encode(&forged)
	tests := []struct {
		name  string
		frame []byte
		want  string // "" = hello_ack expected, else close reason
	}{
		{"first use", data, ""},
		{"replay", data, string(ReasonReplay)},
		{"stale", staleData, string(ReasonReplay)},
		{"forged address", forgedData, string(ReasonBadSignature)},
		{"garbage", []byte("{"), string(ReasonMalformed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := dialServer(t, addr)
			if err := ws.WriteMessage(websocket.TextMessage, tt.frame); err != nil {
				t.Fatal(err)
			}
			_, frame, err := ws.ReadMessage()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				msg, err := Decode(frame)
				if err != nil {
					t.Fatal(err)
				}
				ack := msg.(*HelloAck)
				if common.HexToAddress(ack.MinerAddress) != miner.Address {
					t.Fatalf("ack from %s", ack.MinerAddress)
				}
				return
			}
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Text != tt.want {
				t.Fatalf("read: %v, want close %q", err, tt.want)
			}
		})
	}
}

func TestServerConcurrencyLimitAndAgentErrors(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	miner := newSigner(t)
	release := make(chan struct{})
	blocking := AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
		if v.Query == "fail" {
			return Action{}, errors.New("model endpoint down")
		}
		if v.Query == "panic" {
			panic("agent bug")
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return scriptedAgent().Step(ctx, v)
	})
	lim := testLimits()
	lim.MaxConcurrentEpisodes = 2 // the validator allows more than the miner takes
	r := newTestRunner(t, tools, lim)
	// Each subtest gets its own server: slots free asynchronously after
	// the validator closes a connection.
	serve := func() Miner {
		return Miner{UID: 1, Hotkey: chain.Mirror(miner.Address), Endpoint: startServer(t, miner, blocking, ServerOptions{MaxConcurrentEpisodes: 1})}
	}

	t.Run("agent error and panic terminate with failure", func(t *testing.T) {
		trs := r.Run(context.Background(), serve(), []Problem{{ID: "f", Query: "fail"}, {ID: "p", Query: "panic"}})
		for _, tr := range trs {
			if tr.EndReason != ReasonTerminated || tr.TerminateStatus != "failure" {
				t.Errorf("%s: %s/%q, want terminated/failure", tr.ProblemID, tr.EndReason, tr.TerminateStatus)
			}
		}
	})
	t.Run("busy miner refuses the extra episode", func(t *testing.T) {
		conn, err := r.Connect(context.Background(), serve())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		done := make(chan Trajectory, 2)
		for _, p := range problems[:2] {
			go func() { done <- conn.Episode(context.Background(), p) }()
		}
		// Whichever episode arrives second finds the miner's one slot
		// taken and is refused at once, while the other blocks in the
		// agent until released.
		refused := <-done
		close(release)
		served := <-done
		if refused.EndReason != ReasonTerminated || refused.TerminateStatus != "failure" || len(refused.Steps) != 1 {
			t.Errorf("refused: %s/%q with %d steps, want an immediate terminate(failure)", refused.EndReason, refused.TerminateStatus, len(refused.Steps))
		}
		if served.EndReason != ReasonTerminated || served.TerminateStatus != "success" {
			t.Errorf("served: %s/%q (%s)", served.EndReason, served.TerminateStatus, served.EndDetail)
		}
	})
}
