package miner

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/shop"
	"arena/shop/gen"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		q        string
		words    string
		lo, hi   float64
		services string
	}{
		{"I want wireless earbuds under 500 with free shipping", "wireless earbuds", 0, 500, "freeShipping"},
		{"Find a leather wallet between 100 and 250, cash on delivery please", "leather wallet", 100, 250, "COD"},
		{"running shoes above 80 from an official store", "running shoes", 80, 0, "official"},
		{"barcode scanner code reader", "barcode scanner code reader", 0, 0, ""},
		{"gaming mouse 20-60 flash sale COD", "gaming mouse", 20, 60, "COD,flashsale"},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			in := ParseQuery(tt.q)
			if got := strings.Join(in.Words, " "); got != tt.words {
				t.Errorf("words %q, want %q", got, tt.words)
			}
			if in.PriceLo != tt.lo || in.PriceHi != tt.hi {
				t.Errorf("price %g-%g, want %g-%g", in.PriceLo, in.PriceHi, tt.lo, tt.hi)
			}
			if got := strings.Join(in.Services, ","); got != tt.services {
				t.Errorf("services %q, want %q", got, tt.services)
			}
		})
	}
}

// TestHeuristicSkill plays the heuristic agent at two skills through the
// real protocol on 300 simple generated problems and compares target-hit
// rates. The suite's generator and the scoring metrics are not in the
// tree yet, so each problem here is a target's title and a price bound it
// satisfies, and success is recommending exactly the target.
func TestHeuristicSkill(t *testing.T) {
	g, err := gen.New(gen.Options{Products: 5000, Seed: 11}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var problems []episode.Problem
	targets := map[string]string{}
	for i := 0; i < len(ps) && len(problems) < 300; i += len(ps) / 300 {
		p := ps[i]
		id := fmt.Sprintf("p%d", i)
		problems = append(problems, episode.Problem{ID: id, Query: fmt.Sprintf("I want %s under %d", p.Title, int(p.Price*1.1)+1)})
		targets[id] = p.ProductID
	}
	vkey, _ := crypto.GenerateKey()
	r, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(vkey), Tools: tools,
		Limits: episode.Limits{StepTimeout: 5 * time.Second, EpisodeTimeout: 20 * time.Second, MaxConcurrentEpisodes: 8}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rate := map[float64]float64{}
	for _, skill := range []float64{1, 0.2} {
		t.Run(fmt.Sprintf("skill %g", skill), func(t *testing.T) {
			agent, err := NewHeuristic(HeuristicOptions{Skill: skill})
			if err != nil {
				t.Fatal(err)
			}
			mkey, _ := crypto.GenerateKey()
			signer := chain.NewSigner(mkey)
			addr := serve(t, signer, agent)
			trs := r.Run(context.Background(), episode.Miner{UID: 1, Hotkey: chain.Mirror(signer.Address), Endpoint: addr}, problems)
			hits, sameTitle := 0, 0
			for _, tr := range trs {
				if tr.EndReason != episode.ReasonTerminated {
					t.Errorf("%s: %s (%s)", tr.ProblemID, tr.EndReason, tr.EndDetail)
				}
				if len(tr.Recommended) != 1 {
					continue
				}
				if tr.Recommended[0] == targets[tr.ProblemID] {
					hits++
				}
				// A listing of the same item by another shop with the
				// identical title also satisfies the stated constraints.
				got, _ := cat.Product(tr.Recommended[0])
				want, _ := cat.Product(targets[tr.ProblemID])
				if got != nil && want != nil && got.Title == want.Title && got.Price <= want.Price*1.1+1 {
					sameTitle++
				}
			}
			rate[skill] = float64(hits) / float64(len(trs))
			t.Logf("skill %g: target hit %d/%d; same title within the price bound %d/%d", skill, hits, len(trs), sameTitle, len(trs))
		})
	}
	if rate[1] < 0.8 {
		t.Errorf("skill 1 hit rate %.2f, want at least 0.80", rate[1])
	}
	if rate[1] <= rate[0.2] {
		t.Errorf("skill 1 hit rate %.2f is not above skill 0.2's %.2f", rate[1], rate[0.2])
	}
}

func serve(t *testing.T, signer *chain.Signer, agent episode.Agent) string {
	t.Helper()
	srv, err := episode.NewServer(episode.ServerOptions{Signer: signer, Agent: agent}, zerolog.Nop(), nil)
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
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}
