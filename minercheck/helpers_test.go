package minercheck

import (
	"context"
	"errors"
	"net"
	"slices"
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
	checkerOnce           sync.Once
	checker, relayChecker *Checker
	checkerErr            error
)

// sharedChecker offers protocol version 1 only, as a validator without a
// relay does: the hostile miners of episodetest speak version 1, and
// their verdicts are about the version-1 clauses. It is built once: its
// catalog is the same for every test.
func sharedChecker(t *testing.T) *Checker {
	t.Helper()
	buildCheckers(t)
	return checker
}

// sharedRelayChecker offers version 2 with the relay, as the command does.
func sharedRelayChecker(t *testing.T) *Checker {
	t.Helper()
	buildCheckers(t)
	return relayChecker
}

func buildCheckers(t *testing.T) {
	t.Helper()
	checkerOnce.Do(func() {
		v1 := testOptions()
		v1.MaxVersion = episode.Version
		// Every relayed step takes a round through the validator's
		// relay, which the race detector slows down tenfold.
		v2 := testOptions()
		v2.StepTimeout = 3 * time.Second
		if checker, checkerErr = New(v1, zerolog.Nop()); checkerErr == nil {
			relayChecker, checkerErr = New(v2, zerolog.Nop())
		}
	})
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
}

// v1Clauses are the clauses of protocol version 1: every clause before
// negotiation.
func v1Clauses() []Clause {
	all := Clauses()
	return all[:slices.Index(all, Negotiation)]
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
	return startAgent(t, opts, miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1})
}

// startAgent serves the reference miner with the agent kind.
func startAgent(t *testing.T, opts episode.ServerOptions, kind miner.AgentOptions) string {
	t.Helper()
	agent, err := miner.NewAgent(kind, zerolog.Nop())
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
