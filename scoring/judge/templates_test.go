package judge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"arena/episode"
	"arena/scoring"
)

// Bins of the confusion matrix: what a trajectory's q pays.
const (
	binCredit  = "credit (q≥0.9)"
	binPartial = "partial"
	binNone    = "none (q≤0.5)"
)

var bins = []string{binCredit, binPartial, binNone}

func binOf(q float64) string {
	switch {
	case q >= 0.9:
		return binCredit
	case q <= 0.5:
		return binNone
	}
	return binPartial
}

// confusion counts trajectories by label and bin, and templated runs by
// label.
type confusion struct {
	cells     map[string]map[string]int
	templated map[string]int
	runs      map[string]int
}

func newConfusion() *confusion {
	return &confusion{cells: map[string]map[string]int{}, templated: map[string]int{}, runs: map[string]int{}}
}

func (c *confusion) add(label string, vs []*Verdict) {
	if c.cells[label] == nil {
		c.cells[label] = map[string]int{}
	}
	c.runs[label]++
	if len(vs) > 0 && vs[0].Has(FindingTemplated) {
		c.templated[label]++
	}
	for _, v := range vs {
		c.cells[label][binOf(v.Score)]++
	}
}

func (c *confusion) share(label, bin string) float64 {
	n := 0
	for _, b := range bins {
		n += c.cells[label][b]
	}
	return float64(c.cells[label][bin]) / float64(max(n, 1))
}

func (c *confusion) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %16s %8s %14s %10s\n", "label", bins[0], bins[1], bins[2], "templated")
	for _, l := range corpusLabels {
		fmt.Fprintf(&b, "%-14s %16d %8d %14d %6d/%d\n", l, c.cells[l][binCredit], c.cells[l][binPartial], c.cells[l][binNone], c.templated[l], c.runs[l])
	}
	return b.String()
}

// judgeRuns scores every run of the corpus with score, then applies the
// default template policy to each run, as the validator does.
func judgeRuns(t *testing.T, corpus []corpusMiner, score func(*episode.Trajectory) Verdict) *confusion {
	t.Helper()
	c := newConfusion()
	for _, m := range corpus {
		vs := make([]*Verdict, len(m.trajs))
		for i, tr := range m.trajs {
			v := score(tr)
			vs[i] = &v
		}
		(TemplateOptions{}).Apply(m.trajs, vs)
		c.add(m.label, vs)
	}
	return c
}

// checkConfusion asserts the targets on a confusion matrix:
// varied genuine reasoning is paid (q ≥ 0.9 for at least 95% of its
// trajectories, no run templated); templated runs are caught and keep
// q ≤ 0.5 (the default cap); hallucinated, injected,
// generic and empty thinking earns no credit.
func checkConfusion(t *testing.T, c *confusion) {
	t.Helper()
	t.Logf("confusion matrix (trajectories by label and what q pays):\n%s", c)
	if s := c.share(labelGenuine, binCredit); s < 0.95 {
		t.Errorf("genuine: %.1f%% paid full credit, want at least 95%%", 100*s)
	}
	if c.templated[labelGenuine] != 0 {
		t.Errorf("genuine: %d runs flagged templated", c.templated[labelGenuine])
	}
	for _, l := range []string{labelTemplated, labelNearTemplate} {
		if c.templated[l] != c.runs[l] {
			t.Errorf("%s: %d of %d runs flagged templated", l, c.templated[l], c.runs[l])
		}
	}
	for _, l := range corpusLabels[1:] {
		if s := c.share(l, binNone); s != 1 {
			t.Errorf("%s: %.1f%% of trajectories paid some credit, want none", l, 100*(1-s))
		}
	}
}

func TestCorpusConfusionGrounding(t *testing.T) {
	seed := testSeed(t)
	g := newGrounding(t)
	c := judgeRuns(t, buildCorpus(t, seed, 6, 20), g.Score)
	checkConfusion(t, c)
	t.Logf("a templated run keeps c(%v) = %.4f of its success", DefaultTemplateCap, scoring.Coefficient(DefaultTemplateCap))
}

// fixedLine is a templated miner's run over n problems: the issue's
// fixed line on every step.
func fixedLine(t *testing.T, n int) []*episode.Trajectory {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	trajs := make([]*episode.Trajectory, n)
	for i := range trajs {
		trajs[i] = corpusTrajectory(t, r, templatedThink, i)
	}
	return trajs
}

// mixRun is a run whose first k of n problems think with a and the rest
// with b.
func mixRun(t *testing.T, n, k int, a, b thinker) []*episode.Trajectory {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	trajs := make([]*episode.Trajectory, n)
	for i := range trajs {
		th := b
		if i < k {
			th = a
		}
		trajs[i] = corpusTrajectory(t, r, th, i)
	}
	return trajs
}

func TestDetectTemplates(t *testing.T) {
	quoted := func(r *rand.Rand, w wish, step int, prev, _ []item) string {
		if len(prev) == 0 {
			return "Searching now."
		}
		return fmt.Sprintf("I pick \"%s\" at %s for the %s.", prev[0].title, fmtP(prev[0].price), w.kind)
	}
	quotedLine := func(r *rand.Rand, w wish, step int, prev, _ []item) string {
		return "\"" + templatedThink(r, w, step, prev, nil) + " I say so, and I say it again.\""
	}
	unquotedTitles := func(r *rand.Rand, w wish, step int, prev, _ []item) string {
		if len(prev) == 0 {
			return "Searching now."
		}
		return fmt.Sprintf("I pick the %s for %s.", prev[0].title, fmtP(prev[0].price))
	}
	samePrefix := func(r *rand.Rand, w wish, step int, prev, _ []item) string {
		return "Let me think about this carefully. " + genuineThink(r, w, step, prev, nil)
	}
	renamed := fixedLine(t, 6)
	for _, tr := range renamed {
		tr.ProblemID = "one problem"
	}
	cases := []struct {
		name     string
		trajs    []*episode.Trajectory
		opts     TemplateOptions
		want     bool
		skeleton string
	}{
		{"fixed line", fixedLine(t, 20), TemplateOptions{}, true, "product # costs # cheaper than # so it fits the # request | searching for a #"},
		{"synthetic trajectories", synthTrajectories(t, 10, 30), TemplateOptions{}, true, "the user wants a # product # costs # and ships # cheaper than # so compare it with the others | the user wants a # search first"},
		{"fixed line with an optional clause", mixRun(t, 20, 20, nearTemplateThink, nil), TemplateOptions{}, true, ""},
		{"quoted titles masked", mixRun(t, 12, 12, quoted, nil), TemplateOptions{}, true, "i pick # at # for the # | searching now"},
		{"a long quoted span is the think's own words", mixRun(t, 12, 12, quotedLine, nil), TemplateOptions{}, true, "product # costs # cheaper than # so it fits the # request i say so and i say it again | #"},
		{"words of a few problems masked", mixRun(t, 20, 20, unquotedTitles, nil), TemplateOptions{}, true, "i pick the # for # | searching now"},
		{"genuine", mixRun(t, 20, 20, genuineThink, nil), TemplateOptions{}, false, ""},
		{"genuine with a fixed preamble", mixRun(t, 20, 20, samePrefix, nil), TemplateOptions{}, false, ""},
		{"template on a third of the problems", mixRun(t, 21, 7, templatedThink, genuineThink), TemplateOptions{}, false, ""},
		{"template on two thirds of the problems", mixRun(t, 21, 14, templatedThink, genuineThink), TemplateOptions{}, true, ""},
		{"a lower share catches a third", mixRun(t, 21, 7, templatedThink, genuineThink), TemplateOptions{Share: 0.3}, true, ""},
		{"two problems are too few", fixedLine(t, 2), TemplateOptions{}, false, ""},
		{"one problem run six times", renamed, TemplateOptions{}, false, ""},
		{"off", fixedLine(t, 20), TemplateOptions{Off: true}, false, ""},
		{"no thinks", mixRun(t, 10, 10, emptyThink, nil), TemplateOptions{}, false, ""},
		{"nil trajectories", []*episode.Trajectory{nil, nil, nil}, TemplateOptions{}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := DetectTemplates(c.trajs, c.opts)
			if ok != c.want {
				t.Fatalf("templated %v, want %v: %+v", ok, c.want, f)
			}
			if !ok {
				return
			}
			t.Logf("%s: %s", f.Skeleton, f.Detail)
			if f.Name != FindingTemplated || f.Share < max(c.opts.Share, 0.01) || f.Share > 1 || f.Skeleton == "" || f.Detail == "" {
				t.Fatalf("finding %+v", f)
			}
			if c.skeleton != "" && f.Skeleton != c.skeleton {
				t.Fatalf("skeleton %q, want %q", f.Skeleton, c.skeleton)
			}
			if again, _ := DetectTemplates(c.trajs, c.opts); fmt.Sprint(again) != fmt.Sprint(f) {
				t.Fatalf("not deterministic: %+v then %+v", f, again)
			}
		})
	}
}

func TestTemplateApplyCaps(t *testing.T) {
	g := newGrounding(t)
	trajs := fixedLine(t, 10)
	vs := make([]*Verdict, len(trajs))
	for i, tr := range trajs {
		v := g.Score(tr)
		if v.Score != ScoreCompared {
			t.Fatalf("the fixed line scores %v on its own, want %v: %+v", v.Score, ScoreCompared, v)
		}
		vs[i] = &v
	}
	for _, cp := range []float64{0, 0.5, 0.4} { // 0: the default
		f, ok := (TemplateOptions{Cap: cp}).Apply(trajs, vs)
		if !ok {
			t.Fatal("not templated")
		}
		want := cp
		if cp == 0 {
			want = DefaultTemplateCap
		}
		for _, v := range vs {
			if v.Score > want || len(v.Findings) != 1 || v.Findings[0].Skeleton != f.Skeleton || !slices.Equal(v.FindingNames(), []string{FindingTemplated}) {
				t.Fatalf("cap %v: verdict %+v", cp, v)
			}
			for _, st := range v.PerStep {
				if st.Score > want {
					t.Fatalf("cap %v: step %+v", cp, st)
				}
			}
			if !v.Gates.Compared {
				t.Fatal("the gates changed")
			}
		}
	}
	// Genuine runs are left alone.
	genuine := mixRun(t, 10, 10, genuineThink, nil)
	v := g.Score(genuine[0])
	before := fmt.Sprint(v)
	if _, ok := (TemplateOptions{}).Apply(genuine, []*Verdict{&v}); ok || fmt.Sprint(v) != before {
		t.Fatalf("genuine run capped: %+v", v)
	}
}

// TestEvaluateBatchGroups: EvaluateBatch caps the templated groups as the
// template policy does one group at a time, and recomputes their finals.
func TestEvaluateBatchGroups(t *testing.T) {
	cases := synthCases(t, 60, 8)
	templated := synthTrajectories(t, 20, 8)
	for i := 20; i < 40; i++ {
		tr := *templated[i-20]
		tr.EndReason = cases[i].Trajectory.EndReason
		cases[i].Trajectory = &tr
	}
	assertSameAsOneByOne(t, cases)
	evs := newGrounding(t).EvaluateBatch(t.Context(), cases, BatchOptions{})
	for i, ev := range evs {
		inTemplate := i >= 20 && i < 40
		if ev.Verdict.Has(FindingTemplated) != inTemplate {
			t.Fatalf("case %d (group %s): findings %v", i, cases[i].Group, ev.Verdict.FindingNames())
		}
		if inTemplate && (ev.Verdict.Score != DefaultTemplateCap || ev.Final != scoring.Final(&ev.Metrics, DefaultTemplateCap)) {
			t.Fatalf("case %d: score %v final %v", i, ev.Verdict.Score, ev.Final)
		}
		if success := ev.Metrics.ASR(); inTemplate && ev.Final > 0.65*success+1e-12 {
			t.Fatalf("case %d: templated final %v of success %v, want ≤ 65%%", i, ev.Final, success)
		}
	}
}
