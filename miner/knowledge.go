package miner

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"arena/episode"
	kb "arena/knowledge"
)

// Knowledge tasks (ShoppingBench's web_simpleqa) ask a question first and
// then for a product that carries its answer: "Which brand of audio
// products was founded in Bergen in 1987? I want to buy a bluetooth
// speaker from that brand." The heuristic looks the question up with
// web_search, takes the answer from the first result, and continues with
// the purchase request rewritten to name it ("I want to buy a Kovix
// bluetooth speaker."), which it then solves as a product task.

// references are the ways a request points back at the answer; the
// rewrite drops them once the answer is named.
var references = []string{
	"from that brand", "from this brand", "by that brand", "made by them", "by that company", "from that company",
	"from that maker", "from them", "with that feature", "with this feature", "with this technology", "that has it",
	"labelled with it", "that lists it in the title", "with this",
}

var reArticle = regexp.MustCompile(`(?i)\b(a|an|some)\s+`)

// nameAnswer rewrites the request to name the answer: the reference to it
// is dropped and the answer goes before the first item, after its
// article, or in front when there is none.
func nameAnswer(request, answer string) string {
	lower := strings.ToLower(request)
	for _, ref := range references {
		if i := strings.Index(lower, ref); i >= 0 {
			request = strings.TrimRight(request[:i], " ,") + request[i+len(ref):]
			break
		}
	}
	if loc := reArticle.FindStringIndex(request); loc != nil {
		return request[:loc[1]] + answer + " " + request[loc[1]:]
	}
	return answer + " " + request
}

// answerOf reads the answer a web_search result states: the lead of the
// first result's title, before its " - " (pages name their subject
// first, as encyclopedia pages do), or "" when the title has no such
// lead of at most four words.
func answerOf(results json.RawMessage) string {
	var rs []struct {
		Title string `json:"title"`
	}
	if json.Unmarshal(results, &rs) != nil || len(rs) == 0 {
		return ""
	}
	lead, _, ok := strings.Cut(rs[0].Title, " - ")
	if lead = strings.TrimSpace(lead); !ok || lead == "" || len(strings.Fields(lead)) > 4 {
		return ""
	}
	return lead
}

// lookUp handles the knowledge part of a task: for a knowledge query it
// either returns the web_search step to take, or, once the history holds
// that search, rewrites v.Query into the request naming the answer. ok is
// true when the returned action must be sent.
func (h *Heuristic) lookUp(v *episode.EpisodeView) (act episode.Action, ok bool) {
	question, request, isKnowledge := kb.SplitQuestion(v.Query)
	if !isKnowledge {
		return episode.Action{}, false
	}
	for _, turn := range v.History {
		for i, call := range turn.Action.ToolCalls {
			if call.Name != "web_search" || i >= len(turn.Results) || turn.Results[i].Error != nil {
				continue
			}
			if answer := answerOf(turn.Results[i].Result); answer != "" {
				v.Query = nameAnswer(request, answer)
			} else {
				v.Query = request
			}
			return episode.Action{}, false
		}
	}
	n := len(v.History)
	if n > 0 || v.Limits.MaxSteps > 0 && v.Limits.MaxSteps < 3 {
		// The search failed, or there is no room for it: go on without
		// the fact.
		v.Query = request
		return episode.Action{}, false
	}
	think := fmt.Sprintf("The request depends on a fact the catalog does not state, so I look it up first: %q. "+
		"Then I search the catalog for what it names.", question)
	return episode.Action{Think: think, ToolCalls: calls(n, "web_search", map[string]any{"q": question})}, true
}
