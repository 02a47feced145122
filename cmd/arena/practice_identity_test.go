package main

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
)

// TestExpectHotkey: `arena practice` and `arena miner check` with
// --expect-hotkey pass when the miner signs with that key (as SS58 or as
// the 0x address) and otherwise exit non-zero with one line naming both
// keys.
func TestExpectHotkey(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	signer := chain.NewSigner(key)
	url := "ws://" + episodetest.Serve(t, &episodetest.Env{Signer: signer}, episodetest.Play(episodetest.Honest)) + episode.Path
	other, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	own, wrong := chain.Mirror(signer.Address).SS58(), chain.Mirror(crypto.PubkeyToAddress(other.PublicKey)).SS58()
	commands := map[string][]string{
		"practice": {"practice", "--agent", url, "--problems", "5"},
		"check":    {"miner", "check", url, "--max-version", "1"},
	}
	for name, args := range commands {
		for _, tt := range []struct {
			expect string
			ok     bool
		}{
			{own, true},
			{signer.Address.Hex(), true},
			{wrong, false},
		} {
			t.Run(name+" "+tt.expect, func(t *testing.T) {
				code, _, errOut := runCLI(t, practiceEnv, append(args, "--expect-hotkey", tt.expect)...)
				lines := strings.Split(strings.TrimSpace(errOut), "\n")
				last := lines[len(lines)-1]
				switch {
				case tt.ok && code != 0:
					t.Errorf("exit %d with the miner's own key: %s", code, errOut)
				case !tt.ok && (code == 0 || !strings.HasPrefix(last, "arena: ") || !strings.Contains(last, own) || !strings.Contains(last, wrong)):
					t.Errorf("exit %d, last line %q: want non-zero and one arena: line naming %s and %s", code, last, own, wrong)
				}
			})
		}
	}
	code, _, errOut := runCLI(t, practiceEnv, "practice", "--agent", url, "--expect-hotkey", "5notakey")
	if code == 0 || !strings.Contains(errOut, "--expect-hotkey: want the SS58 hotkey") {
		t.Errorf("a bad --expect-hotkey: exit %d, %s", code, errOut)
	}
}

// TestWrongPathServed: an endpoint that answers HTTP at /arena/v1 without
// upgrading (a miner serving another path) is told the path to serve.
func TestWrongPathServed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	url := "ws://" + ln.Addr().String() + episode.Path
	for _, args := range [][]string{{"practice", "--agent", url, "--problems", "2"}, {"miner", "check", url}} {
		code, _, errOut := runCLI(t, practiceEnv, args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		last := lines[len(lines)-1]
		if code == 0 || !strings.HasPrefix(last, "arena: ") || !strings.Contains(last, "404") || !strings.Contains(last, "serve the protocol at path /arena/v1") {
			t.Errorf("%s: exit %d, last line %q: want the path to serve", args[0], code, last)
		}
	}
}
