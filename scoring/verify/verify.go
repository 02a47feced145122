package verify

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"arena/episode"
	"arena/shop"
)

// Finding names.
const (
	Unverified = "unverified"
	Dictated   = "dictated"
)

// Issue is one step that failed a check.
type Issue struct {
	Step   int    `json:"step"` // 0-based
	Reason string `json:"reason"`
}

// Report is the verification of one trajectory.
type Report struct {
	Steps      int     `json:"steps"`
	Verified   int     `json:"verified"`
	Unverified []Issue `json:"unverified,omitempty"`
	Dictated   []Issue `json:"dictated,omitempty"`
}

// OK reports whether every step verified and none was dictated.
func (r Report) OK() bool { return len(r.Unverified) == 0 && len(r.Dictated) == 0 }

// Detail is a one-line summary of the issues of kind name.
func Detail(issues []Issue) string {
	var b strings.Builder
	for i, is := range issues {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(issues)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "step %d: %s", is.Step, is.Reason)
	}
	return b.String()
}

// Steps lists the issues' steps, 0-based.
func Steps(issues []Issue) []int {
	out := make([]int, len(issues))
	for i, is := range issues {
		out[i] = is.Step
	}
	return out
}

// Check verifies every step of t (see the package documentation).
func Check(t *episode.Trajectory) Report {
	rep := Report{Steps: len(t.Steps)}
	if len(t.Steps) == 0 {
		return rep
	}
	if t.Protocol < episode.Version2 || t.Relay == nil {
		why := "protocol version 1: the step names no relay completion"
		if t.Protocol >= episode.Version2 {
			why = "the validator offered no relay"
		}
		for i := range t.Steps {
			rep.Unverified = append(rep.Unverified, Issue{Step: i, Reason: why})
		}
		return rep
	}
	used := map[string]int{}
	var earlier []string // texts of earlier completions, for the dictation check
	for i := range t.Steps {
		c, reason := checkStep(t, i, used)
		if reason != "" {
			rep.Unverified = append(rep.Unverified, Issue{Step: i, Reason: reason})
			continue
		}
		used[c.ID] = i
		norm, _ := episode.StepFromCompletion(c.Response) // checked in checkStep
		if why := dictated(t, c, &norm, earlier); why != "" {
			rep.Dictated = append(rep.Dictated, Issue{Step: i, Reason: why})
		}
		earlier = append(earlier, norm.Think, norm.Response, completionContent(c.Response))
		rep.Verified++
	}
	return rep
}

func checkStep(t *episode.Trajectory, i int, used map[string]int) (*episode.Completion, string) {
	st := &t.Steps[i]
	if st.CompletionID == "" {
		return nil, "the step names no completion"
	}
	c, ok := t.CompletionByID(st.CompletionID)
	if !ok {
		return nil, fmt.Sprintf("completion %s was not relayed in this episode", episode.ClipText(st.CompletionID, 40))
	}
	if prev, dup := used[c.ID]; dup {
		return nil, fmt.Sprintf("completion %s already backs step %d", c.ID, prev)
	}
	if c.Error != "" || len(c.Response) == 0 {
		return nil, fmt.Sprintf("completion %s failed (%s)", c.ID, c.Error)
	}
	if c.Observations != i {
		return nil, fmt.Sprintf("completion %s was requested after observation %d, not after the step's previous observation %d", c.ID, c.Observations, i)
	}
	norm, err := episode.StepFromCompletion(c.Response)
	if err != nil {
		return nil, fmt.Sprintf("completion %s: %v", c.ID, err)
	}
	if why := sameStep(st, &norm); why != "" {
		return nil, fmt.Sprintf("completion %s: %s", c.ID, why)
	}
	texts, err := promptTexts(c.Request)
	if err != nil {
		return nil, fmt.Sprintf("completion %s: prompt: %v", c.ID, err)
	}
	if !anyContains(texts, t.Query) {
		return nil, fmt.Sprintf("completion %s: the prompt does not contain the episode's query", c.ID)
	}
	for j := range i {
		for k, r := range t.Steps[j].Results {
			if !observed(texts, r) {
				return nil, fmt.Sprintf("completion %s: the prompt lacks observation %d result %d (%s)", c.ID, j+1, k+1, r.ToolCallID)
			}
		}
	}
	return c, ""
}

// sameStep compares a step with its completion's normalised step.
func sameStep(st *episode.StepRecord, norm *episode.CompletionStep) string {
	if strings.TrimSpace(st.Think) != norm.Think {
		return fmt.Sprintf("think %q is not the completion's %q", episode.ClipText(st.Think, 60), episode.ClipText(norm.Think, 60))
	}
	if len(st.ToolCalls) != len(norm.ToolCalls) {
		return fmt.Sprintf("%d tool calls, the completion made %d", len(st.ToolCalls), len(norm.ToolCalls))
	}
	for k, call := range st.ToolCalls {
		want := norm.ToolCalls[k]
		if call.Name != want.Name {
			return fmt.Sprintf("tool call %d is %s, the completion called %s", k+1, episode.ClipText(call.Name, 40), want.Name)
		}
		if got := episode.CanonicalArguments(call.Parameters); string(got) != string(want.Parameters) {
			return fmt.Sprintf("tool call %d arguments %s are not the completion's %s", k+1, episode.ClipText(string(got), 80), episode.ClipText(string(want.Parameters), 80))
		}
	}
	resp := ""
	if st.Response != nil {
		resp = strings.TrimSpace(*st.Response)
	}
	if resp != norm.Response {
		return fmt.Sprintf("response %q is not the completion's %q", episode.ClipText(resp, 60), episode.ClipText(norm.Response, 60))
	}
	return ""
}

// text is a prompt text and, when it is JSON, its canonical form.
type text struct {
	role      string
	raw       string
	canonical string
}

func promptTexts(request json.RawMessage) ([]text, error) {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(request, &body); err != nil {
		return nil, err
	}
	out := make([]text, 0, len(body.Messages))
	for _, m := range body.Messages {
		s := contentText(m.Content)
		t := text{role: m.Role, raw: s}
		if c, ok := episode.CanonicalJSON([]byte(s)); ok {
			t.canonical = string(c)
		}
		out = append(out, t)
	}
	return out, nil
}

// contentText is a message content's text: a string, or the text parts of
// an array of parts joined by newlines.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

func anyContains(texts []text, s string) bool {
	for _, t := range texts {
		if strings.Contains(t.raw, s) {
			return true
		}
	}
	return false
}

// observed reports whether a tool result is in the prompt.
func observed(texts []text, r episode.ToolResult) bool {
	for _, t := range texts {
		if resultIn(t, r) {
			return true
		}
	}
	return false
}

func resultIn(t text, r episode.ToolResult) bool {
	if r.Error != nil {
		return strings.Contains(t.raw, r.Error.Message)
	}
	if len(r.Result) == 0 {
		return true
	}
	if strings.Contains(t.raw, string(r.Result)) {
		return true
	}
	c, ok := episode.CanonicalJSON(r.Result)
	return ok && t.canonical != "" && strings.Contains(t.canonical, string(c))
}

func completionContent(raw json.RawMessage) string {
	var c struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Choices) == 0 {
		return ""
	}
	return strings.TrimSpace(c.Choices[0].Message.Content)
}

// minDictatedBytes is the shortest free-text argument checked for
// dictation: shorter values (a status, a page number, a price range) are
// too common to tell dictation from coincidence.
const minDictatedBytes = 12

// dictated reports a value the completion chose that the scaffold's own
// prompt text already named.
func dictated(t *episode.Trajectory, c *episode.Completion, norm *episode.CompletionStep, earlier []string) string {
	texts, err := promptTexts(c.Request)
	if err != nil {
		return ""
	}
	var results []episode.ToolResult
	for j := range t.Steps {
		if j >= c.Observations {
			break
		}
		results = append(results, t.Steps[j].Results...)
	}
	var scaffold []string
	for _, tx := range texts {
		switch tx.role {
		case "tool", "function":
			isObservation := false
			for _, r := range results {
				if resultIn(tx, r) {
					isObservation = true
					break
				}
			}
			if !isObservation {
				scaffold = append(scaffold, tx.raw)
			}
		case "assistant":
			s := strings.TrimSpace(tx.raw)
			if s != "" && !contains(earlier, s) {
				scaffold = append(scaffold, tx.raw)
			}
		default:
			scaffold = append(scaffold, strings.ReplaceAll(tx.raw, t.Query, " "))
		}
	}
	all := strings.Join(scaffold, "\n")
	for _, call := range norm.ToolCalls {
		for _, v := range candidates(call) {
			if strings.Contains(all, v) && !toolVocabulary(v) {
				return fmt.Sprintf("%s's %q is in the prompt outside the query and the observations", call.Name, episode.ClipText(v, 60))
			}
		}
	}
	return ""
}

// schemaWords are the words of the validator's own tool schemas (names,
// parameters, enum values such as freeShipping, descriptions): the
// protocol's public vocabulary, which any honest agent's prompt carries
// in its tools and often in its system prompt.
var schemaWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(string(shop.ToolSchemasJSON()), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		words[w] = true
	}
	return words
})

// toolVocabulary reports whether v is made only of the tools' own
// vocabulary (one word, or a comma-separated list such as
// "COD,freeShipping"): choosing it is using a filter the schema
// documents, not following a scaffold's dictation.
func toolVocabulary(v string) bool {
	for part := range strings.SplitSeq(v, ",") {
		if !schemaWords()[strings.TrimSpace(part)] {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// candidates are the values of a call checked for dictation.
func candidates(call episode.ToolCall) []string {
	var args map[string]any
	if json.Unmarshal(call.Parameters, &args) != nil || len(args) == 0 {
		return nil
	}
	var out []string
	if s := string(call.Parameters); len(s) >= minDictatedBytes {
		out = append(out, s)
	}
	for k, v := range args {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch k {
		case "product_id", "product_ids", "shop_id":
			for id := range strings.SplitSeq(s, ",") {
				if id = strings.TrimSpace(id); len(id) >= 4 {
					out = append(out, id)
				}
			}
		default:
			if len(s) >= minDictatedBytes {
				out = append(out, s)
			}
		}
	}
	return out
}
