package validator

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
)

// TestStandingMetricsMatchStatus: on a running validator, /metrics'
// arena_validator_qualifiers and arena_validator_leader_uid say what
// /api/v1/status lists — once miners have qualified but before any race,
// after a race, and after a restart on the same store.
func TestStandingMetricsMatchStatus(t *testing.T) {
	h := newHarness(t, harnessOptions{miners: 1, edit: func(o *Options) { o.RaceEveryBlocks = 10 }})
	h.start()
	base := h.serveOperator(h.v, h.reg)

	for n := uint64(1); n <= 3; n++ {
		h.feed(n)
	}
	h.until("uid 1 qualified", func() bool { return h.miner(1).Qualifying != nil })
	if st := checkStanding(t, base, "qualified, no race yet"); len(st.Qualifiers) != 1 || st.Leader != nil {
		t.Fatalf("status before the first race: qualifiers %v, leader %v; want uid 1 and no leader", st.Qualifiers, st.Leader)
	}

	// Racing alone, uid 1 takes the crown; then two challengers qualify
	// between races.
	for n := uint64(4); n <= 10; n++ {
		h.feed(n)
	}
	h.until("the first race done", func() bool { return len(h.eventsOf(EventRaceDone)) == 1 })
	if st := checkStanding(t, base, "after the first race"); st.Leader == nil || st.Leader.UID != 1 {
		t.Fatalf("leader after the first race: %+v, want uid 1", st.Leader)
	}
	for uid := uint16(2); uid <= 3; uid++ {
		signer := newTestSigner(t)
		h.chain.addNeuron(chain.Neuron{UID: uid, Hotkey: signer.Hotkey(), Axon: h.serveMiner(signer, nil)})
	}
	for n := uint64(11); n <= 13; n++ {
		h.feed(n)
	}
	h.until("uids 2 and 3 qualified", func() bool { return h.miner(2).Qualifying != nil && h.miner(3).Qualifying != nil })
	if st := checkStanding(t, base, "challengers qualified between races"); len(st.Qualifiers) != 2 {
		t.Fatalf("status lists qualifiers %v, want uids 2 and 3", st.Qualifiers)
	}

	// A restart: a new process reads the same store before any head.
	reg := prometheus.NewRegistry()
	restarted, err := New(h.v.opts, zerolog.Nop(), reg)
	if err != nil {
		t.Fatal(err)
	}
	checkStanding(t, h.serveOperator(restarted, reg), "after a restart")
}

// operatorURLs are the base URLs of a validator's two listeners.
type operatorURLs struct{ metrics, api string }

// serveOperator serves v's metrics and API listeners until the test ends
// and returns their base URLs.
func (h *harness) serveOperator(v *Validator, reg *prometheus.Registry) operatorURLs {
	h.t.Helper()
	srv, err := NewServer(ServerOptions{Listen: "127.0.0.1:0", Gatherer: reg, Validator: v}, zerolog.Nop())
	if err != nil {
		h.t.Fatal(err)
	}
	api, err := NewAPIServer(APIServerOptions{Listen: "127.0.0.1:0", Validator: v}, zerolog.Nop(), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 2)
	go func() { done <- srv.Run(ctx) }()
	go func() { done <- api.Run(ctx) }()
	h.t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				h.t.Errorf("operator server: %v", err)
			}
		}
	})
	return operatorURLs{metrics: "http://" + srv.Addr(), api: "http://" + api.Addr()}
}

// checkStanding compares the standing gauges on /metrics with
// /api/v1/status and returns the status.
func checkStanding(t *testing.T, base operatorURLs, when string) Status {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	var st Status
	resp, err := client.Get(base.api + "/api/v1/status")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s: status: %v", when, err)
	}
	resp, err = client.Get(base.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	gauges := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && (name == "arena_validator_qualifiers" || name == "arena_validator_leader_uid") {
			if gauges[name], err = strconv.ParseFloat(value, 64); err != nil {
				t.Fatalf("%s: %q: %v", when, sc.Text(), err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	wantLeader := -1.0
	if st.Leader != nil {
		wantLeader = float64(st.Leader.UID)
	}
	q, qok := gauges["arena_validator_qualifiers"]
	l, lok := gauges["arena_validator_leader_uid"]
	if !qok || !lok || q != float64(len(st.Qualifiers)) || l != wantLeader {
		t.Errorf("%s: /metrics qualifiers %v (present %v), leader %v (present %v); status lists %d qualifiers %v and leader %v",
			when, q, qok, l, lok, len(st.Qualifiers), st.Qualifiers, wantLeader)
	}
	return st
}
