// Package datasettest builds validator data dirs for dataset export tests
// and benchmarks: a real Badger store with a suite ledger (problems of all
// three types in their own leak clusters, one compromised) and stored
// episodes with verdicts, several racers per problem.
package datasettest

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring/judge"
	"arena/scoring/verify"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// Options size a fixture.
type Options struct {
	// ProblemsPerType is the number of problems of each type (default 4).
	ProblemsPerType int
	// Racers per problem (default 4, at least 4 for every kind of racer).
	Racers int
	// Steps is the number of find/view step pairs before the answer
	// (default 1; a trajectory has 2*Steps+2 steps).
	Steps int
	// Anomalies adds a duplicate trajectory, an unjudged episode, an
	// aborted one and one calling an unknown tool to every problem.
	Anomalies bool
	// ValidatorAddress is recorded in every trajectory.
	ValidatorAddress string
	// Verified gives the best racer's episodes a relay completion for
	// every step and a verification that passes (protocol version 2), and
	// the second racer's completions with its first step dictated and its
	// last unverified.
	Verified bool
	// Bulk writes the episodes fast (marshalled on all cores, large
	// transactions, no per-episode existence checks) for large fixtures.
	// The stored keys and values are the same.
	Bulk bool
}

// Episode is what the fixture knows of one stored episode.
type Episode struct {
	ID        string
	ProblemID string
	Cluster   string
	Type      suite.Type
	Final     float64
	Judge     float64
	Success   bool
	Agentic   bool
	Block     uint64
	Steps     int
	Judged    bool
	// Kind of racer: best, good, ungrounded, violation, duplicate,
	// unjudged, aborted, unknown_tool.
	Role string
	// StepVerified says, per step, that the step verified against its
	// relay completion and was not dictated (Options.Verified).
	StepVerified []bool
}

// Verified reports whether every step of the episode verified.
func (e *Episode) Verified() bool {
	for _, ok := range e.StepVerified {
		if !ok {
			return false
		}
	}
	return len(e.StepVerified) > 0
}

// Fixture is a built data dir.
type Fixture struct {
	Dir         string
	Problems    []suite.Problem
	Compromised string // the compromised cluster
	Episodes    map[string]*Episode
}

// Racer roles, in racer order; racers beyond these repeat "good" with
// lower finals.
var roles = []string{"best", "good", "ungrounded", "violation"}

// Build creates the data dir in dir and closes the store.
func Build(tb testing.TB, dir string, o Options) *Fixture {
	tb.Helper()
	if o.ProblemsPerType == 0 {
		o.ProblemsPerType = 4
	}
	if o.Racers < 4 {
		o.Racers = 4
	}
	if o.Steps == 0 {
		o.Steps = 1
	}
	if o.ValidatorAddress == "" {
		o.ValidatorAddress = "0x00000000000000000000000000000000000000a1"
	}
	ctx := context.Background()
	st, err := store.Open(store.Options{Dir: dir}, zerolog.Nop(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			tb.Fatal(err)
		}
	}()
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	var problems []suite.Problem
	n := 0
	for _, typ := range suite.Types() {
		for i := 0; i < o.ProblemsPerType; i++ {
			n++
			problems = append(problems, problem(typ, n))
		}
	}
	if _, err := ledger.Add(ctx, problems, suite.Public); err != nil {
		tb.Fatal(err)
	}
	stored, err := ledger.AllProblems(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if len(stored) != len(problems) {
		tb.Fatalf("ledger kept %d of %d problems", len(stored), len(problems))
	}
	fx := &Fixture{Dir: dir, Problems: stored, Episodes: map[string]*Episode{}}
	fx.Compromised = stored[0].Cluster
	if err := ledger.MarkCompromised(fx.Compromised, "fixture leak"); err != nil {
		tb.Fatal(err)
	}
	rec := records.New()
	var all [][]pair
	if o.Bulk {
		all = make([][]pair, len(stored))
	}
	var batch []pair
	flush := func() {
		if err := st.Update(func(txn *badger.Txn) error {
			for i := range batch {
				if err := rec.PutEpisode(txn, &batch[i].e); err != nil {
					return err
				}
				if batch[i].v != nil {
					if err := rec.PutVerdict(txn, batch[i].v); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	block := uint64(100)
	for pi := range stored {
		eps := problemEpisodes(pi, &stored[pi], o, block)
		block += uint64(len(eps))
		for i := range eps {
			fx.Episodes[eps[i].fe.ID] = eps[i].fe
		}
		if o.Bulk {
			all[pi] = eps
			continue
		}
		for _, ep := range eps {
			batch = append(batch, ep)
			if len(batch) >= 50 {
				flush()
			}
		}
	}
	if o.Bulk {
		if err := bulkWrite(st, rec, all); err != nil {
			tb.Fatal(err)
		}
		return fx
	}
	flush()
	return fx
}

// pair is one episode to store, with its verdict (nil: unjudged).
type pair struct {
	e  records.Episode
	v  *records.Verdict
	fe *Episode
}

// problemEpisodes makes a problem's episodes (racers, then anomalies),
// with blocks after block.
func problemEpisodes(pi int, p *suite.Problem, o Options, block uint64) []pair {
	var out []pair
	var best episode.Trajectory
	add := func(role string, racer int, tr episode.Trajectory, v *records.Verdict) {
		block++
		tr.EpisodeID = fmt.Sprintf("ep-%04d-%02d-%s", pi, racer, role)
		tr.ProblemID, tr.Query, tr.MinerUID, tr.ValidatorAddress = p.ID, p.Query, uint16(racer+1), o.ValidatorAddress
		e := records.Episode{Trajectory: tr, Kind: records.Racing, RaceID: uint64(pi/3 + 1), Hotkey: fmt.Sprintf("5Hotkey%02d", racer),
			ProblemType: p.Type, Cluster: p.Cluster, Block: block}
		fe := &Episode{ID: tr.EpisodeID, ProblemID: p.ID, Cluster: p.Cluster, Type: p.Type, Block: block, Steps: len(tr.Steps), Role: role}
		if v != nil && v.Judge.Verification != nil {
			fe.StepVerified = make([]bool, len(tr.Steps))
			for i := range fe.StepVerified {
				fe.StepVerified[i] = true
			}
			for _, is := range append(slices.Clone(v.Judge.Verification.Unverified), v.Judge.Verification.Dictated...) {
				fe.StepVerified[is.Step] = false
			}
		}
		if v != nil {
			v.EpisodeID = tr.EpisodeID
			v.Metrics.Type = p.Type
			v.Block = block
			fe.Judged, fe.Final, fe.Judge, fe.Success, fe.Agentic = true, v.Final, v.Judge.Score, v.Metrics.Success, v.Judge.Gates.ReferredToResults && v.Judge.Gates.CitedDatum
		}
		out = append(out, pair{e, v, fe})
	}
	for r := 0; r < o.Racers; r++ {
		role := "good"
		if r < len(roles) {
			role = roles[r]
		}
		tr := trajectory(p, o.Steps, role, r)
		v := verdict(role, r, len(tr.Steps))
		if o.Verified && r < 2 {
			relayed(&tr, fmt.Sprintf("%d-%d", pi, r))
			v.Judge.Verification = &verify.Report{Steps: len(tr.Steps), Verified: len(tr.Steps)}
			if r == 1 {
				last := len(tr.Steps) - 1
				v.Judge.Verification.Verified--
				v.Judge.Verification.Unverified = []verify.Issue{{Step: last, Reason: "its tool calls differ from its completion's"}}
				v.Judge.Verification.Dictated = []verify.Issue{{Step: 0, Reason: "an argument is in the prompt outside the query and the observations"}}
				v.Judge.Findings = append(v.Judge.Findings,
					judge.Finding{Name: judge.FindingUnverified, Detail: "fixture", Steps: []int{last}},
					judge.Finding{Name: judge.FindingDictated, Detail: "fixture", Steps: []int{0}})
			}
		}
		if role == "best" {
			best = tr
		}
		add(role, r, tr, v)
	}
	if o.Anomalies {
		dup := verdict("best", 0, len(best.Steps))
		if o.Verified {
			dup.Judge.Verification = &verify.Report{Steps: len(best.Steps), Verified: len(best.Steps)}
		}
		add("duplicate", o.Racers, best, dup)
		add("unjudged", o.Racers+1, trajectory(p, o.Steps, "good", 1), nil)
		ab := trajectory(p, o.Steps, "good", 1)
		ab.EndReason = episode.ReasonAborted
		add("aborted", o.Racers+2, ab, verdict("good", 1, len(ab.Steps)))
		un := trajectory(p, o.Steps, "good", 1)
		un.Steps[0].ToolCalls[0].Name = "search_web"
		add("unknown_tool", o.Racers+3, un, verdict("good", 1, len(un.Steps)))
	}
	return out
}

// bulkWrite stores every problem's episodes with the keys and values
// PutEpisode and PutVerdict write (records.EpisodeWrites), but marshals
// them on all cores and commits large transactions without PutEpisode's
// existence checks (the ids are distinct by construction).
func bulkWrite(st *store.Store, rec *records.Records, all [][]pair) error {
	marshal := func(eps []pair) ([]records.KV, error) {
		var out []records.KV
		for i := range eps {
			writes, err := rec.EpisodeWrites(&eps[i].e, eps[i].v)
			if err != nil {
				return nil, err
			}
			out = append(out, writes...)
		}
		return out, nil
	}
	// Workers marshal problems in order into ready, which the writer
	// drains in order (a bounded window).
	type result struct {
		kvs  []records.KV
		err  error
		done chan struct{}
	}
	order := make(chan *result, 256)
	go func() {
		defer close(order)
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i := range all {
			r := &result{done: make(chan struct{})}
			order <- r
			sem <- struct{}{}
			go func(eps []pair) {
				r.kvs, r.err = marshal(eps)
				<-sem
				close(r.done)
			}(all[i])
			all[i] = nil
		}
	}()
	var pending []records.KV
	size := 0
	commit := func() error {
		err := st.Update(func(txn *badger.Txn) error {
			for _, x := range pending {
				if err := txn.Set(x.Key, x.Value); err != nil {
					return err
				}
			}
			return nil
		})
		pending, size = pending[:0], 0
		return err
	}
	var firstErr error
	for r := range order {
		<-r.done
		if firstErr != nil {
			continue
		}
		if r.err != nil {
			firstErr = r.err
			continue
		}
		for _, x := range r.kvs {
			pending = append(pending, x)
			size += len(x.Key) + len(x.Value) + 64
		}
		if size >= 4<<20 {
			firstErr = commit()
		}
	}
	if firstErr != nil {
		return firstErr
	}
	return commit()
}

var words = []string{"amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kelp", "lagoon", "maple", "nectar", "onyx", "prairie", "quartz", "russet", "sierra", "tundra"}

// problem makes a valid problem whose query and target share nothing with
// the others, so each is its own leak cluster.
func problem(typ suite.Type, n int) suite.Problem {
	w := func(k int) string { return fmt.Sprintf("%s%d", words[(n*7+k)%len(words)], n) }
	p := suite.Problem{
		Type:  typ,
		Query: fmt.Sprintf("%s %s %s %s %s %s", w(0), w(1), w(2), w(3), w(4), w(5)),
	}
	lo, hi := 10.0, float64(100+n)
	item := suite.Item{ProductID: fmt.Sprintf("prod%05d", n), Title: []string{w(0) + " " + w(1)}, Price: []suite.PriceBound{{Op: suite.OpBetween, Lo: &lo, Hi: &hi}}}
	switch typ {
	case suite.TypeProduct:
		p.Reward = suite.Reward{Items: []suite.Item{item}}
	case suite.TypeShop:
		second := item
		second.ProductID = fmt.Sprintf("prod%05d", 50000+n)
		p.Reward = suite.Reward{Items: []suite.Item{item, second}, List: true}
	case suite.TypeVoucher:
		face := 5.0
		p.Reward = suite.Reward{Items: []suite.Item{item}, List: true}
		p.Voucher = &suite.Voucher{VoucherType: suite.VoucherPlatform, Threshold: 20, DiscountType: suite.DiscountFixed, FaceValue: &face, PriceAfterVoucher: 45, Budget: 200}
	}
	return p
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// trajectory is find/view pairs, then recommend and terminate. Call ids
// repeat across steps ("call_0"), as many agents do. A violation ends on a
// step whose call got no result.
func trajectory(p *suite.Problem, steps int, role string, racer int) episode.Trajectory {
	target := p.Targets[0]
	tr := episode.Trajectory{EndReason: episode.ReasonTerminated, TerminateStatus: "success"}
	think := func(s string) string {
		if role == "ungrounded" {
			return "I will now search for the product the user wants."
		}
		return s
	}
	for i := 0; i < steps; i++ {
		q := fmt.Sprintf("%s page %d", p.Query, i+1)
		found := raw([]map[string]any{{"product_id": target, "shop_id": "shop1", "title": "thing", "price": 42.5}, {"product_id": fmt.Sprintf("other%d", i), "shop_id": "shop2", "price": 99}})
		tr.Steps = append(tr.Steps,
			episode.StepRecord{
				Think:     think(fmt.Sprintf("Searching for %q (racer %d).", q, racer)),
				ToolCalls: []episode.ToolCall{{ID: "call_0", Name: "find_product", Parameters: raw(map[string]any{"q": q, "page": 1})}},
				Results:   []episode.ToolResult{{ToolCallID: "call_0", Result: found}},
			},
			episode.StepRecord{
				Think: think(fmt.Sprintf("Product %s costs 42.5 at shop1, cheaper than other%d at 99; checking its attributes.", target, i)),
				ToolCalls: []episode.ToolCall{
					{ID: "call_0", Name: "view_product_information", Parameters: raw(map[string]any{"product_ids": target})},
					{ID: "call_1", Name: "view_product_information", Parameters: raw(map[string]any{"product_ids": "missing"})},
				},
				Results: []episode.ToolResult{
					{ToolCallID: "call_0", Result: raw([]map[string]any{{"product_id": target, "attributes": map[string]any{"color": "red"}}})},
					{ToolCallID: "call_1", Error: &episode.ToolError{Code: "not_found", Message: "no product missing"}},
				},
			})
	}
	if role == "violation" {
		tr.EndReason, tr.TerminateStatus = episode.ReasonMalformed, ""
		tr.Steps = append(tr.Steps, episode.StepRecord{
			Think:     "Recommending now.",
			ToolCalls: []episode.ToolCall{{ID: "call_9", Name: "recommend_product", Parameters: json.RawMessage(`["not an object"]`)}},
		})
		return tr
	}
	answer := target
	if role == "good" && racer > 1 {
		answer = "other0"
	}
	tr.Recommended = []string{answer}
	tr.Steps = append(tr.Steps,
		episode.StepRecord{
			Think:     think(fmt.Sprintf("%s matches the price bound; recommending it.", answer)),
			ToolCalls: []episode.ToolCall{{ID: "call_0", Name: "recommend_product", Parameters: raw(map[string]any{"product_ids": answer})}},
			Results:   []episode.ToolResult{{ToolCallID: "call_0", Result: raw(map[string]any{"accepted": []string{answer}})}},
		},
		episode.StepRecord{
			Think:     think("Done."),
			ToolCalls: []episode.ToolCall{{ID: "call_0", Name: "terminate", Parameters: raw(map[string]any{"status": "success"})}},
			Results:   []episode.ToolResult{{ToolCallID: "call_0", Result: raw(map[string]any{"status": "success"})}},
		})
	return tr
}

// relayed binds each step of tr to a relay completion that returned it,
// requested after the step's previous observation with the query in its
// prompt, as a protocol-version-2 episode records them. tag makes the
// completion ids unique.
func relayed(tr *episode.Trajectory, tag string) {
	tr.Protocol = 2
	for i := range tr.Steps {
		st := &tr.Steps[i]
		id := fmt.Sprintf("arc-%s-%d", tag, i)
		st.CompletionID = id
		type call struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		}
		calls := make([]call, len(st.ToolCalls))
		for j, tc := range st.ToolCalls {
			calls[j].ID, calls[j].Type = tc.ID, "function"
			calls[j].Function.Name, calls[j].Function.Arguments = tc.Name, string(tc.Parameters)
		}
		prompt := "User query: " + tr.Query
		for _, prev := range tr.Steps[:i] {
			for _, r := range prev.Results {
				prompt += "\n" + string(r.Result)
			}
		}
		tr.Completions = append(tr.Completions, episode.Completion{ID: id, RequestID: fmt.Sprintf("r%d", i), Model: "fixture-model",
			Request: raw(map[string]any{"model": "fixture-model", "messages": []map[string]any{{"role": "user", "content": prompt}}, "max_tokens": 2048}),
			Response: raw(map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "model": "fixture-model",
				"choices": []map[string]any{{"index": 0, "finish_reason": "tool_calls",
					"message": map[string]any{"role": "assistant", "content": nil, "reasoning_content": st.Think, "tool_calls": calls}}},
				"usage": map[string]any{"prompt_tokens": 100 + 50*i, "completion_tokens": 40, "total_tokens": 140 + 50*i}}),
			Usage:        episode.Usage{PromptTokens: int64(100 + 50*i), CompletionTokens: 40, TotalTokens: int64(140 + 50*i)},
			Observations: i})
	}
}

func verdict(role string, racer, steps int) *records.Verdict {
	v := &records.Verdict{}
	var gates judge.Gates
	switch role {
	case "best":
		v.Final, v.Metrics.Success = 0.95, true
		gates = judge.Gates{ReferredToResults: true, CitedDatum: true, Compared: true}
	case "good":
		v.Final = max(0.05, 0.7-0.1*float64(racer-1))
		gates = judge.Gates{ReferredToResults: true, CitedDatum: true}
	case "ungrounded":
		v.Final = 0.3
	case "violation":
		v.Final = 0
		v.Metrics.Reasons = []string{"violation: malformed"}
	}
	v.Judge = judge.Verdict{Score: judge.Ladder(gates), Gates: gates, Judge: judge.NameGrounding}
	if role == "good" {
		// Good racers reason from one template: the export carries the
		// finding.
		v.Judge.Findings = []judge.Finding{{Name: judge.FindingTemplated, Detail: "fixture", Skeleton: "# is cheaper than #", Share: 1}}
	}
	for i := 0; i < steps; i++ {
		// Out of order on purpose: the export sorts by step.
		v.Judge.PerStep = append(v.Judge.PerStep, judge.StepScore{Step: steps - 1 - i, Score: judge.Ladder(gates), Reason: "fixture"})
	}
	v.Metrics.HasTrajectory = true
	return v
}
