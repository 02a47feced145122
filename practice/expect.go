package practice

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gorilla/websocket"

	"arena/chain"
	"arena/episode"
)

// Expect is the hotkey a miner is meant to sign with (--expect-hotkey of
// `arena practice` and `arena miner check`): a validator holds the miner
// to the hotkey of the uid it dials, so a miner started with another key
// loses every episode with identity_mismatch.
type Expect struct {
	hotkey chain.AccountID
}

// ParseExpect reads the expected key: the SS58 hotkey, or the EVM address
// whose mirror it is.
func ParseExpect(s string) (Expect, error) {
	s = strings.TrimSpace(s)
	if common.IsHexAddress(s) {
		return Expect{hotkey: chain.Mirror(common.HexToAddress(s))}, nil
	}
	a, err := chain.ParseSS58(s)
	if err != nil {
		return Expect{}, fmt.Errorf("--expect-hotkey: want the SS58 hotkey (5…) or the EVM address (0x…) that `arena keys show` prints: %w", err)
	}
	return Expect{hotkey: a}, nil
}

// Check is nil when the miner signing with addr is the expected one, else
// one line naming both keys and the remedy.
func (e Expect) Check(addr common.Address) error {
	if got := chain.Mirror(addr); got != e.hotkey {
		return fmt.Errorf("the miner signs with %s (hotkey %s), not the expected hotkey %s: a validator refuses it (identity_mismatch); start it with the key whose mirror you registered (arena keys show)",
			addr.Hex(), got.SS58(), e.hotkey.SS58())
	}
	return nil
}

// Hotkey is the expected hotkey (SS58).
func (e Expect) Hotkey() string { return e.hotkey.SS58() }

// DialHint explains a failed dial of a miner at hostport that answered
// HTTP but did not upgrade: the usual cause is a miner serving another
// path than episode.Path. It returns nil when the endpoint upgrades or
// does not answer HTTP at all (the dial error then says enough).
func DialHint(ctx context.Context, hostport string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ws, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws://"+hostport+episode.Path, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err == nil {
		ws.Close()
		return nil
	}
	if !errors.Is(err, websocket.ErrBadHandshake) || resp == nil {
		return nil
	}
	return WrongPath(hostport, resp.StatusCode)
}

// WrongPath is the one line for an endpoint that answered status instead
// of upgrading to a websocket.
func WrongPath(hostport string, status int) error {
	return fmt.Errorf("ws://%s%s answered HTTP %d %s instead of upgrading to a websocket: serve the protocol at path %s on that port (docs/protocol.md §1)",
		hostport, episode.Path, status, http.StatusText(status), episode.Path)
}
