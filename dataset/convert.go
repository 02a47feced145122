package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"arena/episode"
	"arena/shop"
)

// SystemPrompt is the system turn of every exported conversation: a
// ShoppingBench-style agent prompt (role, tools, answer rules, the
// reasoning expected at each step). It is this package's own text so the
// dataset does not depend on the reference miner.
const SystemPrompt = `You are a shopping agent for an online marketplace. The user describes what they want to buy. Use the tools to search the catalog and inspect products, then recommend the products that satisfy every requirement.

Tools:
- find_product: search the catalog (10 results per page, at most 5 pages), with optional price range, services (freeShipping, COD, official, flashsale) and shop_id filters.
- view_product_information: read a product's attributes, descriptions and sku_options.
- recommend_product: give the final answer as comma-separated product_ids, one per requested item, in the order the user asked for them. Call it once.
- terminate: end the task with status success, or failure if nothing fits.

Rules:
- Recommend only product_ids that a tool returned in this conversation.
- Every requirement counts: product words, price, services, attributes and variant options.
- Several items from one shop must all share one shop_id.
- With a budget and a voucher, total the prices, apply the voucher if the total reaches its threshold, and keep the amount paid within the budget.

Before each tool call, reason about what the previous results showed: cite the product ids, prices, shops and attributes you saw and compare candidates.`

// Tools returns the episode's tool schemas (every tool the shop offers) in the
// exported form.
func Tools() []Tool {
	schemas := shop.ToolSchemas()
	out := make([]Tool, len(schemas))
	for i, s := range schemas {
		var params bytes.Buffer
		if err := json.Compact(&params, s.Function.Parameters); err != nil {
			panic("dataset: shop tool schema is not JSON: " + err.Error())
		}
		out[i] = Tool{Type: "function", Function: ToolFunction{Name: s.Function.Name, Description: s.Function.Description, Parameters: params.Bytes()}}
	}
	return out
}

func strPtr(s string) *string { return &s }

// promptMessages are the system and user turns.
func promptMessages(query string) []Message {
	return []Message{
		{Role: "system", Content: strPtr(SystemPrompt)},
		{Role: "user", Content: strPtr(query)},
	}
}

// arguments returns a tool call's parameters as a compact JSON string; a
// missing or malformed object becomes "{}".
func arguments(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 || json.Compact(&buf, raw) != nil || buf.Len() == 0 || buf.Bytes()[0] != '{' {
		return "{}"
	}
	return buf.String()
}

// toolContent is what a tool turn says: the result's JSON, the error, or
// that no result was observed (the episode ended in that step).
func toolContent(tc episode.ToolCall, i int, results []episode.ToolResult, end episode.EndReason) string {
	r, ok := findResult(tc, i, results)
	switch {
	case !ok:
		return fmt.Sprintf(`{"error":"no result: the episode ended (%s)"}`, end)
	case r.Error != nil:
		b, _ := json.Marshal(map[string]string{"error": r.Error.Message, "code": r.Error.Code})
		return string(b)
	case len(r.Result) > 0:
		return string(r.Result)
	}
	return "null"
}

func findResult(tc episode.ToolCall, i int, results []episode.ToolResult) (episode.ToolResult, bool) {
	if i < len(results) && results[i].ToolCallID == tc.ID {
		return results[i], true
	}
	for _, r := range results {
		if r.ToolCallID == tc.ID {
			return r, true
		}
	}
	return episode.ToolResult{}, false
}

// assistantText places the think text per mode: "reasoning_content"
// returns it separately, "tags" prefixes it in <think> tags, "drop"
// discards it.
func assistantText(think, response string, mode ThinkMode) (content, reasoning string) {
	think = strings.TrimSpace(think)
	switch mode {
	case ThinkReasoning:
		return response, think
	case ThinkTags:
		if think == "" {
			return response, ""
		}
		if response == "" {
			return "<think>\n" + think + "\n</think>", ""
		}
		return "<think>\n" + think + "\n</think>\n\n" + response, ""
	}
	return response, ""
}

// completion turns a trajectory into the turns after the prompt: per step
// an assistant turn with its tool calls, then one tool turn per call.
// Call ids are kept unless empty or already used in the conversation, in
// which case they become call_<step>_<i>.
func completion(tr *episode.Trajectory, mode ThinkMode, style Style) []Message {
	return completionWith(tr, mode, style, nil)
}

// compactArgs are a trajectory's tool call arguments (arguments() of each
// call, by step and call), computed once for the dedupe hash and the
// conversation.
type compactArgs [][]string

func argsOf(tr *episode.Trajectory) compactArgs {
	out := make(compactArgs, len(tr.Steps))
	for si := range tr.Steps {
		calls := tr.Steps[si].ToolCalls
		out[si] = make([]string, len(calls))
		for i := range calls {
			out[si][i] = arguments(calls[i].Parameters)
		}
	}
	return out
}

// get is step si's call i's arguments; a nil compactArgs computes them.
func (a compactArgs) get(tr *episode.Trajectory, si, i int) string {
	if a == nil {
		return arguments(tr.Steps[si].ToolCalls[i].Parameters)
	}
	return a[si][i]
}

// completionWith is completion with the arguments precomputed (nil:
// computed here).
func completionWith(tr *episode.Trajectory, mode ThinkMode, style Style, args compactArgs) []Message {
	out := make([]Message, 0, 2*len(tr.Steps))
	used := make(map[string]bool, 2*len(tr.Steps))
	for si := range tr.Steps {
		st := &tr.Steps[si]
		response := ""
		if st.Response != nil {
			response = *st.Response
		}
		content, reasoning := assistantText(st.Think, response, mode)
		am := Message{Role: "assistant", ReasoningContent: reasoning}
		if content != "" || style != StyleOpenAI || len(st.ToolCalls) == 0 {
			am.Content = strPtr(content)
		}
		ids := make([]string, len(st.ToolCalls))
		for i, tc := range st.ToolCalls {
			id := tc.ID
			if id == "" || used[id] {
				id = fmt.Sprintf("call_%d_%d", si, i)
				for used[id] {
					id += "_"
				}
			}
			used[id] = true
			ids[i] = id
			am.ToolCalls = append(am.ToolCalls, ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: tc.Name, Arguments: args.get(tr, si, i)}})
		}
		out = append(out, am)
		for i, tc := range st.ToolCalls {
			out = append(out, Message{Role: "tool", Content: strPtr(toolContent(tc, i, st.Results, tr.EndReason)), ToolCallID: ids[i]})
		}
	}
	return out
}

// stepsInstruction is the instruction of every steps sample: the system
// prompt and the tools in Hermes' <tools> form.
func stepsInstruction(tools []Tool) string {
	var b strings.Builder
	b.WriteString(SystemPrompt)
	b.WriteString("\n\n# Tools\n\nYou may call one or more functions. The function signatures are within <tools></tools> XML tags:\n<tools>\n")
	for _, t := range tools {
		raw, _ := json.Marshal(t)
		b.Write(raw)
		b.WriteByte('\n')
	}
	b.WriteString("</tools>\n\nFor each function call, return a JSON object with the function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>")
	return b.String()
}

// renderStep is a step as the model should write it: the think text in
// <think> tags (unless dropped), then each call in <tool_call> tags, then
// any plain response.
func renderStep(st *episode.StepRecord, mode ThinkMode) string {
	var b strings.Builder
	if think := strings.TrimSpace(st.Think); think != "" && mode != ThinkDrop {
		b.WriteString("<think>\n")
		b.WriteString(think)
		b.WriteString("\n</think>")
	}
	for _, tc := range st.ToolCalls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<tool_call>\n{\"name\": ")
		name, _ := json.Marshal(tc.Name)
		b.Write(name)
		b.WriteString(", \"arguments\": ")
		b.WriteString(arguments(tc.Parameters))
		b.WriteString("}\n</tool_call>")
	}
	if st.Response != nil && *st.Response != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(*st.Response)
	}
	return b.String()
}

// renderObservation is a step's tool results in <tool_response> tags.
func renderObservation(st *episode.StepRecord, end episode.EndReason) string {
	var b strings.Builder
	for i, tc := range st.ToolCalls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("<tool_response>\n")
		b.WriteString(toolContent(tc, i, st.Results, end))
		b.WriteString("\n</tool_response>")
	}
	return b.String()
}

// stepSamples renders one sample per step: the input is the query and
// every earlier step with its observation. It calls fn with the step index
// and the input and output; the input builder is reused, so memory is
// linear in the trajectory, not quadratic.
func stepSamples(tr *episode.Trajectory, mode ThinkMode, fn func(step int, input, output string) error) error {
	var hist strings.Builder
	hist.WriteString("User query: ")
	hist.WriteString(tr.Query)
	hist.WriteString("\n\nHistory:")
	for i := range tr.Steps {
		st := &tr.Steps[i]
		input := hist.String()
		if i == 0 {
			input += " none, this is the first step."
		}
		out := renderStep(st, mode)
		if err := fn(i, input, out); err != nil {
			return err
		}
		fmt.Fprintf(&hist, "\n\n## Step %d\n%s", i+1, out)
		if obs := renderObservation(st, tr.EndReason); obs != "" {
			hist.WriteByte('\n')
			hist.WriteString(obs)
		}
	}
	return nil
}

// contentHash identifies a trajectory's content for dedupe: the problem,
// and per step the think text, the calls (name, compact arguments) and the
// response. Ids, times and the miner are not part of it.
func contentHash(tr *episode.Trajectory) [16]byte {
	return contentHashWith(tr, nil)
}

// contentHashWith is contentHash with the arguments precomputed (nil:
// computed here).
func contentHashWith(tr *episode.Trajectory, args compactArgs) [16]byte {
	h := sha256.New()
	var n [8]byte
	put := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(tr.ProblemID)
	for i := range tr.Steps {
		st := &tr.Steps[i]
		put("step")
		put(strings.TrimSpace(st.Think))
		for ci, tc := range st.ToolCalls {
			put(tc.Name)
			put(args.get(tr, i, ci))
		}
		if st.Response != nil {
			put("response")
			put(*st.Response)
		}
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}
