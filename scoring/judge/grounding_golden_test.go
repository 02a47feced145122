package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/episode"
)

// goldenVerdicts is the SHA-256 of the grounding verdicts (JSON, one per
// line) of goldenCorpus. It was first computed by the judge before it was
// optimised for EvaluateBatch (the hand-written reader, tokenizer and
// maps of docs/benchmarks.md, "Reasoning judge benchmarks"), and the
// optimised judge gave byte-identical verdicts
// (d994ef778e667d8cf2a25d5928e7ebd39ee373d533fed563e961fc39584cdb69).
// Issue 15 changed the verdicts on purpose: a step earns credit only when
// it engages with the step it follows and with a constraint of the query,
// and a trajectory whose thinks address the judge forfeits its rungs.
// Old and new trajectory scores, counted per rung:
//
//	random 20,000:        0.3 13434, 0.5 632, 0.7 5931, 0.9 3  →  0.3 17179, 0.5 316, 0.7 2505 (3,843 changed)
//	injection fixtures:   0.3 54, 0.5 54, 0.7 38, 0.9 70        →  0.3 216
//	synthTrajectories 50: 0.9 50                                →  0.9 50 (its fixed line engages; templates are caught across a run, not here)
//	synthCases 50:        0.9 50                                →  0.9 50 (scoringtest's fixed line and query "q" give 0.3 50: no constraint named;
//	                                                                       synthCasesAt now gives them a query and varied thinks)
//
// The hash now pins these verdicts: any other change must be explained
// the same way.
const goldenVerdicts = "22fb01fecf1b70ae8c981db607066bd85820f51a87b78a2c184fe1d56e9fc86c"

// goldenCorpus is a deterministic corpus of trajectories: random ones
// (random thinks over a vocabulary of ids, prices, attribute and title
// words, reason words, joiners and Unicode separators; random results
// with every key the judge reads, nested values, escapes, numbers,
// broken JSON and error observations), the benchmarks' synthetic ones
// and the injection corpus.
func goldenCorpus(tb testing.TB) []*episode.Trajectory {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	var out []*episode.Trajectory
	for i := 0; i < 20000; i++ {
		out = append(out, randTraj(r))
	}
	out = append(out, synthTrajectories(tb, 50, 30)...)
	for _, c := range synthCases(tb, 50, 30) {
		out = append(out, c.Trajectory)
	}
	for _, inj := range injections {
		for _, base := range []string{"Let me think.", "The Nordic stoneware option looks nice", "P100234 at 49.5 and P100777 at 35.25", "P100234 costs more than P100777."} {
			for _, th := range []string{base + " " + inj, inj + base} {
				out = append(out, fixture(tb, th, th))
			}
		}
	}
	return out
}

func verdictsHash(tb testing.TB, score func(*episode.Trajectory) Verdict, corpus []*episode.Trajectory) string {
	tb.Helper()
	h := sha256.New()
	for _, tr := range corpus {
		b, err := json.Marshal(score(tr))
		if err != nil {
			tb.Fatal(err)
		}
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestGroundingGolden(t *testing.T) {
	g := NewGrounding(GroundingOptions{}, zerolog.Nop())
	scores := map[float64]int{}
	corpus := goldenCorpus(t)
	got := verdictsHash(t, func(tr *episode.Trajectory) Verdict {
		v := g.Score(tr)
		scores[v.Score]++
		return v
	}, corpus)
	if got != goldenVerdicts {
		t.Fatalf("verdicts hash %s, want %s: the judge's verdicts changed", got, goldenVerdicts)
	}
	for _, s := range []float64{ScoreNoReference, ScoreNoDatum, ScoreNoCompare, ScoreCompared} {
		if scores[s] < 50 {
			t.Errorf("the corpus has %d verdicts of %.1f: %v", scores[s], s, scores)
		}
	}
}

var goldenVocab = []string{"Acme", "mug", "ceramic", "blue", "porcelain", "teal", "large", "Nordic", "stoneware", "gift", "s77", "S88",
	"P100234", "p100777", "P100234 is cheaper than p100777", "49.5", "49.50", "35.25", "1e3", "1000", "22", "0.9", "1.0", "12", "012",
	"cheaper", "than", "because", "and", "the", "vs", "x-1", "sku_12", "a/b", "ÄÖ", "\u2028", "。", "\u200b", "！", "price", "shop",
	strings.Repeat("z", 100)}

func randWord(r *rand.Rand) string { return goldenVocab[r.IntN(len(goldenVocab))] }

func randThink(r *rand.Rand) string {
	var b strings.Builder
	seps := []string{" ", ", ", ". ", "; ", "\n", "", "-", "_", "/", ".", "! ", "? ", " (", ") "}
	for i := r.IntN(25); i > 0; i-- {
		b.WriteString(randWord(r))
		b.WriteString(seps[r.IntN(len(seps))])
	}
	return b.String()
}

func randValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(9); {
	case k < 3:
		s := randWord(r)
		if r.IntN(4) == 0 {
			s += " " + randWord(r)
		}
		if r.IntN(10) == 0 {
			s += `"\` + randWord(r)
		}
		return s
	case k < 5:
		return []float64{49.5, 35.25, 1000, 22, 12, 0.9, 1e21, -3}[r.IntN(8)]
	case k == 5 && depth < 4:
		var a []any
		for i := r.IntN(4); i > 0; i-- {
			a = append(a, randValue(r, depth+1))
		}
		return a
	case k == 6 && depth < 4:
		return randObj(r, depth+1)
	case k == 7:
		return r.IntN(2) == 0
	}
	return nil
}

var goldenKeys = []string{"product_id", "shop_id", "price", "attributes", "sku_options", "title", "brand", "category", "description", "service", "Product_ID", "x"}

func randObj(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for i := r.IntN(7); i > 0; i-- {
		switch k := goldenKeys[r.IntN(len(goldenKeys))]; k {
		case "attributes":
			m[k] = map[string]any{randWord(r): []string{randWord(r), randWord(r)}}
		case "sku_options":
			m[k] = []map[string]any{{randWord(r): randWord(r)}, {"size": randValue(r, depth+1)}}
		default:
			m[k] = randValue(r, depth)
		}
	}
	return m
}

func randResult(r *rand.Rand) json.RawMessage {
	var v any
	if r.IntN(2) == 0 {
		var a []any
		for i := r.IntN(5); i > 0; i-- {
			a = append(a, randObj(r, 0))
		}
		v = a
	} else {
		v = randObj(r, 0)
	}
	b, _ := json.Marshal(v)
	if r.IntN(20) == 0 && len(b) > 2 {
		b = b[:r.IntN(len(b))] // broken
	}
	if r.IntN(20) == 0 {
		b = []byte(strings.ReplaceAll(string(b), `"`, `\"`))
	}
	return b
}

func randTraj(r *rand.Rand) *episode.Trajectory {
	tr := &episode.Trajectory{Query: randThink(r)}
	for s := r.IntN(7); s > 0; s-- {
		st := episode.StepRecord{Think: randThink(r)}
		for k := r.IntN(3); k > 0; k-- {
			res := episode.ToolResult{Result: randResult(r)}
			if r.IntN(8) == 0 {
				res.Error = &episode.ToolError{Code: "x"}
			}
			st.Results = append(st.Results, res)
		}
		tr.Steps = append(tr.Steps, st)
	}
	return tr
}

// priceNumberDefinition is priceNumber without its integer fast path.
func priceNumberDefinition(w string) (string, bool) {
	if w == "" || w[0] < '0' || w[0] > '9' {
		return "", false
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil || strings.Trim(w, "0123456789.") != "" || len(strings.ReplaceAll(w, ".", "")) < 2 || f < 1 {
		return "", false
	}
	if !strings.Contains(w, ".") && w[0] != '0' {
		return w, true
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

func TestPriceNumberFastPath(t *testing.T) {
	for _, w := range []string{"", "0", "1", "9", "10", "99", "012", "0.9", "1.0", "49.5", "49.50", "1000", "1e3", "1.2.3", "12a",
		strings.Repeat("9", 299), strings.Repeat("9", 300), strings.Repeat("9", 301), strings.Repeat("9", 309), strings.Repeat("9", 400), "1" + strings.Repeat("0", 308)} {
		n, ok := priceNumber(w)
		wn, wok := priceNumberDefinition(w)
		if n != wn || ok != wok {
			t.Errorf("priceNumber(%.20q) = %q %v, want %q %v", w, n, ok, wn, wok)
		}
	}
}
