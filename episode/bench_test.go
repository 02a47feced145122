package episode

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"arena/chain"
	"arena/shop"
)

// benchAgent is a scripted miner for the loopback benchmark: a search
// first, then steps of one search page plus three product views, and
// terminate at the last step. It does no thinking of its own, so the
// numbers measure the validator and the wire.
func benchAgent(steps int) Agent {
	return AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
		n := len(v.History)
		call := func(i int, name string, params any) ToolCall {
			raw, _ := json.Marshal(params)
			return ToolCall{ID: fmt.Sprintf("s%dc%d", n, i), Name: name, Parameters: raw}
		}
		if n == steps-1 {
			return Action{Think: "done", ToolCalls: []ToolCall{call(0, "terminate", map[string]string{"status": "success"})}}, nil
		}
		if n == 0 {
			return Action{Think: "search", ToolCalls: []ToolCall{call(0, "find_product", map[string]any{"q": v.Query, "page": 1})}}, nil
		}
		ids := resultIDs(v.History[0].Results)
		if len(ids) < 3 {
			ids = append(ids, "missing", "missing", "missing")
		}
		return Action{Think: "compare " + ids[0] + " and " + ids[1], ToolCalls: []ToolCall{
			call(0, "find_product", map[string]any{"q": v.Query, "page": n%5 + 1}),
			call(1, "view_product_information", map[string]string{"product_ids": ids[0] + "," + ids[1]}),
			call(2, "view_product_information", map[string]string{"product_ids": ids[2]}),
			call(3, "view_product_information", map[string]string{"product_ids": ids[n%3]}),
		}}, nil
	})
}

// BenchmarkLoopback is the benchmark of docs/benchmarks.md: 64 scripted
// miners on loopback sockets, 30-step episodes against a 100k catalog.
//
//	go test ./episode/ -run '^$' -bench Loopback -benchtime 3x -timeout 20m
//
// Each iteration runs every miner's episodes once. The reported metrics
// cover every iteration: tool calls per second of wall time and per
// second of process CPU (validator and miners together), and the median
// validator-added latency per step excluding tool execution.
func BenchmarkLoopback(b *testing.B) {
	const products, steps = 100_000, 30
	tools, problems := catalogTools(b, products)
	for _, size := range []struct{ miners, episodes int }{{64, 1}, {64, 2}} {
		b.Run(fmt.Sprintf("miners=%d/in-flight=%d", size.miners, size.miners*size.episodes), func(b *testing.B) {
			benchLoopback(b, tools, problems, size.miners, size.episodes, steps)
		})
	}
}

func benchLoopback(b *testing.B, tools *shop.Tools, problems []Problem, miners, episodes, steps int) {
	lim := DefaultLimits()
	lim.MaxSteps = steps
	r := newTestRunner(b, tools, lim)
	ms := make([]Miner, miners)
	for i := range ms {
		s := newSigner(b)
		ms[i] = Miner{UID: uint16(i), Hotkey: chain.Mirror(s.Address), Endpoint: startServer(b, s, benchAgent(steps), ServerOptions{})}
	}
	// Every iteration's trajectories, wall time and CPU time count: the
	// metrics are aggregates over all b.N runs, not the last one.
	var all []Trajectory
	var wall, cpu time.Duration
	for b.Loop() {
		out := make([][]Trajectory, miners)
		var wg sync.WaitGroup
		cpu0 := processCPU(b)
		start := time.Now()
		for i, m := range ms {
			ps := make([]Problem, episodes)
			for j := range ps {
				ps[j] = problems[(i*episodes+j)%len(problems)]
			}
			wg.Go(func() { out[i] = r.Run(context.Background(), m, ps) })
		}
		wg.Wait()
		wall += time.Since(start)
		cpu += processCPU(b) - cpu0
		for _, trs := range out {
			all = append(all, trs...)
		}
	}

	var calls, stepsDone int
	var overhead, toolPerCall, minerTime []time.Duration
	for _, tr := range all {
		if tr.EndReason != ReasonTerminated {
			b.Errorf("uid %d %s: %s (%s)", tr.MinerUID, tr.ProblemID, tr.EndReason, tr.EndDetail)
		}
		for _, s := range tr.Steps {
			stepsDone++
			calls += len(s.ToolCalls)
			overhead = append(overhead, s.TObserved.Sub(s.TReceived)-s.ToolTime)
			minerTime = append(minerTime, s.TReceived.Sub(s.TSent))
			if len(s.ToolCalls) > 0 {
				toolPerCall = append(toolPerCall, s.ToolTime/time.Duration(len(s.ToolCalls)))
			}
		}
	}
	pct := func(d []time.Duration, p float64) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[min(len(d)-1, int(p*float64(len(d))))]
	}
	var report strings.Builder
	fmt.Fprintf(&report, "%d runs of %d miners: episodes %d, steps %d, tool calls %d, wall %s\n", b.N, miners, len(all), stepsDone, calls, wall.Round(time.Millisecond))
	fmt.Fprintf(&report, "aggregate tool calls/s %.0f, steps/s %.0f\n", float64(calls)/wall.Seconds(), float64(stepsDone)/wall.Seconds())
	fmt.Fprintf(&report, "process CPU %s (validator and all %d miners): %.0f tool calls per CPU-second\n", cpu.Round(time.Millisecond), miners, float64(calls)/cpu.Seconds())
	fmt.Fprintf(&report, "validator-added latency per step excluding tools: p50 %s p90 %s p99 %s\n", pct(overhead, .5), pct(overhead, .9), pct(overhead, .99))
	fmt.Fprintf(&report, "tool time per call: p50 %s p90 %s p99 %s\n", pct(toolPerCall, .5), pct(toolPerCall, .9), pct(toolPerCall, .99))
	fmt.Fprintf(&report, "miner time per step (agent + wire, as seen by the validator): p50 %s p90 %s\n", pct(minerTime, .5), pct(minerTime, .9))
	b.ReportMetric(float64(calls)/wall.Seconds(), "toolcalls/s")
	b.ReportMetric(float64(calls)/cpu.Seconds(), "toolcalls/cpu-s")
	b.ReportMetric(float64(pct(overhead, .5).Microseconds())/1000, "overhead-p50-ms")
	b.Log("\n" + report.String())
}

// processCPU is the user+system CPU time this process has used.
func processCPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
