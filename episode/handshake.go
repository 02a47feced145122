package episode

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// NonceBytes is the length of a handshake nonce.
const NonceBytes = 32

// DefaultMaxClockSkew bounds how far a handshake timestamp may be from
// the receiver's clock.
const DefaultMaxClockSkew = 30 * time.Second

// HelloPayload is the canonical text the validator signs for hello:
//
//	arena/v1 hello
//	version:1
//	validator:0x<40 lowercase hex>
//	nonce:<64 lowercase hex>
//	timestamp:<unix seconds, decimal>
//
// Lines are joined by "\n" with no trailing newline. Addresses and nonce
// are lowercased so that any spelling on the wire signs the same bytes.
func HelloPayload(version int, validator common.Address, nonce [NonceBytes]byte, timestamp int64) []byte {
	return []byte("arena/v1 hello" +
		"\nversion:" + strconv.Itoa(version) +
		"\nvalidator:" + strings.ToLower(validator.Hex()) +
		"\nnonce:" + hex.EncodeToString(nonce[:]) +
		"\ntimestamp:" + strconv.FormatInt(timestamp, 10))
}

// HelloAckPayload is the canonical text the miner signs for hello_ack. It
// binds the validator's address and nonce, so an ack is good for exactly
// one handshake with one validator:
//
//	arena/v1 hello_ack
//	version:1
//	miner:0x<40 lowercase hex>
//	validator:0x<40 lowercase hex>
//	nonce:<64 lowercase hex>
//	timestamp:<unix seconds, decimal>
func HelloAckPayload(version int, miner, validator common.Address, nonce [NonceBytes]byte, timestamp int64) []byte {
	return []byte("arena/v1 hello_ack" +
		"\nversion:" + strconv.Itoa(version) +
		"\nminer:" + strings.ToLower(miner.Hex()) +
		"\nvalidator:" + strings.ToLower(validator.Hex()) +
		"\nnonce:" + hex.EncodeToString(nonce[:]) +
		"\ntimestamp:" + strconv.FormatInt(timestamp, 10))
}

// SignPayload signs payload as an EIP-191 personal message
// (accounts.TextHash) and returns the 65-byte r‖s‖v signature as 0x-hex,
// with v = 27 or 28 as wallets produce it.
func SignPayload(key *ecdsa.PrivateKey, payload []byte) (string, error) {
	sig, err := crypto.Sign(accounts.TextHash(payload), key)
	if err != nil {
		return "", fmt.Errorf("sign handshake: %w", err)
	}
	sig[64] += 27
	return "0x" + hex.EncodeToString(sig), nil
}

// RecoverSigner returns the address whose key signed payload (EIP-191).
func RecoverSigner(payload []byte, signature string) (common.Address, error) {
	sig, err := parseSignature(signature)
	if err != nil {
		return common.Address{}, err
	}
	pub, err := crypto.SigToPub(accounts.TextHash(payload), sig)
	if err != nil {
		return common.Address{}, fmt.Errorf("recover signer: %w", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// NewNonce draws a fresh random nonce.
func NewNonce() ([NonceBytes]byte, error) {
	var n [NonceBytes]byte
	if _, err := rand.Read(n[:]); err != nil {
		return n, fmt.Errorf("nonce: %w", err)
	}
	return n, nil
}

func parseAddress(s string) (common.Address, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return common.Address{}, errors.New("want a 0x-prefixed 20-byte hex address")
	}
	return common.HexToAddress(s), nil
}

func parseNonce(s string) ([NonceBytes]byte, error) {
	var n [NonceBytes]byte
	if len(s) != 2*NonceBytes {
		return n, fmt.Errorf("want %d hex characters", 2*NonceBytes)
	}
	if _, err := hex.Decode(n[:], []byte(s)); err != nil {
		return n, errors.New("not hex")
	}
	return n, nil
}

// parseSignature reads a 65-byte 0x-hex signature and normalises v to 0/1
// (accepting 27/28) for crypto.SigToPub.
func parseSignature(s string) ([]byte, error) {
	if !strings.HasPrefix(s, "0x") || len(s) != 2+2*crypto.SignatureLength {
		return nil, fmt.Errorf("want 0x and %d hex characters", 2*crypto.SignatureLength)
	}
	sig, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, errors.New("not hex")
	}
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	if sig[64] > 1 {
		return nil, errors.New("recovery id must be 0, 1, 27 or 28")
	}
	return sig, nil
}

// NewHello builds and signs a version-1 hello with a fresh nonce.
func NewHello(key *ecdsa.PrivateKey, now time.Time) (*Hello, [NonceBytes]byte, error) {
	return NewHelloUpTo(key, now, Version)
}

// NewHelloUpTo builds a hello that offers protocol versions up to
// maxVersion (max_version, omitted for 1). The signed payload is the
// version-1 payload either way.
func NewHelloUpTo(key *ecdsa.PrivateKey, now time.Time, maxVersion int) (*Hello, [NonceBytes]byte, error) {
	nonce, err := NewNonce()
	if err != nil {
		return nil, nonce, err
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	ts := now.Unix()
	sig, err := SignPayload(key, HelloPayload(Version, addr, nonce, ts))
	if err != nil {
		return nil, nonce, err
	}
	h := &Hello{Type: TypeHello, Version: Version, ValidatorAddress: addr.Hex(), Nonce: hex.EncodeToString(nonce[:]), Timestamp: ts, Signature: sig}
	if maxVersion > Version {
		h.MaxVersion = maxVersion
	}
	return h, nonce, nil
}

// NewHelloAck builds and signs the version-1 answer to hello.
func NewHelloAck(key *ecdsa.PrivateKey, hello *Hello, now time.Time) (*HelloAck, error) {
	return NewHelloAckVersion(key, hello, now, Version)
}

// Negotiate is the version a miner speaking up to mine answers hello with:
// the highest both sides speak.
func Negotiate(hello *Hello, mine int) int {
	offered := max(hello.Version, hello.MaxVersion)
	return max(min(offered, mine, MaxVersion), Version)
}

// NewHelloAckVersion builds and signs the answer to hello for the chosen
// version (see Negotiate).
func NewHelloAckVersion(key *ecdsa.PrivateKey, hello *Hello, now time.Time, version int) (*HelloAck, error) {
	validator, err := parseAddress(hello.ValidatorAddress)
	if err != nil {
		return nil, fmt.Errorf("hello validator_address: %w", err)
	}
	nonce, err := parseNonce(hello.Nonce)
	if err != nil {
		return nil, fmt.Errorf("hello nonce: %w", err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	ts := now.Unix()
	sig, err := SignPayload(key, HelloAckPayload(version, addr, validator, nonce, ts))
	if err != nil {
		return nil, err
	}
	return &HelloAck{Type: TypeHelloAck, Version: version, MinerAddress: addr.Hex(), Nonce: hex.EncodeToString(nonce[:]), Timestamp: ts, Signature: sig}, nil
}

// HandshakeError is a failed handshake with the end reason it causes.
type HandshakeError struct {
	Reason EndReason
	Err    error
}

func (e *HandshakeError) Error() string { return fmt.Sprintf("handshake: %s: %v", e.Reason, e.Err) }
func (e *HandshakeError) Unwrap() error { return e.Err }

func handshakeErr(r EndReason, format string, args ...any) *HandshakeError {
	return &HandshakeError{Reason: r, Err: fmt.Errorf(format, args...)}
}

func checkSkew(ts int64, now time.Time, skew time.Duration) error {
	d := now.Sub(time.Unix(ts, 0))
	if d > skew || d < -skew {
		return fmt.Errorf("timestamp %d is %s from now, beyond the %s skew bound", ts, d.Round(time.Second), skew)
	}
	return nil
}

// VerifyHelloAck checks a miner's answer to the hello carrying nonce:
// version, the echoed nonce (a different one means a replayed ack), the
// timestamp skew, the signature over the canonical payload, and that the
// recovered address is the claimed one. It returns the miner's address;
// the caller then checks that address's mirror against the metagraph.
func VerifyHelloAck(ack *HelloAck, validator common.Address, nonce [NonceBytes]byte, now time.Time, skew time.Duration) (common.Address, error) {
	return VerifyHelloAckUpTo(ack, validator, nonce, now, skew, Version)
}

// VerifyHelloAckUpTo is VerifyHelloAck for a hello that offered versions
// up to maxVersion: the ack may choose any of them.
func VerifyHelloAckUpTo(ack *HelloAck, validator common.Address, nonce [NonceBytes]byte, now time.Time, skew time.Duration, maxVersion int) (common.Address, error) {
	if ack.Version < Version || ack.Version > maxVersion {
		want := fmt.Sprintf("%d", Version)
		if maxVersion > Version {
			want = fmt.Sprintf("%d..%d", Version, maxVersion)
		}
		return common.Address{}, handshakeErr(ReasonVersionMismatch, "miner speaks version %d, want %s", ack.Version, want)
	}
	got, err := parseNonce(ack.Nonce)
	if err != nil {
		return common.Address{}, handshakeErr(ReasonMalformed, "nonce: %v", err)
	}
	if got != nonce {
		return common.Address{}, handshakeErr(ReasonReplay, "hello_ack signs nonce %s…, not this handshake's", ack.Nonce[:8])
	}
	if err := checkSkew(ack.Timestamp, now, skew); err != nil {
		return common.Address{}, handshakeErr(ReasonReplay, "stale hello_ack: %v", err)
	}
	claimed, err := parseAddress(ack.MinerAddress)
	if err != nil {
		return common.Address{}, handshakeErr(ReasonMalformed, "miner_address: %v", err)
	}
	signer, err := RecoverSigner(HelloAckPayload(ack.Version, claimed, validator, nonce, ack.Timestamp), ack.Signature)
	if err != nil {
		return common.Address{}, handshakeErr(ReasonBadSignature, "%v", err)
	}
	if signer != claimed {
		return common.Address{}, handshakeErr(ReasonBadSignature, "signature is by %s, not the claimed %s", signer, claimed)
	}
	return claimed, nil
}

// NonceCache remembers handshake nonces so that each is accepted once.
// Entries are kept for twice the skew bound: a hello older than that is
// refused for its timestamp anyway, so forgetting it is safe. Size bounds
// memory if an attacker with a valid key floods handshakes.
type NonceCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	maxSize int
	seen    map[string]time.Time
}

// NewNonceCache makes a cache for the given skew bound.
func NewNonceCache(skew time.Duration, maxSize int) *NonceCache {
	if maxSize < 1 {
		maxSize = 1 << 16
	}
	return &NonceCache{ttl: 2 * skew, maxSize: maxSize, seen: make(map[string]time.Time)}
}

// Use records key (signer address and nonce) and reports whether it was
// fresh. When full of unexpired entries it refuses new ones rather than
// forget one that could then be replayed.
func (c *NonceCache) Use(key string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.seen[key]; dup {
		return false
	}
	if len(c.seen) >= c.maxSize {
		for k, t := range c.seen {
			if now.Sub(t) > c.ttl {
				delete(c.seen, k)
			}
		}
		if len(c.seen) >= c.maxSize {
			return false
		}
	}
	c.seen[key] = now
	return true
}

// VerifyHello checks a validator's hello on the miner side: version,
// timestamp skew, signature, and that its nonce was never used before.
func VerifyHello(h *Hello, now time.Time, skew time.Duration, nonces *NonceCache) (common.Address, error) {
	if h.Version != Version {
		return common.Address{}, handshakeErr(ReasonVersionMismatch, "validator speaks version %d, want %d", h.Version, Version)
	}
	addr, err := parseAddress(h.ValidatorAddress)
	if err != nil {
		return common.Address{}, handshakeErr(ReasonMalformed, "validator_address: %v", err)
	}
	nonce, err := parseNonce(h.Nonce)
	if err != nil {
		return common.Address{}, handshakeErr(ReasonMalformed, "nonce: %v", err)
	}
	if err := checkSkew(h.Timestamp, now, skew); err != nil {
		return common.Address{}, handshakeErr(ReasonReplay, "stale hello: %v", err)
	}
	signer, err := RecoverSigner(HelloPayload(h.Version, addr, nonce, h.Timestamp), h.Signature)
	if err != nil {
		return common.Address{}, handshakeErr(ReasonBadSignature, "%v", err)
	}
	if signer != addr {
		return common.Address{}, handshakeErr(ReasonBadSignature, "signature is by %s, not the claimed %s", signer, addr)
	}
	// Only a verified hello consumes cache space.
	if !nonces.Use(strings.ToLower(addr.Hex())+"/"+strings.ToLower(h.Nonce), now) {
		return common.Address{}, handshakeErr(ReasonReplay, "nonce %s… was already used", h.Nonce[:8])
	}
	return addr, nil
}

// ParseMinerURL checks a miner URL as validators dial it,
// ws://HOST:PORT/arena/v1, and returns its HOST:PORT (the axon form the
// runner takes). Its errors start with the quoted URL.
func ParseMinerURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "ws" {
		return "", fmt.Errorf("%q: want ws://HOST:PORT%s (validators dial plain websockets)", raw, Path)
	}
	if u.Port() == "" || u.Hostname() == "" {
		return "", fmt.Errorf("%q: want ws://HOST:PORT%s: host and port are required", raw, Path)
	}
	if p := u.EscapedPath(); p != Path {
		return "", fmt.Errorf("%q: wrong path %q: validators always dial %s (docs/protocol.md)", raw, p, Path)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%q: want ws://HOST:PORT%s with nothing after the path", raw, Path)
	}
	return u.Host, nil
}
