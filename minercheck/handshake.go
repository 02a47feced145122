package minercheck

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"

	"arena/episode"
)

// dial opens a websocket to the miner. The error says why in one line,
// with the HTTP status when the server answered but did not upgrade.
func (r *run) dial(ctx context.Context) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.DialTimeout)
	defer cancel()
	d := websocket.Dialer{HandshakeTimeout: r.opts.DialTimeout, ReadBufferSize: 8 << 10, WriteBufferSize: 8 << 10}
	u := "ws://" + r.hostport + episode.Path
	ws, resp, err := d.DialContext(ctx, u, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: %v (HTTP %s): serve the protocol at path %s on that port", u, err, resp.Status, episode.Path)
		}
		return nil, fmt.Errorf("dial %s: %v", u, err)
	}
	return ws, nil
}

// closeGently ends a connection the way the validator does when it is
// done: a close frame, then the socket.
func closeGently(ws *websocket.Conn) {
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(100*time.Millisecond))
	ws.Close()
}

// answer is what came back for a hello.
type answer struct {
	ack     *episode.HelloAck
	elapsed time.Duration
	// Otherwise why there is no ack, as a protocol end reason and text.
	reason episode.EndReason
	detail string
	// closed reports a close frame (code and text) or, with code 0, a
	// connection that ended without one.
	closed    bool
	closeCode int
	closeText string
}

// exchange sends frame as the hello and reads one answer within wait.
// The reader stops at ctx's end: the socket is closed under it.
func (r *run) exchange(ctx context.Context, ws *websocket.Conn, frame []byte, wait time.Duration) answer {
	stop := context.AfterFunc(ctx, func() { ws.Close() })
	defer stop()
	start := time.Now()
	_ = ws.SetWriteDeadline(start.Add(r.opts.WriteTimeout))
	if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return answer{reason: episode.ReasonDisconnected, detail: "send hello: " + err.Error(), closed: true}
	}
	_ = ws.SetReadDeadline(start.Add(wait))
	typ, data, err := ws.ReadMessage()
	a := answer{elapsed: time.Since(start)}
	_ = ws.SetReadDeadline(time.Time{})
	var ce *websocket.CloseError
	var ne net.Error
	switch {
	// gorilla reports a connection that ended without a close frame as
	// code 1006, which is never sent on the wire.
	case errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure:
		a.reason, a.closed, a.closeCode, a.closeText = episode.ReasonDisconnected, true, ce.Code, ce.Text
		a.detail = fmt.Sprintf("closed with %d %q", ce.Code, ce.Text)
	case errors.As(err, &ne) && ne.Timeout():
		a.reason, a.detail = episode.ReasonHandshakeTimeout, fmt.Sprintf("no answer within %s", wait)
	case err != nil:
		a.reason, a.closed = episode.ReasonDisconnected, true
		a.detail = "closed without a close frame: " + err.Error()
	case typ != websocket.TextMessage:
		a.reason, a.detail = episode.ReasonMalformed, "answered with a binary frame"
	default:
		msg, err := episode.Decode(data)
		var de *episode.DecodeError
		switch {
		case errors.As(err, &de):
			a.reason, a.detail = de.Reason(), "answered with an invalid message: "+err.Error()
		case msg.MessageType() != episode.TypeHelloAck:
			a.reason, a.detail = episode.ReasonUnexpected, "answered with "+msg.MessageType()+", not hello_ack"
		default:
			a.ack = msg.(*episode.HelloAck)
		}
	}
	return a
}

// checkHandshake runs the handshake and signature clauses on one
// connection. Its error is the check's: the endpoint cannot be reached.
func (r *run) checkHandshake(ctx context.Context) error {
	start := time.Now()
	ws, err := r.dial(ctx)
	if err != nil {
		return err
	}
	defer closeGently(ws)
	hello, nonce, err := episode.NewHello(r.validator.PrivateKey(), time.Now())
	if err != nil {
		return fmt.Errorf("miner check: %w", err)
	}
	frame, err := episode.Encode(hello)
	if err != nil {
		return fmt.Errorf("miner check: %w", err)
	}
	a := r.exchange(ctx, ws, frame, r.opts.HandshakeTimeout)
	if a.ack == nil {
		detail := a.detail
		if a.closed {
			detail = "the miner closed the connection instead of answering hello_ack (" + detail + "); a miner that refuses validators without a permit refuses the checker's throwaway key too"
		}
		r.set(Handshake, Fail, start, "%s: %s", a.reason, detail)
		r.set(Signature, Skip, start, "no hello_ack to check")
		return nil
	}
	r.ack = a.ack
	r.minerAddr = common.HexToAddress(a.ack.MinerAddress)
	r.judgeSignature(start)
	_, err = episode.VerifyHelloAck(a.ack, r.validator.Address, nonce, time.Now(), episode.DefaultMaxClockSkew)
	var he *episode.HandshakeError
	if errors.As(err, &he) && he.Reason != episode.ReasonBadSignature {
		r.set(Handshake, Fail, start, "%s: %v", he.Reason, he.Err)
		return nil
	}
	r.hello = frame
	r.set(Handshake, Pass, start, "hello_ack in %s: version %d, nonce echoed, timestamp %ds off the checker's clock (bound %s)",
		short(a.elapsed), a.ack.Version, time.Now().Unix()-a.ack.Timestamp, episode.DefaultMaxClockSkew)
	return nil
}

// judgeSignature checks the signature over the payload the ack claims
// (its own nonce and timestamp, this validator), so a wrong nonce is the
// handshake clause's failure and a wrong signer or validator this one's.
func (r *run) judgeSignature(start time.Time) {
	ack := r.ack
	var nonce [episode.NonceBytes]byte
	if _, err := hex.Decode(nonce[:], []byte(ack.Nonce)); err != nil {
		r.set(Signature, Fail, start, "malformed: nonce %q is not hex", ack.Nonce)
		return
	}
	payload := episode.HelloAckPayload(ack.Version, r.minerAddr, r.validator.Address, nonce, ack.Timestamp)
	signer, err := episode.RecoverSigner(payload, ack.Signature)
	switch {
	case err != nil:
		r.set(Signature, Fail, start, "%s: %v", episode.ReasonBadSignature, err)
	case signer != r.minerAddr:
		r.set(Signature, Fail, start, "%s: the signature recovers to %s, not miner_address %s: signed by another key, or over a payload for another validator or timestamp (docs/protocol.md §3.1)",
			episode.ReasonBadSignature, signer.Hex(), r.minerAddr.Hex())
	default:
		r.set(Signature, Pass, start, "recovers to miner_address %s over the hello_ack payload naming this validator (%s) and nonce", r.minerAddr.Hex(), r.validator.Address.Hex())
	}
}

// refusal is one hello the miner must refuse and what it did.
type refusal struct {
	clause Clause
	what   string
	want   episode.EndReason // the close text the reference miner sends
	answer
	dialErr error
}

// refused says whether the miner refused, and if not what it did.
func (f refusal) refused() (bool, string) {
	switch {
	case f.dialErr != nil:
		return false, fmt.Sprintf("%s: could not connect: %v", f.what, f.dialErr)
	case f.ack != nil:
		return false, fmt.Sprintf("%s: answered hello_ack; want the connection closed (%s)", f.what, f.want)
	case f.closed:
		return true, ""
	case f.reason == episode.ReasonHandshakeTimeout:
		return false, fmt.Sprintf("%s: neither answered nor closed the connection within %s", f.what, strings.TrimPrefix(f.detail, "no answer within "))
	}
	return false, fmt.Sprintf("%s: %s; want the connection closed (%s)", f.what, f.detail, f.want)
}

// closeFrame says whether the refusal came as the documented close frame.
func (f refusal) closeFrame() (bool, string) {
	if f.closeCode == websocket.ClosePolicyViolation && f.closeText == string(f.want) {
		return true, ""
	}
	if f.closeCode == 0 {
		return false, fmt.Sprintf("%s: the connection ended without a close frame; want close %d %q", f.what, websocket.ClosePolicyViolation, f.want)
	}
	return false, fmt.Sprintf("%s: closed with %d %q; want %d %q", f.what, f.closeCode, f.closeText, websocket.ClosePolicyViolation, f.want)
}

// refuse sends one hello the miner must refuse, each on its own
// connection since a refusal ends it.
func (r *run) refuse(ctx context.Context, cl Clause, what string, want episode.EndReason, frame []byte) refusal {
	f := refusal{clause: cl, what: what, want: want}
	ws, err := r.dial(ctx)
	if err != nil {
		f.dialErr = err
		r.refusals = append(r.refusals, f)
		return f
	}
	defer closeGently(ws)
	f.answer = r.exchange(ctx, ws, frame, r.opts.RefusalTimeout)
	r.refusals = append(r.refusals, f)
	return f
}

// checkRefusals runs the replay, version and forged_hello clauses and
// sends close_codes' own two bad first messages. Every refusal's close
// frame is judged with the episodes' disconnects in judgeEvidence.
func (r *run) checkRefusals(ctx context.Context) error {
	me := r.validator.Address
	forger, err := crypto.GenerateKey()
	if err != nil {
		return fmt.Errorf("miner check: %w", err)
	}
	sign := func(version int, key *ecdsa.PrivateKey, at time.Time) ([]byte, error) {
		nonce, err := episode.NewNonce()
		if err != nil {
			return nil, err
		}
		h := &episode.Hello{Version: version, ValidatorAddress: me.Hex(), Nonce: hex.EncodeToString(nonce[:]), Timestamp: at.Unix()}
		if h.Signature, err = episode.SignPayload(key, episode.HelloPayload(version, me, nonce, h.Timestamp)); err != nil {
			return nil, err
		}
		return episode.Encode(h)
	}
	stale, err := sign(episode.Version, r.validator.PrivateKey(), time.Now().Add(-time.Hour))
	if err != nil {
		return fmt.Errorf("miner check: %w", err)
	}
	judge := func(cl Clause, start time.Time, fs []refusal, pass string) {
		for _, f := range fs {
			if ok, why := f.refused(); !ok {
				r.set(cl, Fail, start, "%s", why)
				return
			}
		}
		r.set(cl, Pass, start, "%s", pass)
	}

	start := time.Now()
	judge(Replay, start, []refusal{
		r.refuse(ctx, Replay, "hello reusing an accepted nonce", episode.ReasonReplay, r.hello),
		r.refuse(ctx, Replay, "hello 1 h old", episode.ReasonReplay, stale),
	}, "a hello reusing the accepted nonce and a fresh hello 1 h old were both closed without hello_ack")

	// Signed at the last moment: the timestamps must be fresh.
	start = time.Now()
	v2, err := sign(episode.Version+1, r.validator.PrivateKey(), time.Now())
	if err != nil {
		return fmt.Errorf("miner check: %w", err)
	}
	judge(Version, start, []refusal{r.refuse(ctx, Version, "hello of version 2", episode.ReasonVersionMismatch, v2)},
		"a signed hello of version 2 was closed without hello_ack")

	start = time.Now()
	forged, err := sign(episode.Version, forger, time.Now())
	if err != nil {
		return fmt.Errorf("miner check: %w", err)
	}
	judge(ForgedHello, start, []refusal{r.refuse(ctx, ForgedHello, "hello claiming this validator's address, signed by another key", episode.ReasonBadSignature, forged)},
		"a hello claiming this validator's address, signed by another key, was closed without hello_ack")

	// The two refusals §3 names that no other clause provokes; whether
	// they happen at all is judged with their close frames.
	start = time.Now()
	r.refuse(ctx, CloseCodes, "hello missing its fields", episode.ReasonMalformed, []byte(`{"type":"hello","version":1}`))
	r.refuse(ctx, CloseCodes, "episode_end as the first message", episode.ReasonUnexpected,
		[]byte(`{"type":"episode_end","episode_id":"0123456789abcdef0123456789abcdef","reason":"terminated"}`))
	r.verdict(CloseCodes).dur = time.Since(start)
	return nil
}

// checkNegotiation runs the negotiation clause on a connection of its
// own: a hello offering max_version 2 must be answered with version 2,
// signed over the version-2 payload. Only then do the episodes offer
// version 2 with the relay.
func (r *run) checkNegotiation(ctx context.Context) {
	start := time.Now()
	if r.opts.MaxVersion < episode.Version2 {
		r.set(Negotiation, Skip, start, "not checked: the check offers protocol version 1 only (--max-version 1)")
		return
	}
	ws, err := r.dial(ctx)
	if err != nil {
		r.set(Negotiation, Fail, start, "could not connect: %v", err)
		return
	}
	defer closeGently(ws)
	hello, nonce, err := episode.NewHelloUpTo(r.validator.PrivateKey(), time.Now(), episode.Version2)
	if err == nil {
		var frame []byte
		if frame, err = episode.Encode(hello); err == nil {
			a := r.exchange(ctx, ws, frame, r.opts.HandshakeTimeout)
			r.judgeNegotiation(start, a, nonce)
			return
		}
	}
	r.set(Negotiation, Fail, start, "internal: %v", err)
}

func (r *run) judgeNegotiation(start time.Time, a answer, nonce [episode.NonceBytes]byte) {
	if a.ack == nil {
		r.set(Negotiation, Fail, start, "a hello offering max_version 2 got no hello_ack: %s: %s (a miner that does not know max_version must ignore it)", a.reason, a.detail)
		return
	}
	if a.ack.Version == episode.Version {
		r.set(Negotiation, Fail, start, "a hello offering max_version 2 was answered with version 1: the miner's steps name no completion, so a validator that requires verification (relay.required, the default on finney and testnet) credits none of them")
		return
	}
	if _, err := episode.VerifyHelloAckUpTo(a.ack, r.validator.Address, nonce, time.Now(), episode.DefaultMaxClockSkew, episode.Version2); err != nil {
		r.set(Negotiation, Fail, start, "the version-%d hello_ack does not verify: %v", a.ack.Version, err)
		return
	}
	r.v2 = true
	r.set(Negotiation, Pass, start, "hello_ack of version 2 in %s, signed over the version-2 payload", short(a.elapsed))
}
