package miner

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"arena/episode"
)

// HeuristicOptions configure the heuristic agent.
type HeuristicOptions struct {
	// Skill in [0, 1]: 1 is the full strategy; lower values search fewer
	// pages, view fewer candidates, skip constraint checks, pick at random
	// more often and think less.
	Skill float64
}

// Heuristic is a rule-based shopping agent. It is stateless: each step is
// decided from the episode view alone, so one value serves any number of
// concurrent episodes.
type Heuristic struct {
	skill float64
}

// NewHeuristic builds the agent.
func NewHeuristic(opts HeuristicOptions) (*Heuristic, error) {
	if opts.Skill < 0 || opts.Skill > 1 {
		return nil, fmt.Errorf("heuristic agent: skill %g out of range 0..1", opts.Skill)
	}
	return &Heuristic{skill: opts.Skill}, nil
}

// candidate is a product the agent has seen in search results.
type candidate struct {
	ID       string   `json:"product_id"`
	ShopID   string   `json:"shop_id"`
	Title    string   `json:"title"`
	Price    float64  `json:"price"`
	Services []string `json:"service"`
	Sold     int64    `json:"sold_count"`
	details  string   // viewed attributes, SKU values and descriptions, lower-cased
	viewed   bool
}

// progress is what the history shows the agent has done so far.
type progress struct {
	pages       int // find_product calls made
	lastFull    bool
	filtered    bool // the searches used price/service filters
	unfiltered  bool // a retry without filters was made
	candidates  []*candidate
	byID        map[string]*candidate
	viewed      bool
	recommended bool
}

func readProgress(v episode.EpisodeView) progress {
	p := progress{byID: map[string]*candidate{}}
	for _, turn := range v.History {
		for i, call := range turn.Action.ToolCalls {
			if i >= len(turn.Results) {
				break
			}
			res := turn.Results[i]
			switch call.Name {
			case "find_product":
				var args map[string]any
				_ = json.Unmarshal(call.Parameters, &args)
				if _, ok := args["price"]; ok {
					p.filtered = true
				} else if _, ok := args["service"]; ok {
					p.filtered = true
				} else if p.filtered {
					p.unfiltered = true
				}
				p.pages++
				var items []*candidate
				if res.Error == nil {
					_ = json.Unmarshal(res.Result, &items)
				}
				p.lastFull = len(items) == 10
				for _, c := range items {
					if c.ID != "" && p.byID[c.ID] == nil {
						p.byID[c.ID] = c
						p.candidates = append(p.candidates, c)
					}
				}
			case "view_product_information":
				p.viewed = true
				var infos []map[string]json.RawMessage
				if res.Error == nil {
					_ = json.Unmarshal(res.Result, &infos)
				}
				for _, info := range infos {
					var id string
					_ = json.Unmarshal(info["product_id"], &id)
					if c := p.byID[id]; c != nil {
						c.viewed = true
						c.details = strings.ToLower(string(info["attributes"]) + " " + string(info["sku_options"]) + " " + string(info["short_description"]))
					}
				}
			case "recommend_product":
				if res.Error == nil {
					p.recommended = true
				}
			}
		}
	}
	return p
}

func (h *Heuristic) pagesWanted() int { return 1 + int(h.skill*2+0.5) }
func (h *Heuristic) viewsWanted() int { return max(1, int(h.skill*10+0.5)) }
func (h *Heuristic) checks() bool     { return h.skill >= 0.5 }

// Step implements episode.Agent.
func (h *Heuristic) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	in := ParseQuery(v.Query)
	p := readProgress(v)
	n := len(v.History)
	call := func(name string, args map[string]any) []episode.ToolCall {
		raw, _ := json.Marshal(args)
		return []episode.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: name, Parameters: raw}}
	}
	stepsLeft := v.Limits.MaxSteps - n
	query := strings.Join(in.Words, " ")
	if query == "" {
		query = v.Query
	}
	search := func(page int, filtered bool) map[string]any {
		args := map[string]any{"q": query, "page": page}
		if filtered && h.checks() {
			if pr := in.PriceArg(); pr != "" {
				args["price"] = pr
			}
			if len(in.Services) > 0 {
				args["service"] = strings.Join(in.Services, ",")
			}
		}
		return args
	}
	switch {
	case p.recommended || stepsLeft <= 1:
		status := "success"
		if !p.recommended {
			status = "failure"
		}
		return episode.Action{Think: "The recommendation is made; ending the task.", ToolCalls: call("terminate", map[string]any{"status": status})}, nil
	case p.pages == 0:
		args := search(1, true)
		think := fmt.Sprintf("The user wants %q.", query)
		if h.checks() {
			think += describeConstraints(in)
		}
		return episode.Action{Think: think + " I will search first.", ToolCalls: call("find_product", args)}, nil
	case len(p.candidates) == 0 && p.filtered && !p.unfiltered:
		return episode.Action{Think: "The filtered search returned nothing; I will search again without filters and check constraints myself.", ToolCalls: call("find_product", search(1, false))}, nil
	case len(p.candidates) == 0:
		return episode.Action{Think: "No product matches the request.", ToolCalls: call("terminate", map[string]any{"status": "failure"})}, nil
	case p.pages < h.pagesWanted() && p.lastFull && stepsLeft > 3:
		page := p.pages + 1
		if p.unfiltered {
			page = p.pages // the first, filtered page returned nothing
		}
		return episode.Action{Think: fmt.Sprintf("Page %d gave %d candidates so far; looking at page %d for better matches.", p.pages, len(p.candidates), page), ToolCalls: call("find_product", search(page, !p.unfiltered))}, nil
	}
	ranked := h.rank(in, p.candidates)
	if !p.viewed && stepsLeft > 2 {
		k := min(h.viewsWanted(), len(ranked), 20)
		ids := make([]string, k)
		for i := range ids {
			ids[i] = ranked[i].c.ID
		}
		think := "Top candidates by title match: " + h.cite(ranked[:k], in) + ". Viewing their details to check attributes and options."
		return episode.Action{Think: think, ToolCalls: call("view_product_information", map[string]any{"product_ids": strings.Join(ids, ",")})}, nil
	}
	pick := 0
	rng := rand.New(rand.NewPCG(seed(v.EpisodeID), 1))
	if rng.Float64() < (1-h.skill)*0.7 {
		pick = rng.IntN(min(len(ranked), 10))
	}
	best := ranked[pick]
	think := fmt.Sprintf("I recommend %s (%s, price %s).", best.c.ID, clip(best.c.Title, 80), fmtPrice(best.c.Price))
	if h.skill >= 0.5 && len(ranked) > 1 {
		other := ranked[1]
		if pick != 0 {
			other = ranked[0]
		}
		think = fmt.Sprintf("Comparing %s (%s, price %s, %d/%d query words matched) with %s (%s, price %s, %d/%d): %s fits the request better because it matches more of the requested words and constraints. %s",
			best.c.ID, clip(best.c.Title, 60), fmtPrice(best.c.Price), best.hits, len(in.Words),
			other.c.ID, clip(other.c.Title, 60), fmtPrice(other.c.Price), other.hits, len(in.Words),
			best.c.ID, think)
	}
	return episode.Action{Think: think, ToolCalls: call("recommend_product", map[string]any{"product_ids": best.c.ID})}, nil
}

type scored struct {
	c     *candidate
	score float64
	hits  int
}

// rank orders candidates by query words matched (title and viewed
// details), then by constraints met, then by sales.
func (h *Heuristic) rank(in Intent, cs []*candidate) []scored {
	out := make([]scored, len(cs))
	for i, c := range cs {
		text := strings.ToLower(c.Title) + " " + c.details
		hits := 0
		for _, w := range in.Words {
			if strings.Contains(text, w) {
				hits++
			}
		}
		// Near-duplicate listings share the query's words; the one whose
		// title adds the fewest other words is the closest match.
		extra := 0
		for _, w := range reWord.FindAllString(strings.ToLower(c.Title), -1) {
			if !slices.Contains(in.Words, strings.Trim(w, ".-'")) {
				extra++
			}
		}
		// Listings of one item often differ only in word order: prefer
		// the title that keeps the query's word pairs.
		title := " " + strings.Join(reWord.FindAllString(strings.ToLower(c.Title), -1), " ") + " "
		pairs := 0
		for i := 1; i < len(in.Words); i++ {
			if strings.Contains(title, " "+in.Words[i-1]+" "+in.Words[i]+" ") {
				pairs++
			}
		}
		s := float64(hits) - 0.1*float64(extra) + 0.05*float64(pairs)
		if h.checks() {
			if in.PriceHi > 0 && c.Price > in.PriceHi || in.PriceLo > 0 && c.Price < in.PriceLo {
				s -= 5
			}
			for _, want := range in.Services {
				if !slices.Contains(c.Services, want) {
					s -= 3
				}
			}
		}
		out[i] = scored{c: c, score: s, hits: hits}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		switch {
		case a.score != b.score:
			if a.score > b.score {
				return -1
			}
			return 1
		case a.c.Sold != b.c.Sold:
			if a.c.Sold > b.c.Sold {
				return -1
			}
			return 1
		}
		return strings.Compare(a.c.ID, b.c.ID)
	})
	return out
}

func (h *Heuristic) cite(ss []scored, in Intent) string {
	parts := make([]string, 0, len(ss))
	for _, s := range ss {
		if h.skill < 0.5 {
			parts = append(parts, s.c.ID)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s at %s from shop %s (%d/%d words)", s.c.ID, fmtPrice(s.c.Price), s.c.ShopID, s.hits, len(in.Words)))
	}
	return strings.Join(parts, "; ")
}

func describeConstraints(in Intent) string {
	var parts []string
	if in.PriceHi > 0 || in.PriceLo > 0 {
		parts = append(parts, "price "+in.PriceArg())
	}
	if len(in.Services) > 0 {
		parts = append(parts, "services "+strings.Join(in.Services, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " Constraints: " + strings.Join(parts, "; ") + "."
}

func fmtPrice(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func seed(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
