package minercheck

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/miner"
)

// testOptions keep hostile cases quick while leaving the reference miner,
// which answers in milliseconds, a wide margin on a loaded machine.
func testOptions() Options {
	return Options{
		DialTimeout:      3 * time.Second,
		HandshakeTimeout: time.Second,
		RefusalTimeout:   time.Second,
		StepTimeout:      750 * time.Millisecond,
		ExtraStepWait:    300 * time.Millisecond,
		Products:         500,
	}
}

var (
	checkerOnce sync.Once
	checker     *Checker
	checkerErr  error
)

// sharedChecker is built once: its catalog is the same for every test.
func sharedChecker(t *testing.T) *Checker {
	t.Helper()
	checkerOnce.Do(func() { checker, checkerErr = New(testOptions(), zerolog.Nop()) })
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
	return checker
}

func newSigner(t testing.TB) *chain.Signer {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return chain.NewSigner(key)
}

func wsURL(hostport string) string { return "ws://" + hostport + episode.Path }

// startReference serves the reference miner (episode.Server with the
// heuristic agent at full skill) on a loopback port until the test ends;
// opts may narrow it.
func startReference(t *testing.T, opts episode.ServerOptions) string {
	t.Helper()
	agent, err := miner.NewAgent(miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	opts.Signer, opts.Agent = newSigner(t), agent
	srv, err := episode.NewServer(opts, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("reference miner: %v", err)
		}
	})
	return wsURL(ln.Addr().String())
}

// check runs the shared checker and fails the test if the check could
// not run at all.
func check(t *testing.T, c *Checker, url string) *Report {
	t.Helper()
	rep, err := c.Run(context.Background(), url)
	if err != nil {
		t.Fatalf("check %s: %v", url, err)
	}
	return rep
}
