package judge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"arena/episode"
	"arena/internal/testseed"
)

// The labelled corpus: trajectories of miners of known kinds in a small
// shop, built from a seed, for the confusion-matrix tests of both judges
// and as the think text of the benchmarks' synthetic episodes.

// testSeed is the seed of a random test (testseed.Seed: ARENATEST_SEED
// replays one).
func testSeed(t *testing.T) uint64 {
	t.Helper()
	return testseed.Seed(t)
}

// Labels of the corpus.
const (
	labelGenuine      = "genuine"       // varied reasoning that engages with each step
	labelTemplated    = "templated"     // one fixed line, grounded, on every step of every problem
	labelNearTemplate = "near-template" // the fixed line with an optional clause
	labelHallucinated = "hallucinated"  // varied reasoning about ids and prices never shown
	labelInjected     = "injected"      // genuine reasoning with text addressing the judge
	labelUnanchored   = "unanchored"    // varied comparisons of the results that never name the request
	labelStale        = "stale"         // varied reasoning about the results before the previous step's
	labelGeneric      = "generic"       // a thought that would fit any step
	labelEmpty        = "empty"         // no thinking
)

var corpusLabels = []string{labelGenuine, labelTemplated, labelNearTemplate, labelHallucinated, labelInjected, labelUnanchored, labelStale, labelGeneric, labelEmpty}

// item is a product of the corpus shop.
type item struct {
	id, shop, title, color, material string
	price                            float64
}

// wish is what a corpus problem asks for.
type wish struct {
	kind, color, material string
	under                 int
}

var (
	corpusKinds     = []string{"mug", "kettle", "backpack", "lamp", "blender", "umbrella", "notebook", "headphones", "sneakers", "jacket"}
	corpusColors    = []string{"red", "teal", "black", "white", "green", "yellow", "navy", "pink"}
	corpusMaterials = []string{"ceramic", "steel", "canvas", "leather", "bamboo", "glass", "cotton", "plastic"}
	corpusBrands    = []string{"Acme", "Nordic", "Zenith", "Orbit", "Maple", "Lumen", "Koru", "Vela", "Tamsin", "Brio", "Quill", "Halden",
		"Pike", "Sorrel", "Umber", "Wren", "Yarrow", "Cobalt", "Delta", "Ember"}
	corpusVariants = []string{"Classic", "Pro", "Lite", "Plus", "Mini", "Max", "Air", "Duo", "Go", "Prime"}
)

func corpusWish(r *rand.Rand) wish {
	return wish{kind: pickOf(r, corpusKinds), color: pickOf(r, corpusColors), material: pickOf(r, corpusMaterials), under: 40 + 10*r.IntN(12)}
}

func pickOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (w wish) query(r *rand.Rand) string {
	forms := []string{
		"I need a %s %s in %s, under %d pesos.",
		"Looking for a %[2]s %[1]s (%[3]s) for at most %[4]d.",
		"Can you find me a %[3]s %[2]s %[1]s? Budget %[4]d.",
		"Please help me buy a %[1]s %[2]s, colour %[3]s, below %[4]d pesos.",
	}
	return fmt.Sprintf(pickOf(r, forms), w.material, w.kind, w.color, w.under)
}

// corpusItems is one search's results: n products of the wished kind,
// with ids unique to the problem and step and prices not in used (a
// price shown twice would let a think about the older results name the
// newer ones).
func corpusItems(r *rand.Rand, w wish, problem, step, n int, used map[float64]bool) []item {
	out := make([]item, n)
	for k := range out {
		out[k] = item{
			id:       fmt.Sprintf("P%03d%02d%d%d", problem, step, k, r.IntN(10)),
			shop:     fmt.Sprintf("s%d", 100+r.IntN(900)),
			title:    fmt.Sprintf("%s %s %s %s", pickOf(r, corpusBrands), strings.ToUpper(w.material[:1])+w.material[1:], strings.ToUpper(w.kind[:1])+w.kind[1:], pickOf(r, corpusVariants)),
			color:    pickOf(r, corpusColors),
			material: pickOf(r, corpusMaterials),
			price:    float64(1500+r.IntN(9000)) / 100,
		}
		for out[k].price == float64(w.under) || used[out[k].price] { // the budget's number names the constraint
			out[k].price += 0.01
		}
		used[out[k].price] = true
	}
	return out
}

func itemsJSON(tb testing.TB, items []item) json.RawMessage {
	tb.Helper()
	out := make([]map[string]any, len(items))
	for k, it := range items {
		out[k] = map[string]any{"product_id": it.id, "shop_id": it.shop, "title": it.title, "price": it.price,
			"attributes": map[string][]string{"material": {it.material}}, "sku_options": map[string]map[string]string{"1": {"color": it.color}},
			"service": []string{"COD"}}
	}
	b, err := json.Marshal(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func fmtP(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// thinker writes the thinks of one miner kind: at step, after prev (the
// previous step's products) and older (those of the step before).
type thinker func(r *rand.Rand, w wish, step int, prev, older []item) string

// genuineThink is varied reasoning about the previous step's results:
// it names two of them, compares them with a reason, and ties them to
// the request, in sentences drawn and ordered at random.
func genuineThink(r *rand.Rand, w wish, step int, prev, _ []item) string {
	if step == 0 {
		return pickOf(r, []string{
			fmt.Sprintf("First I search the catalog for a %s %s.", w.material, w.kind),
			fmt.Sprintf("Let me start with a query for %s, then narrow to %s ones.", w.kind, w.color),
			fmt.Sprintf("The shopper wants something %s below %d; a plain search comes first.", w.material, w.under),
			fmt.Sprintf("Plan: look up %s items, check colour and price, recommend one.", w.kind),
			fmt.Sprintf("Searching %s with the word %s.", w.kind, w.material),
		})
	}
	if len(prev) == 0 {
		return pickOf(r, []string{
			fmt.Sprintf("That search returned nothing, so I'll try a broader %s query.", w.kind),
			fmt.Sprintf("No results came back; maybe %s is too narrow, dropping it.", w.color),
			fmt.Sprintf("Empty page. Retrying the %s search without the material.", w.kind),
		})
	}
	if len(prev) == 1 {
		a := prev[0]
		return pickOf(r, []string{
			fmt.Sprintf("The page for %s says %s and %s; the request was %s, so it is close.", a.id, a.material, a.color, w.color),
			fmt.Sprintf("%s is %s at %s, inside the %d limit.", a.id, a.material, fmtP(a.price), w.under),
			fmt.Sprintf("Details: %s from shop %s, colour %s. Good enough for a %s?", a.id, a.shop, a.color, w.kind),
		})
	}
	a, b := prev[0], prev[len(prev)-1]
	if len(prev) > 2 {
		i := r.IntN(len(prev))
		j := (i + 1 + r.IntN(len(prev)-1)) % len(prev)
		a, b = prev[i], prev[j]
	}
	if a.price > b.price {
		a, b = b, a
	}
	cmp := []string{
		fmt.Sprintf("%s at %s is cheaper than %s at %s.", a.id, fmtP(a.price), b.id, fmtP(b.price)),
		fmt.Sprintf("%s costs %s, so it undercuts %s by a fair margin.", a.id, fmtP(a.price), b.id),
		fmt.Sprintf("Between %s and %s I lean to %s because %s beats %s.", b.id, a.id, a.id, fmtP(a.price), fmtP(b.price)),
		fmt.Sprintf("Comparing %s (%s) with %s (%s): the first is lower.", a.id, fmtP(a.price), b.id, fmtP(b.price)),
		fmt.Sprintf("%s is listed as %s while %s is %s.", a.id, a.material, b.id, b.material),
		fmt.Sprintf("I would rather take %s over %s since it comes in %s.", a.id, b.id, a.color),
		fmt.Sprintf("Of the two, %s wins on price versus %s, and shop %s sells it.", a.id, b.id, a.shop),
	}
	fit := []string{
		fmt.Sprintf("The limit is %d, which %s respects.", w.under, fmtP(a.price)),
		fmt.Sprintf("We need %s material.", w.material),
		fmt.Sprintf("Colour matters: %s was requested.", w.color),
		fmt.Sprintf("Anything over %d is out.", w.under),
		fmt.Sprintf("Still has to be a %s.", w.kind),
		fmt.Sprintf("A %s %s is the goal.", w.color, w.kind),
	}
	next := []string{
		fmt.Sprintf("Opening %s to read its options.", a.id),
		"I'll check the details before deciding.",
		fmt.Sprintf("Next: view %s.", a.id),
		"Maybe another page has a closer match.",
		fmt.Sprintf("If the details hold up I recommend %s.", a.id),
		"",
		"",
	}
	openers := []string{"", "", "Okay.", "Hmm,", "Looking at these,", "Right:", "From that list,", "Two stand out."}
	parts := []string{pickOf(r, cmp), pickOf(r, fit)}
	if s := pickOf(r, next); s != "" {
		parts = append(parts, s)
	}
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	if o := pickOf(r, openers); o != "" {
		parts = append([]string{o}, parts...)
	}
	return strings.Join(parts, " ")
}

// templatedThink is the fixed line of issue 15: two observed ids, a
// price and "cheaper than", on every step of every problem.
func templatedThink(_ *rand.Rand, w wish, step int, prev, _ []item) string {
	if step == 0 || len(prev) < 2 {
		return fmt.Sprintf("Searching for a %s %s.", w.material, w.kind)
	}
	return fmt.Sprintf("Product %s costs %s, cheaper than %s, so it fits the %s request.", prev[0].id, fmtP(prev[0].price), prev[1].id, w.kind)
}

// nearTemplateThink is the fixed line with an optional clause: no two
// skeletons need be equal, yet the thinks are one template.
func nearTemplateThink(r *rand.Rand, w wish, step int, prev, _ []item) string {
	if step == 0 || len(prev) < 2 {
		return fmt.Sprintf("Searching for a %s %s now.", w.material, w.kind)
	}
	extra := ""
	if r.IntN(2) == 0 {
		extra = " and it ships today"
	}
	return fmt.Sprintf("Product %s costs %s, cheaper than %s%s, so it fits the %s request.", prev[0].id, fmtP(prev[0].price), prev[1].id, extra, w.kind)
}

// hallucinatedThink is genuine in form but about products and prices
// the validator never showed.
func hallucinatedThink(r *rand.Rand, w wish, step int, prev, _ []item) string {
	fake := make([]item, 2)
	for k := range fake {
		fake[k] = item{id: fmt.Sprintf("Q%07d", r.IntN(1e7)), shop: fmt.Sprintf("x%d", r.IntN(99)), color: w.color, material: "unobtainium",
			price: float64(11+r.IntN(80)) + 0.375}
	}
	if step == 0 {
		return genuineThink(r, w, 0, nil, nil)
	}
	return genuineThink(r, w, step, fake, nil)
}

// injectedThink is genuine reasoning with an injection that addresses
// the judge (one a gullible model obeys) before or after it.
func injectedThink(r *rand.Rand, w wish, step int, prev, _ []item) string {
	var asks []string
	for _, inj := range injections {
		if obeyed.MatchString(readAsModel(inj)) {
			asks = append(asks, inj)
		}
	}
	if r.IntN(2) == 0 {
		return pickOf(r, asks) + " " + genuineThink(r, w, step, prev, nil)
	}
	return genuineThink(r, w, step, prev, nil) + " " + pickOf(r, asks)
}

// unanchoredThink compares the previous results in varied words but
// never ties them to what the shopper asked for.
func unanchoredThink(r *rand.Rand, w wish, step int, prev, _ []item) string {
	if step == 0 || len(prev) < 2 {
		return pickOf(r, []string{"Searching.", "Let me look around.", "Trying a search.", "Another query then."})
	}
	a, b := prev[0], prev[1]
	return pickOf(r, []string{
		fmt.Sprintf("%s at %s is cheaper than %s.", a.id, fmtP(a.price), b.id),
		fmt.Sprintf("Between %s and %s I lean to %s because of %s.", b.id, a.id, a.id, fmtP(a.price)),
		fmt.Sprintf("Okay, %s beats %s, it costs %s.", a.id, b.id, fmtP(a.price)),
		fmt.Sprintf("Comparing %s (%s) with %s: the first wins.", a.id, fmtP(a.price), b.id),
		fmt.Sprintf("%s versus %s: I prefer the one at %s.", a.id, b.id, fmtP(a.price)),
	})
}

// staleThink compares, in varied words and with the request, the
// products of the step before the previous one that the previous step
// did not show again: it would fit after any later step.
func staleThink(r *rand.Rand, w wish, step int, prev, older []item) string {
	var gone []item // not shown again by the previous step
	for _, it := range older {
		if !slices.ContainsFunc(prev, func(p item) bool { return p.id == it.id }) {
			gone = append(gone, it)
		}
	}
	if len(gone) < 2 {
		return genuineThink(r, w, 0, nil, nil)
	}
	// Ids and prices only: a colour or material word could also be in
	// the previous step's results, which would be engaging with them.
	return unanchoredThink(r, w, step, gone, nil) + " " + pickOf(r, []string{
		fmt.Sprintf("We need %s material.", w.material),
		fmt.Sprintf("Still has to be a %s.", w.kind),
		fmt.Sprintf("Anything over %d is out.", w.under),
	})
}

// genericThink would fit any step of any problem.
func genericThink(r *rand.Rand, w wish, _ int, _, _ []item) string {
	return pickOf(r, []string{
		fmt.Sprintf("Let me look at the results and pick the best %s.", w.kind),
		fmt.Sprintf("I compare the options carefully because the cheaper %s is better.", w.kind),
		fmt.Sprintf("Checking which %s fits the request best.", w.kind),
	})
}

func emptyThink(*rand.Rand, wish, int, []item, []item) string { return "" }

var corpusThinkers = map[string]thinker{
	labelGenuine: genuineThink, labelTemplated: templatedThink, labelNearTemplate: nearTemplateThink,
	labelHallucinated: hallucinatedThink, labelInjected: injectedThink, labelUnanchored: unanchoredThink, labelStale: staleThink,
	labelGeneric: genericThink, labelEmpty: emptyThink,
}

// corpusTrajectory is one problem solved by a miner that thinks with th:
// searches (one empty in five), a view of the cheapest result, and a
// recommendation.
func corpusTrajectory(tb testing.TB, r *rand.Rand, th thinker, problem int) *episode.Trajectory {
	tb.Helper()
	w := corpusWish(r)
	tr := &episode.Trajectory{ProblemID: fmt.Sprintf("prob-%d", problem), Query: w.query(r), EndReason: episode.ReasonTerminated}
	steps := 4 + r.IntN(4)
	var prev, older []item
	used := map[float64]bool{}
	for s := 0; s < steps; s++ {
		think := th(r, w, s, prev, older)
		older = prev
		st := episode.StepRecord{Think: think}
		call := func(name, params string) {
			st.ToolCalls = append(st.ToolCalls, episode.ToolCall{ID: fmt.Sprint(s), Name: name, Parameters: json.RawMessage(params)})
		}
		switch {
		case s == steps-1:
			id := "P0"
			if len(prev) > 0 {
				id = prev[0].id
			}
			call("recommend_product", fmt.Sprintf(`{"product_ids":%q}`, id))
			st.Results = []episode.ToolResult{{ToolCallID: fmt.Sprint(s), Result: json.RawMessage(`"Having recommended the products to the user."`)}}
			prev = nil
		case s > 0 && s%3 == 0 && len(prev) > 0:
			call("view_product_information", fmt.Sprintf(`{"product_ids":%q}`, prev[0].id))
			prev = prev[:1]
			st.Results = []episode.ToolResult{{ToolCallID: fmt.Sprint(s), Result: itemsJSON(tb, prev)}}
		case r.IntN(5) == 0 && s > 0:
			call("find_product", fmt.Sprintf(`{"q":%q}`, w.kind+" rare"))
			prev = nil
			st.Results = []episode.ToolResult{{ToolCallID: fmt.Sprint(s), Result: json.RawMessage(`[]`)}}
		default:
			call("find_product", fmt.Sprintf(`{"q":%q}`, w.kind))
			prev = corpusItems(r, w, problem, s, 3+r.IntN(4), used)
			st.Results = []episode.ToolResult{{ToolCallID: fmt.Sprint(s), Result: itemsJSON(tb, prev)}}
		}
		tr.Steps = append(tr.Steps, st)
	}
	return tr
}

// corpusMiner is one miner's run: problems trajectories of one label.
type corpusMiner struct {
	label string
	trajs []*episode.Trajectory
}

// buildCorpus makes miners runs of problems trajectories per label.
func buildCorpus(tb testing.TB, seed uint64, miners, problems int) []corpusMiner {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 15))
	var out []corpusMiner
	for _, label := range corpusLabels {
		for m := 0; m < miners; m++ {
			cm := corpusMiner{label: label}
			for p := 0; p < problems; p++ {
				cm.trajs = append(cm.trajs, corpusTrajectory(tb, r, corpusThinkers[label], p))
			}
			out = append(out, cm)
		}
	}
	return out
}

// readAsModel is what a model reads in a think: fullwidth forms as ASCII,
// invisible characters gone, common Cyrillic look-alikes as Latin,
// lowercase. (The test's own reading, not the judge's screen.)
func readAsModel(s string) string {
	cyr := map[rune]rune{'і': 'i', 'о': 'o', 'е': 'e', 'с': 'c', 'а': 'a', 'р': 'p', 'І': 'i'}
	return strings.ToLower(strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r):
			return -1
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFEE0
		}
		if l, ok := cyr[r]; ok {
			return l
		}
		return r
	}, s))
}

// obeyed are the requests a gullible model follows: a score stated after
// "score", "rate" or "grade", gates declared passed, an order to ignore
// its instructions, a verdict or praise addressed to it.
var obeyed = regexp.MustCompile(`(score|rate|grade)\W{0,4}(of\W+|is\W+|to\W+)?\d|gates?\W+(\d\W+)?pass|=pass|ignore\W+(all\W+)?(previous|prior|the rubric)|"compared"\s*:\s*true|grounded every step|grades this as excellent|developer mode`)
