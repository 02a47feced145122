package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring"
	"arena/shop"
	"arena/suite"
)

// evaluationBytes renders an evaluation byte for byte (the error as its
// text).
func evaluationBytes(tb testing.TB, ev Evaluation) []byte {
	tb.Helper()
	errText := ""
	if ev.Err != nil {
		errText = ev.Err.Error()
	}
	b, err := json.Marshal(struct {
		M     scoring.Metrics
		V     Verdict
		Final float64
		Err   string
	}{ev.Metrics, ev.Verdict, ev.Final, errText})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// capGroupsOneByOne is the reference for EvaluateBatch's groups: the
// default TemplateOptions.Apply on each group's verdicts, in case order,
// then the final scores again.
func capGroupsOneByOne(cases []Case, evs []Evaluation) {
	var order []string
	groups := map[string][]int{}
	for i, c := range cases {
		if c.Group == "" || c.Trajectory == nil {
			continue
		}
		if groups[c.Group] == nil {
			order = append(order, c.Group)
		}
		groups[c.Group] = append(groups[c.Group], i)
	}
	for _, name := range order {
		var trajs []*episode.Trajectory
		var vs []*Verdict
		for _, i := range groups[name] {
			trajs = append(trajs, cases[i].Trajectory)
			vs = append(vs, &evs[i].Verdict)
		}
		if _, ok := (TemplateOptions{}).Apply(trajs, vs); ok {
			for _, i := range groups[name] {
				if evs[i].Err == nil {
					evs[i].Final = scoring.Final(&evs[i].Metrics, evs[i].Verdict.Score)
				}
			}
		}
	}
}

// assertSameAsOneByOne checks EvaluateBatch against the existing
// functions called one by one, for several worker counts.
func assertSameAsOneByOne(t *testing.T, cases []Case) {
	t.Helper()
	ctx := context.Background()
	ref := NewGrounding(GroundingOptions{}, zerolog.Nop())
	want := make([]Evaluation, len(cases))
	for i, c := range cases {
		want[i] = oneByOne(ctx, ref, c, scoring.Options{})
	}
	capGroupsOneByOne(cases, want)
	g := NewGrounding(GroundingOptions{}, zerolog.Nop())
	for _, workers := range []int{0, 1, 2, 5} {
		got := g.EvaluateBatch(ctx, cases, BatchOptions{Workers: workers})
		if len(got) != len(cases) {
			t.Fatalf("workers %d: %d evaluations for %d cases", workers, len(got), len(cases))
		}
		for i := range cases {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("workers %d case %d:\n got %+v\nwant %+v", workers, i, got[i], want[i])
				continue
			}
			if gb, wb := evaluationBytes(t, got[i]), evaluationBytes(t, want[i]); string(gb) != string(wb) {
				t.Errorf("workers %d case %d:\n got %s\nwant %s", workers, i, gb, wb)
			}
		}
	}
}

func TestEvaluateBatchSyntheticCorpus(t *testing.T) {
	cases := synthCases(t, 300, 30)
	assertSameAsOneByOne(t, cases)
	// The corpus means something: grounded, judged as comparing, and
	// successful (the wrong products of one case in seven meet every
	// constraint, but not gt).
	evs := NewGrounding(GroundingOptions{}, zerolog.Nop()).EvaluateBatch(context.Background(), cases, BatchOptions{})
	for i, ev := range evs {
		if ev.Err != nil || len(ev.Metrics.Ungrounded) != 0 || ev.Verdict.Score != ScoreCompared {
			t.Fatalf("case %d: %+v", i, ev)
		}
		if wrong := i%7 == 0; !ev.Metrics.Success || ev.Final != 1 || (ev.Metrics.GT == 0) != wrong {
			t.Fatalf("case %d (wrong product %v): success %v gt %v final %v", i, wrong, ev.Metrics.Success, ev.Metrics.GT, ev.Final)
		}
	}
}

// TestEvaluateBatchObservedAnywhere: the answered ids are observed at the
// first step, in the middle, in the tail EvaluateBatch reads first, or
// never (ungrounded).
func TestEvaluateBatchObservedAnywhere(t *testing.T) {
	for _, at := range []int{0, 1, 7, 8, 9, 10, -1} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			cases := synthCasesAt(t, 40, 11, at)
			assertSameAsOneByOne(t, cases)
			evs := NewGrounding(GroundingOptions{}, zerolog.Nop()).EvaluateBatch(context.Background(), cases, BatchOptions{})
			for i, ev := range evs {
				if ungrounded := at < 0; (len(ev.Metrics.Ungrounded) > 0) != ungrounded || ev.Metrics.Success == ungrounded {
					t.Fatalf("case %d: %+v", i, ev.Metrics)
				}
			}
			// Without thinks the judge reads no result; grounding still must.
			for _, c := range cases {
				for s := range c.Trajectory.Steps {
					c.Trajectory.Steps[s].Think = ""
				}
			}
			assertSameAsOneByOne(t, cases)
		})
	}
}

// handMade are edge cases: ungrounded answers, a violation ending, ids
// seen only in the last step or only in an error, escaped and numeric
// ids, no thinks, no trajectory, an unusable problem.
func handMade(t *testing.T) []Case {
	t.Helper()
	product := func(id string) *shop.Product {
		return &shop.Product{ProductID: id, ShopID: "s77", Title: "Acme Ceramic Coffee Mug Gift", Price: 49.5,
			Service: shop.ServiceFreeShipping, Attributes: []shop.Attribute{{Key: "material", Values: []string{"porcelain"}}}}
	}
	prob := func(id string) *suite.Problem {
		return &suite.Problem{ID: "p-" + id, Type: suite.TypeProduct, Query: "a blue ceramic mug under 60",
			Reward: suite.Reward{Items: []suite.Item{{ProductID: id, Title: []string{"Acme Ceramic Coffee Mug"}, Price: []suite.PriceBound{{Op: suite.OpLessThan, Hi: new(60.0)}}}}}}
	}
	answer := func(ids ...string) []scoring.Answer {
		var out []scoring.Answer
		for _, id := range ids {
			out = append(out, scoring.Answer{ID: id, Product: product(id)})
		}
		return out
	}
	compare := "P100234 costs more than P100777." + wantsMug
	withTerminated := func(tr *episode.Trajectory) *episode.Trajectory {
		tr.EndReason = episode.ReasonTerminated
		return tr
	}

	grounded := withTerminated(fixture(t, "Searching.", compare))

	violation := fixture(t, "Searching.", compare)
	violation.EndReason = episode.ReasonThinkTooLong

	lastOnly := withTerminated(fixture(t, "Searching.", compare))
	lastOnly.Steps[2].Results = []episode.ToolResult{{ToolCallID: "3", Result: json.RawMessage(`{"ok":true,"product_id":"P700001"}`)}}

	errorOnly := withTerminated(fixture(t, "Searching.", compare))
	errorOnly.Steps[1].Results[1].Error.Message = `{"product_id":"P424242"}`

	odd := withTerminated(fixture(t, "s", "P100234 and 12 because 12 is cheaper than P100234"))
	odd.Steps[0].Results = append(odd.Steps[0].Results,
		episode.ToolResult{Result: json.RawMessage(`[{"product_id": 12.0, "price": 3e1}, {"product_id":"A\"B\u0043"}, {"x":{"product_id" : "NESTED"}}]`)},
		episode.ToolResult{Result: json.RawMessage(`{"product_id":"TRUNC`)},
		episode.ToolResult{Result: json.RawMessage(`{"attributes":{"product_id":"INATTR"}}`)},
	)

	noThinks := withTerminated(fixture(t, "", ""))
	noThinks.Steps[2].Think = ""

	titlesOnly := withTerminated(fixture(t, "Searching.", "The Nordic stoneware option looks nice."))

	maxSteps := fixture(t, "Searching.", compare)
	maxSteps.EndReason = episode.ReasonMaxSteps

	shopProblem := &suite.Problem{ID: "shop", Type: suite.TypeShop, Query: "two mugs", Reward: suite.Reward{List: true, Items: []suite.Item{
		{ProductID: "P100234", Title: []string{"Acme Ceramic Coffee Mug"}}, {ProductID: "P100777", Title: []string{"Nordic Stoneware Mug"}}}}}

	return []Case{
		{Problem: prob("P100234"), Trajectory: grounded, Answers: answer("P100234")},
		{Problem: prob("P100234"), Trajectory: grounded, Answers: answer("P999999")},                       // ungrounded: only in a description
		{Problem: prob("P100234"), Trajectory: grounded, Answers: answer("P777777")},                       // ungrounded: only in a call parameter
		{Problem: prob("P100234"), Trajectory: errorOnly, Answers: answer("P424242")},                      // ungrounded: only in an error
		{Problem: prob("P100234"), Trajectory: violation, Answers: answer("P100234")},                      // violation ending
		{Problem: prob("P700001"), Trajectory: lastOnly, Answers: answer("P700001")},                       // observed only in the last step
		{Problem: prob("12"), Trajectory: odd, Answers: answer("12")},                                      // numeric id
		{Problem: prob("A\"BC"), Trajectory: odd, Answers: answer("A\"BC", "NESTED", "INATTR", "TRUNC")},   // escaped, nested, under attributes, truncated
		{Problem: prob("P100234"), Trajectory: noThinks, Answers: answer("P100234")},                       // the judge reads nothing
		{Problem: prob("P100234"), Trajectory: titlesOnly, Answers: answer("P100777")},                     // title pass, wrong product
		{Problem: prob("P100234"), Trajectory: nil, Answers: answer("P100234")},                            // no trajectory
		{Problem: prob("P100234"), Trajectory: &episode.Trajectory{}, Answers: answer("P100234")},          // empty trajectory
		{Problem: prob("P100234"), Trajectory: maxSteps, Answers: answer("P100234", "P100234", "P555000")}, // duplicates, extra answers
		{Problem: prob("P100234"), Trajectory: grounded, Answers: nil},                                     // no answer
		{Problem: shopProblem, Trajectory: grounded, Answers: answer("P100234", "P100777")},
		{Problem: shopProblem, Trajectory: grounded, Answers: []scoring.Answer{{ID: "P100234"}, {ID: "P100777", Product: product("P100777")}}},
		{Problem: nil, Trajectory: grounded, Answers: answer("P100234")},                                       // Rules error
		{Problem: &suite.Problem{ID: "empty", Type: suite.TypeProduct}, Trajectory: grounded, Answers: nil},    // Rules error
		{Problem: &suite.Problem{ID: "v", Type: suite.TypeVoucher, Reward: prob("x").Reward}, Trajectory: odd}, // Rules error
	}
}

func TestEvaluateBatchHandMade(t *testing.T) {
	cases := handMade(t)
	assertSameAsOneByOne(t, cases)

	evs := NewGrounding(GroundingOptions{}, zerolog.Nop()).EvaluateBatch(context.Background(), cases, BatchOptions{Workers: 1})
	check := func(i int, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("case %d: %+v", i, evs[i])
		}
	}
	check(0, evs[0].Metrics.Success && evs[0].Final == 1 && evs[0].Verdict.Score == ScoreCompared)
	for _, i := range []int{1, 2, 3} {
		check(i, len(evs[i].Metrics.Ungrounded) == 1 && !evs[i].Metrics.Success && evs[i].Final == 0)
	}
	check(4, !evs[4].Metrics.Success && evs[4].Final == 0 && len(evs[4].Metrics.Ungrounded) == 0 && len(evs[4].Metrics.Reasons) == 1)
	check(5, evs[5].Metrics.Success && len(evs[5].Metrics.Ungrounded) == 0)
	check(6, len(evs[6].Metrics.Ungrounded) == 0)
	check(7, fmt.Sprint(evs[7].Metrics.Ungrounded) == "[TRUNC]")
	check(8, evs[8].Metrics.Success && evs[8].Verdict.Score == ScoreNoReference && evs[8].Final > 0 && evs[8].Final < 1)
	check(10, len(evs[10].Metrics.Ungrounded) == 1 && evs[10].Verdict.PerStep == nil)
	for _, i := range []int{16, 17, 18} {
		check(i, evs[i].Err != nil && evs[i].Final == 0)
	}
}

func TestEvaluateBatchInjections(t *testing.T) {
	var cases []Case
	prob := &suite.Problem{ID: "p", Type: suite.TypeProduct, Query: "a blue ceramic mug under 60",
		Reward: suite.Reward{Items: []suite.Item{{ProductID: "P100234"}}}}
	for _, inj := range injections {
		for _, base := range []string{"P100234 costs more than P100777.", "The Nordic stoneware option looks nice", ""} {
			tr := fixture(t, base+inj, inj+base)
			tr.EndReason = episode.ReasonTerminated
			cases = append(cases, Case{Problem: prob, Trajectory: tr, Answers: []scoring.Answer{{ID: "P100234", Product: &shop.Product{ProductID: "P100234", ShopID: "s"}}}})
		}
	}
	assertSameAsOneByOne(t, cases)
}

func TestEvaluateBatchContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cases := synthCases(t, 20, 3)
	evs := NewGrounding(GroundingOptions{}, zerolog.Nop()).EvaluateBatch(ctx, cases, BatchOptions{})
	for i, ev := range evs {
		if !errors.Is(ev.Err, context.Canceled) || ev.Final != 0 {
			t.Fatalf("case %d: %+v", i, ev)
		}
	}
	if evs := NewGrounding(GroundingOptions{}, zerolog.Nop()).EvaluateBatch(context.Background(), nil, BatchOptions{}); len(evs) != 0 {
		t.Fatalf("%d evaluations of no case", len(evs))
	}
}

// BenchmarkRulesAndGrounding10k is the issue 6 target: rule metrics (with
// the grounding set), grounding verdict and final score of 10,000
// synthetic 30-step trajectories, through EvaluateBatch on GOMAXPROCS
// goroutines.
//
//	go test ./scoring/judge/ -run '^$' -bench 'RulesAndGrounding10k$' -benchtime 5x -count 5 -benchmem
func BenchmarkRulesAndGrounding10k(b *testing.B) {
	benchmarkBatch(b, 10000, 0)
}

// BenchmarkRulesAndGrounding10kOneWorker is the same on one goroutine.
func BenchmarkRulesAndGrounding10kOneWorker(b *testing.B) {
	benchmarkBatch(b, 10000, 1)
}

// BenchmarkRulesAndGrounding1k is the same on 1,000 trajectories, for
// quick comparisons.
func BenchmarkRulesAndGrounding1k(b *testing.B) {
	benchmarkBatch(b, 1000, 0)
}

func benchmarkBatch(b *testing.B, n, workers int) {
	benchmarkEvaluate(b, synthCases(b, n, 30), func(ctx context.Context, g *Grounding, cases []Case) []Evaluation {
		return g.EvaluateBatch(ctx, cases, BatchOptions{Workers: workers})
	})
}

// benchmarkEvaluate times evaluate over cases, checking every verdict and
// that some cases succeed (else the synthetic data is wrong), and reports
// the CPU time of the process (all threads, the garbage collector's
// included) per op: the work done, less sensitive than the wall time to
// other processes sharing the machine.
func benchmarkEvaluate(b *testing.B, cases []Case, evaluate func(context.Context, *Grounding, []Case) []Evaluation) {
	g := NewGrounding(GroundingOptions{}, zerolog.Nop())
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		success := 0
		for _, ev := range evaluate(ctx, g, cases) {
			if ev.Err != nil || ev.Verdict.Score != ScoreCompared {
				b.Fatalf("%v %v", ev.Err, ev.Verdict.Score)
			}
			if ev.Final > 0 {
				success++
			}
		}
		if success == 0 {
			b.Fatal("no successes: the synthetic data is wrong")
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
