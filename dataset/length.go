package dataset

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Row length is counted on the text a model is trained on: the row rendered in Qwen3's chat
// template (tokenizer_config.json of Qwen/Qwen3-*: the system turn with the tool schemas,
// each assistant turn with its thinking in <think>, tool results as <tool_response> in user
// turns). A TokenCounter counts it: the target model's own tokenizer when the export has one,
// otherwise EstimateTokens.

// TokenCounter counts the tokens of a text in a model's tokenizer (bpe.Tokenizer is one).
type TokenCounter interface {
	Count(text string) int
}

// EstimateBytesPerToken is the estimate's divisor. Qwen3's tokenizer gave 3.46 bytes per
// token on average over the 272 SFT rows of an `arena dev` run, 3.09 at the fewest
// (docs/dataset.md, "Length"); the estimate divides by less, so it counts high and a
// --max-tokens bound holds for the model.
const EstimateBytesPerToken = 3.0

// EstimateTokens counts tokens as the text's bytes over EstimateBytesPerToken, rounded up.
type EstimateTokens struct{}

// Count implements TokenCounter.
func (EstimateTokens) Count(text string) int {
	return int(float64(len(text))/EstimateBytesPerToken + 0.999)
}

// DropTooLong: the row is longer than --max-tokens (with --truncate: even its first step is).
const DropTooLong = "longer_than_max_tokens"

// chatChunks renders row in Qwen3's chat template as one chunk for the header (system prompt
// and tools) and one per message after the system turn. Every chunk boundary sits next to a
// special token, so the chunks' token counts add up to the whole rendering's.
func chatChunks(msgs []Message, tools []Tool) []string {
	var b strings.Builder
	b.WriteString("<|im_start|>system\n")
	rest := msgs
	if len(msgs) > 0 && msgs[0].Role == "system" {
		b.WriteString(text(msgs[0].Content) + "\n\n")
		rest = msgs[1:]
	}
	b.WriteString("# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>")
	for _, t := range tools {
		b.WriteString("\n" + pyJSON(t))
	}
	b.WriteString("\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n")
	chunks := []string{b.String()}
	for i, m := range rest {
		b.Reset()
		switch m.Role {
		case "assistant":
			content, reasoning := text(m.Content), m.ReasoningContent
			if reasoning == "" {
				if before, after, ok := strings.Cut(content, "</think>"); ok {
					_, think, _ := strings.Cut(before, "<think>")
					reasoning = strings.TrimLeft(strings.TrimRight(think, "\n"), "\n")
					content = strings.TrimLeft(after, "\n")
				}
			}
			// Every assistant turn follows the user's query, so the template shows the
			// thinking of each turn that has some, and of the last.
			if reasoning != "" || i == len(rest)-1 {
				b.WriteString("<|im_start|>assistant\n<think>\n" + strings.Trim(reasoning, "\n") + "\n</think>\n\n" + strings.TrimLeft(content, "\n"))
			} else {
				b.WriteString("<|im_start|>assistant\n" + content)
			}
			for j, c := range m.ToolCalls {
				if j > 0 || content != "" {
					b.WriteString("\n")
				}
				b.WriteString("<tool_call>\n{\"name\": \"" + c.Function.Name + "\", \"arguments\": " + c.Function.Arguments + "}\n</tool_call>")
			}
			b.WriteString("<|im_end|>\n")
		case "tool":
			if i == 0 || rest[i-1].Role != "tool" {
				b.WriteString("<|im_start|>user")
			}
			b.WriteString("\n<tool_response>\n" + text(m.Content) + "\n</tool_response>")
			if i == len(rest)-1 || rest[i+1].Role != "tool" {
				b.WriteString("<|im_end|>\n")
			}
		default:
			b.WriteString("<|im_start|>" + m.Role + "\n" + text(m.Content) + "<|im_end|>\n")
		}
		chunks = append(chunks, b.String())
	}
	return chunks
}

// ChatText is an sft row's messages and tools rendered in Qwen3's chat template: the text
// whose tokens --max-tokens bounds.
func ChatText(msgs []Message, tools []Tool) string {
	return strings.Join(chatChunks(msgs, tools), "")
}

func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// pyJSON is Jinja's tojson as transformers applies it (Python's json.dumps: ", " and ": "
// between items, no HTML escaping, non-ASCII kept).
func pyJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	compact := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	out := make([]byte, 0, len(compact)+len(compact)/8)
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return string(out)
}

// rowSize is an sft row's length in tokens.
type rowSize struct {
	measured  bool
	full      int  // the whole row
	kept      int  // what is written: full, or less when truncated
	truncated bool // cut at a step boundary
	drop      bool // longer than the bound and not cut to fit
}

// fit measures an SFT row's messages (the system turn first, as promptMessages gives them)
// against the export's bound and returns the messages to write: all of them, or with
// Truncate the longest prefix of whole steps that fits.
func (x *exporter) fit(msgs []Message) ([]Message, rowSize) {
	chunks := chatChunks(msgs, x.tools)
	counts := make([]int, len(chunks))
	size := rowSize{measured: true}
	for i, c := range chunks {
		counts[i] = x.counter.Count(c)
		size.full += counts[i]
	}
	size.kept = size.full
	limit := x.o.MaxTokens
	if limit <= 0 || size.full <= limit {
		return msgs, size
	}
	size.kept, size.drop = 0, true
	if !x.o.Truncate {
		return nil, size
	}
	// chunks[k] renders msgs[k] (chunk 0 is the header with the system turn). A step starts
	// at an assistant turn; a cut before one that follows a step keeps whole steps, the last
	// one's tool results included.
	length, cut := counts[0], -1
	for k := 1; k < len(chunks); k++ {
		if msgs[k].Role == "assistant" && msgs[k-1].Role != "user" {
			if length > limit {
				break
			}
			cut = k
		}
		length += counts[k]
	}
	if cut < 0 {
		return nil, size
	}
	size.kept, size.drop, size.truncated = 0, false, true
	for _, n := range counts[:cut] {
		size.kept += n
	}
	return slices.Clip(msgs[:cut]), size
}

// Lengths describe the sft rows' lengths in tokens: every row the export would write without
// a bound (duplicates and filtered episodes left out), and what the bound did.
type Lengths struct {
	// Counter names what counted: a tokenizer file, or the estimate.
	Counter string
	// Before are the rows' lengths before the bound; Written those written.
	Before, Written []int
	// Dropped rows were longer than the bound; Truncated rows were cut to fit.
	Dropped, Truncated int
}

func (l *Lengths) note(s rowSize) {
	if !s.measured {
		return
	}
	l.Before = append(l.Before, s.full)
	switch {
	case s.drop:
		l.Dropped++
	case s.truncated:
		l.Truncated++
		l.Written = append(l.Written, s.kept)
	default:
		l.Written = append(l.Written, s.kept)
	}
}

// Quantiles returns the minimum, median, 90th and 99th percentiles and maximum of lengths
// (nearest rank), all zero for none.
func Quantiles(lengths []int) [5]int {
	if len(lengths) == 0 {
		return [5]int{}
	}
	s := slices.Clone(lengths)
	slices.Sort(s)
	rank := func(p float64) int {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(len(s)-1, i))]
	}
	return [5]int{s[0], rank(0.5), rank(0.9), rank(0.99), s[len(s)-1]}
}
