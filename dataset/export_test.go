package dataset_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/dataset/datasettest"
	"arena/scoring/judge"
	"arena/shop"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

type env struct {
	fx     *datasettest.Fixture
	st     *store.Store
	ledger *suite.Ledger
	seed   uint64
}

// newEnv builds the fixture, reopens it read-only and picks a split seed
// that sends the compromised cluster's hash into eval (so its exclusion is
// tested) and at least one other cluster to eval.
func newEnv(t *testing.T) *env {
	t.Helper()
	fx := datasettest.Build(t, filepath.Join(t.TempDir(), "data"), datasettest.Options{Racers: 5, Anomalies: true, Verified: true})
	st, ledger := openStore(t, fx.Dir, true)
	e := &env{fx: fx, st: st, ledger: ledger}
	for seed := uint64(0); ; seed++ {
		if seed > 10000 {
			t.Fatal("no split seed puts the compromised cluster in eval")
		}
		if !dataset.EvalCluster(fx.Compromised, seed, evalFraction) {
			continue
		}
		others := 0
		for _, p := range fx.Problems {
			if p.Cluster != fx.Compromised && dataset.EvalCluster(p.Cluster, seed, evalFraction) {
				others++
			}
		}
		if others > 0 && others < len(fx.Problems)-1 {
			e.seed = seed
			break
		}
	}
	return e
}

const evalFraction = 0.3

// openStore opens the data dir's store until the test ends, with its ledger.
func openStore(t *testing.T, dir string, readOnly bool) (*store.Store, *suite.Ledger) {
	t.Helper()
	st, err := store.Open(store.Options{Dir: dir, ReadOnly: readOnly}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, ledger
}

func (e *env) export(t *testing.T, o dataset.Options) (string, *dataset.Report) {
	t.Helper()
	o.Store, o.Ledger, o.Records = e.st, e.ledger, records.New()
	if o.Out == "" {
		o.Out = filepath.Join(t.TempDir(), "out")
	}
	if o.SplitSeed == 0 {
		o.SplitSeed = e.seed
	}
	o.Source = e.fx.Dir
	rep, err := dataset.Export(context.Background(), o, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return o.Out, rep
}

// readJSONL decodes every line of a file into T.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkConversation checks OpenAI's tool-calling rules on raw JSON
// messages: every call names a tool in tools, has type function and a JSON
// string of a JSON object as arguments; every tool turn answers an earlier
// call, and every call is answered.
func checkConversation(t *testing.T, tools []any, msgs []any) {
	t.Helper()
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.(map[string]any)["function"].(map[string]any)["name"].(string)] = true
	}
	// Every row offers the validator's tools, each once.
	want := shop.ToolNames()
	if len(names) != len(tools) || len(names) != len(want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for _, n := range want {
		if !names[n] {
			t.Fatalf("tools %v lack %s", names, n)
		}
	}
	called := map[string]bool{}
	answered := map[string]bool{}
	for i, m := range msgs {
		msg := m.(map[string]any)
		switch msg["role"] {
		case "assistant":
			calls, _ := msg["tool_calls"].([]any)
			for _, c := range calls {
				call := c.(map[string]any)
				fn := call["function"].(map[string]any)
				if !names[fn["name"].(string)] {
					t.Fatalf("message %d calls %v, not in tools", i, fn["name"])
				}
				if call["type"] != "function" {
					t.Fatalf("message %d: call type %v", i, call["type"])
				}
				args, ok := fn["arguments"].(string)
				if !ok {
					t.Fatalf("message %d: arguments %T, want a JSON string", i, fn["arguments"])
				}
				var obj map[string]any
				if err := json.Unmarshal([]byte(args), &obj); err != nil {
					t.Fatalf("message %d: arguments %q are not a JSON object: %v", i, args, err)
				}
				id := call["id"].(string)
				if called[id] {
					t.Fatalf("message %d: call id %s reused", i, id)
				}
				called[id] = true
			}
		case "tool":
			id, _ := msg["tool_call_id"].(string)
			if !called[id] || answered[id] {
				t.Fatalf("message %d: tool_call_id %q answers no earlier open call", i, id)
			}
			answered[id] = true
			if _, ok := msg["content"].(string); !ok {
				t.Fatalf("message %d: tool content %T", i, msg["content"])
			}
		case "system", "user":
		default:
			t.Fatalf("message %d: role %v", i, msg["role"])
		}
	}
	for id := range called {
		if !answered[id] {
			t.Fatalf("call %s has no tool turn", id)
		}
	}
}

// splitCheck records cluster -> split and fails on a cluster in both, or
// the compromised cluster in eval.
type splitCheck struct {
	t           *testing.T
	compromised string
	seen        map[string]string
}

func (s *splitCheck) add(cluster, split string) {
	s.t.Helper()
	if prev, ok := s.seen[cluster]; ok && prev != split {
		s.t.Fatalf("cluster %s in both %s and %s", cluster, prev, split)
	}
	if split == dataset.SplitEval && cluster == s.compromised {
		s.t.Fatalf("compromised cluster %s in eval", cluster)
	}
	s.seen[cluster] = split
}

func splits(dir string) []string {
	out := []string{dataset.SplitTrain}
	if _, err := os.Stat(filepath.Join(dir, "eval.jsonl")); err == nil {
		out = append(out, dataset.SplitEval)
	}
	return out
}

// checkCard checks the card's per-split row counts against the files.
func checkCard(t *testing.T, dir string, rows map[string]int) {
	t.Helper()
	card, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for split, n := range rows {
		re := regexp.MustCompile(`\| ` + split + ` \| \*\*all\*\* \| (\d+) \|`)
		m := re.FindSubmatch(card)
		if m == nil {
			t.Fatalf("card lacks the %s total:\n%s", split, card)
		}
		if got, _ := strconv.Atoi(string(m[1])); got != n {
			t.Fatalf("card says %d %s rows, files have %d", got, split, n)
		}
	}
	for _, want := range []string{"Success rate", "final\n", "judge\n", "agentic only", "validator address", "0x00000000000000000000000000000000000000a1", "suite version: 12 problems in 12 clusters", "blocks: "} {
		if !strings.Contains(string(card), want) {
			t.Fatalf("card lacks %q:\n%s", want, card)
		}
	}
}

func TestSFT(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name    string
		opts    dataset.Options
		exclude []string // roles that must not appear
		include []string // roles that must appear
		check   func(t *testing.T, ep *datasettest.Episode)
	}{
		{name: "all", opts: dataset.Options{}, exclude: []string{"duplicate", "unjudged", "aborted", "unknown_tool"}, include: []string{"best", "good", "ungrounded", "violation"}},
		{name: "success only", opts: dataset.Options{Filters: dataset.Filters{SuccessOnly: true}}, include: []string{"best"},
			check: func(t *testing.T, ep *datasettest.Episode) {
				if !ep.Success {
					t.Fatalf("%s exported with success-only", ep.ID)
				}
			}},
		{name: "agentic", opts: dataset.Options{Filters: dataset.Filters{Agentic: true}}, exclude: []string{"ungrounded", "violation"}, include: []string{"best", "good"},
			check: func(t *testing.T, ep *datasettest.Episode) {
				if !ep.Agentic {
					t.Fatalf("%s exported with agentic", ep.ID)
				}
			}},
		{name: "min final and judge", opts: dataset.Options{Filters: dataset.Filters{MinFinal: 0.6, MinJudge: 0.7}},
			check: func(t *testing.T, ep *datasettest.Episode) {
				if ep.Final < 0.6 || ep.Judge < 0.7 {
					t.Fatalf("%s (final %v judge %v) exported", ep.ID, ep.Final, ep.Judge)
				}
			}},
		{name: "types and since block", opts: dataset.Options{Filters: dataset.Filters{Types: []suite.Type{suite.TypeVoucher}, SinceBlock: 120}},
			check: func(t *testing.T, ep *datasettest.Episode) {
				if ep.Type != suite.TypeVoucher || ep.Block < 120 {
					t.Fatalf("%s (%s, block %d) exported", ep.ID, ep.Type, ep.Block)
				}
			}},
		{name: "keep duplicates", opts: dataset.Options{Filters: dataset.Filters{KeepDuplicates: true}}, include: []string{"duplicate"}},
		{name: "think tags", opts: dataset.Options{Think: dataset.ThinkTags}},
		{name: "openai style", opts: dataset.Options{Style: dataset.StyleOpenAI}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Format, o.EvalFraction, o.Parquet = dataset.FormatSFT, evalFraction, true
			dir, rep := e.export(t, o)
			sc := &splitCheck{t: t, compromised: e.fx.Compromised, seen: map[string]string{}}
			roles := map[string]int{}
			rows := map[string]int{}
			for _, split := range splits(dir) {
				raws := readJSONL[map[string]any](t, filepath.Join(dir, split+".jsonl"))
				typed := readJSONL[dataset.SFTRow](t, filepath.Join(dir, split+".jsonl"))
				rows[split] = len(raws)
				for i, r := range raws {
					msgs := r["messages"].([]any)
					if msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["role"] != "user" {
						t.Fatalf("row %d does not open with system and user turns", i)
					}
					checkConversation(t, r["tools"].([]any), msgs)
					line, _ := json.Marshal(r)
					switch o.Style {
					case dataset.StyleOpenAI:
						if strings.Contains(string(line), "reasoning_content") || r["meta"] != nil {
							t.Fatalf("openai row carries reasoning_content or meta: %s", line)
						}
						continue
					}
					if o.Think == dataset.ThinkTags && (strings.Contains(string(line), "reasoning_content") || !strings.Contains(*typed[i].Messages[2].Content, "<think>\n")) {
						t.Fatalf("think tags row: %s", line)
					}
					m := typed[i].Meta
					ep := e.fx.Episodes[m.EpisodeID]
					if ep == nil {
						t.Fatalf("unknown episode %s", m.EpisodeID)
					}
					if m.Cluster != ep.Cluster || m.Split != split {
						t.Fatalf("meta %+v for %s in %s", m, ep.Cluster, split)
					}
					var findings []string
					if ep.Role == "good" {
						findings = append(findings, judge.FindingTemplated)
					}
					if len(ep.StepVerified) > 0 && !ep.Verified() {
						// The fixture's second racer has one step of each.
						findings = append(findings, judge.FindingUnverified, judge.FindingDictated)
					}
					if !slices.Equal(m.JudgeFindings, findings) {
						t.Fatalf("%s episode %s: judge findings %v, want %v", ep.Role, m.EpisodeID, m.JudgeFindings, findings)
					}
					if m.Verified != ep.Verified() {
						t.Fatalf("%s episode %s: verified %v, want %v", ep.Role, m.EpisodeID, m.Verified, ep.Verified())
					}
					sc.add(m.Cluster, split)
					roles[ep.Role]++
					if tt.check != nil {
						tt.check(t, ep)
					}
				}
				checkParquet[dataset.SFTRow](t, dir, split)
			}
			if o.Style != dataset.StyleOpenAI {
				for _, r := range tt.exclude {
					if roles[r] > 0 {
						t.Errorf("%d %s episodes exported", roles[r], r)
					}
				}
				for _, r := range tt.include {
					if roles[r] == 0 {
						t.Errorf("no %s episode exported (%v)", r, roles)
					}
				}
				if tt.name == "all" && (rows[dataset.SplitEval] == 0 || rows[dataset.SplitTrain] == 0) {
					t.Errorf("rows by split %v", rows)
				}
			}
			if rep.Rows[dataset.SplitTrain] != rows[dataset.SplitTrain] || rep.Rows[dataset.SplitEval] != rows[dataset.SplitEval] {
				t.Fatalf("report rows %v, files %v", rep.Rows, rows)
			}
			checkCard(t, dir, rows)
		})
	}
}

// checkParquet reads split.parquet back and compares it row by row with
// split.jsonl.
func checkParquet[T any](t *testing.T, dir, split string) {
	t.Helper()
	want := readJSONL[T](t, filepath.Join(dir, split+".jsonl"))
	got, err := parquet.ReadFile[T](filepath.Join(dir, split+".parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: parquet has %d rows, jsonl %d", split, len(got), len(want))
	}
	for i := range want {
		a, _ := json.Marshal(want[i])
		b, _ := json.Marshal(got[i])
		if string(a) != string(b) {
			t.Fatalf("%s row %d differs:\njsonl   %s\nparquet %s", split, i, a, b)
		}
	}
}

func TestSteps(t *testing.T) {
	e := newEnv(t)
	dir, _ := e.export(t, dataset.Options{Format: dataset.FormatSteps, EvalFraction: evalFraction, Parquet: true, Think: dataset.ThinkTags})
	sc := &splitCheck{t: t, compromised: e.fx.Compromised, seen: map[string]string{}}
	rows := map[string]int{}
	perEpisode := map[string]int{}
	names := map[string]bool{}
	for _, tl := range dataset.Tools() {
		names[tl.Function.Name] = true
	}
	callRE := regexp.MustCompile(`(?s)<tool_call>\n(.*?)\n</tool_call>`)
	for _, split := range splits(dir) {
		for _, r := range readJSONL[dataset.StepsRow](t, filepath.Join(dir, split+".jsonl")) {
			rows[split]++
			ep := e.fx.Episodes[r.Meta.EpisodeID]
			perEpisode[ep.ID]++
			sc.add(r.Meta.Cluster, split)
			if !strings.Contains(r.Instruction, "<tools>") || !strings.Contains(r.Input, "User query: ") {
				t.Fatalf("sample lacks tools or query: %+v", r)
			}
			if r.Meta.Step > 0 && !strings.Contains(r.Input, "<tool_response>") {
				t.Fatalf("step %d input lacks the history: %q", r.Meta.Step, r.Input)
			}
			for _, m := range callRE.FindAllStringSubmatch(r.Output, -1) {
				var call struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				}
				if err := json.Unmarshal([]byte(m[1]), &call); err != nil || !names[call.Name] {
					t.Fatalf("output call %q: %v", m[1], err)
				}
			}
		}
		checkParquet[dataset.StepsRow](t, dir, split)
	}
	for id, n := range perEpisode {
		if n != e.fx.Episodes[id].Steps {
			t.Fatalf("%s: %d samples, %d steps", id, n, e.fx.Episodes[id].Steps)
		}
	}
	checkCard(t, dir, rows)
}

func TestDPO(t *testing.T) {
	e := newEnv(t)
	for _, margin := range []float64{0.1, 0.5} {
		t.Run("margin "+strconv.FormatFloat(margin, 'g', -1, 64), func(t *testing.T) {
			dir, _ := e.export(t, dataset.Options{Format: dataset.FormatDPO, MinMargin: margin, EvalFraction: evalFraction, Parquet: true})
			sc := &splitCheck{t: t, compromised: e.fx.Compromised, seen: map[string]string{}}
			rows := map[string]int{}
			for _, split := range splits(dir) {
				raws := readJSONL[map[string]any](t, filepath.Join(dir, split+".jsonl"))
				typed := readJSONL[dataset.DPORow](t, filepath.Join(dir, split+".jsonl"))
				rows[split] = len(raws)
				for i, r := range raws {
					m := typed[i].Meta
					c, rj := e.fx.Episodes[m.ChosenEpisode], e.fx.Episodes[m.RejectedEpisode]
					if c.ProblemID != m.ProblemID || rj.ProblemID != m.ProblemID {
						t.Fatalf("pair %s/%s is not on problem %s", c.ID, rj.ID, m.ProblemID)
					}
					if c.Final-rj.Final < margin || c.Final <= rj.Final || math.Abs(m.Margin-(c.Final-rj.Final)) > 1e-9 {
						t.Fatalf("pair %s (%v) / %s (%v) misses margin %v", c.ID, c.Final, rj.ID, rj.Final, margin)
					}
					sc.add(m.Cluster, split)
					prompt := r["prompt"].([]any)
					checkConversation(t, r["tools"].([]any), append(append([]any{}, prompt...), r["chosen"].([]any)...))
					checkConversation(t, r["tools"].([]any), append(append([]any{}, prompt...), r["rejected"].([]any)...))
				}
				checkParquet[dataset.DPORow](t, dir, split)
			}
			if rows[dataset.SplitTrain]+rows[dataset.SplitEval] == 0 {
				t.Fatal("no pairs")
			}
			checkCard(t, dir, rows)
		})
	}
	t.Run("openai", func(t *testing.T) {
		dir, _ := e.export(t, dataset.Options{Format: dataset.FormatDPO, Style: dataset.StyleOpenAI, MinMargin: 0.2})
		n := 0
		for _, r := range readJSONL[map[string]any](t, filepath.Join(dir, "train.jsonl")) {
			n++
			in := r["input"].(map[string]any)
			msgs := in["messages"].([]any)
			checkConversation(t, in["tools"].([]any), append(append([]any{}, msgs...), r["preferred_output"].([]any)...))
			checkConversation(t, in["tools"].([]any), append(append([]any{}, msgs...), r["non_preferred_output"].([]any)...))
		}
		if n == 0 {
			t.Fatal("no pairs")
		}
	})
}

func TestGRPO(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name string
		opts dataset.Options
	}{
		{"all", dataset.Options{}},
		{"success-only groups", dataset.Options{Filters: dataset.Filters{SuccessOnly: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Format, o.EvalFraction, o.Parquet = dataset.FormatGRPO, evalFraction, true
			dir, _ := e.export(t, o)
			sc := &splitCheck{t: t, compromised: e.fx.Compromised, seen: map[string]string{}}
			rows := map[string]int{}
			tools := make([]any, 0)
			for _, tl := range dataset.Tools() {
				b, _ := json.Marshal(tl)
				var v any
				_ = json.Unmarshal(b, &v)
				tools = append(tools, v)
			}
			for _, split := range splits(dir) {
				raws := readJSONL[map[string]any](t, filepath.Join(dir, split+".jsonl"))
				typed := readJSONL[dataset.GRPORow](t, filepath.Join(dir, split+".jsonl"))
				rows[split] = len(raws)
				for i, r := range typed {
					x := r.ExtraInfo
					if r.RewardModel.Style != "rule" || x.Split != split || x.Index != int64(i) {
						t.Fatalf("row %d: %+v %+v", i, r.RewardModel, x)
					}
					var gt struct {
						Reward json.RawMessage `json:"reward"`
					}
					if err := json.Unmarshal([]byte(r.RewardModel.GroundTruth), &gt); err != nil || len(gt.Reward) == 0 {
						t.Fatalf("ground truth %q: %v", r.RewardModel.GroundTruth, err)
					}
					if len(x.Group) < 2 {
						t.Fatalf("group of %d", len(x.Group))
					}
					sum := 0.0
					for gi, m := range x.Group {
						ep := e.fx.Episodes[m.EpisodeID]
						if ep.ProblemID != x.ProblemID || ep.Final != m.Reward || len(m.StepRewards) != ep.Steps {
							t.Fatalf("member %+v does not match episode %+v", m, ep)
						}
						sum += m.Advantage
						raw := raws[i]["extra_info"].(map[string]any)["group"].([]any)[gi].(map[string]any)
						checkConversation(t, tools, raw["completion"].([]any))
					}
					if math.Abs(sum) > 1e-9 {
						t.Fatalf("advantages of %s sum to %v", x.ProblemID, sum)
					}
					sc.add(x.Cluster, split)
				}
				checkParquet[dataset.GRPORow](t, dir, split)
			}
			if rows[dataset.SplitTrain] == 0 {
				t.Fatal("no groups")
			}
			checkCard(t, dir, rows)
		})
	}
}

func TestPairAndAdvantages(t *testing.T) {
	tests := []struct {
		name   string
		finals []float64
		pass   []bool
		margin float64
		max    int
		want   [][2]int
	}{
		{"best against worst", []float64{0.2, 0.9, 0.5, 0}, []bool{true, true, true, true}, 0.1, 0, [][2]int{{1, 3}, {2, 0}}},
		{"margin stops", []float64{0.2, 0.9, 0.5, 0}, []bool{true, true, true, true}, 0.6, 0, [][2]int{{1, 3}}},
		{"only passing chosen", []float64{0.2, 0.9, 0.5, 0}, []bool{true, false, true, false}, 0.1, 0, [][2]int{{2, 3}}},
		{"cap", []float64{0.2, 0.9, 0.5, 0}, []bool{true, true, true, true}, 0.1, 1, [][2]int{{1, 3}}},
		{"ties never pair", []float64{0.5, 0.5}, []bool{true, true}, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dataset.Pair(tt.finals, tt.pass, tt.margin, tt.max)
			if len(got) != len(tt.want) {
				t.Fatalf("pairs %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("pairs %v, want %v", got, tt.want)
				}
			}
		})
	}
	adv := dataset.Advantages([]float64{0.95, 0.7, 0.3, 0, 0.1})
	sum := 0.0
	for _, a := range adv {
		sum += a
	}
	if math.Abs(sum) > 1e-12 || math.Abs(adv[0]-(0.95-0.41)) > 1e-12 {
		t.Fatalf("advantages %v", adv)
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts dataset.Options
		want string
	}{
		{"unknown format", dataset.Options{Format: "csv"}, `unknown format "csv"`},
		{"eval fraction 1", dataset.Options{Format: dataset.FormatSFT, EvalFraction: 1}, "eval fraction 1 must be in [0,1)"},
		{"negative eval fraction", dataset.Options{Format: dataset.FormatSFT, EvalFraction: -0.1}, "must be in [0,1)"},
		{"reasoning for openai", dataset.Options{Format: dataset.FormatSFT, Style: dataset.StyleOpenAI, Think: dataset.ThinkReasoning}, "use tags or drop"},
		{"non-empty out", dataset.Options{Format: dataset.FormatSFT, Out: full}, "not empty; pass --force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Store, o.Ledger = e.st, e.ledger
			if o.Out == "" {
				o.Out = filepath.Join(t.TempDir(), "out")
			}
			_, err := dataset.Export(context.Background(), o, zerolog.Nop())
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line with %q", err, tt.want)
			}
		})
	}
	t.Run("force replaces the files", func(t *testing.T) {
		_, rep := e.export(t, dataset.Options{Format: dataset.FormatSFT, Out: full, Force: true})
		if rep.Rows[dataset.SplitTrain] == 0 {
			t.Fatal("no rows")
		}
		if _, err := os.Stat(filepath.Join(full, "x")); err != nil {
			t.Fatal("force removed a file that is not the export's")
		}
	})
}
