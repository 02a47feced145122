package miner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/internal/llmclient"
	"arena/shop"
)

// LLMOptions configure the LLM agent.
type LLMOptions struct {
	// BaseURL is an OpenAI-compatible endpoint, such as
	// https://openrouter.ai/api/v1 or http://127.0.0.1:11434/v1 (required).
	BaseURL string
	// Model is the model name the endpoint serves (required).
	Model string
	// APIKey is sent as a bearer token; local endpoints may need none.
	APIKey string
	// Timeout bounds one step's chat call, its retry included; default
	// 50 s, under the protocol's 60 s step limit. The step's own deadline
	// applies too.
	Timeout time.Duration
	// MaxRetries is how often a failed request is retried; default 1.
	// Negative means none.
	MaxRetries int
	// MaxTokens bounds each completion; 0 leaves it to the endpoint.
	MaxTokens int64
	// SystemPrompt replaces the built-in ShoppingBench-style prompt.
	SystemPrompt string
}

// LLM is an agent backed by a chat model with native function calling.
// Like the heuristic agent it is stateless: each step rebuilds the
// conversation from the episode view (query, its own earlier tool calls
// and the validator's results), so it serves concurrent episodes and
// never drifts from what the validator recorded.
type LLM struct {
	opts   LLMOptions
	client *llmclient.Client
	log    zerolog.Logger
}

// NewLLM builds the agent. It makes no request until the first step.
func NewLLM(opts LLMOptions, log zerolog.Logger) (*LLM, error) {
	if opts.BaseURL == "" || opts.Model == "" {
		return nil, errors.New("llm agent: a base URL (--llm-base-url) and a model (--llm-model) are required")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 50 * time.Second
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = 1
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.SystemPrompt == "" {
		opts.SystemPrompt = SystemPrompt
	}
	client, err := llmclient.New(llmclient.Options{BaseURL: opts.BaseURL, APIKey: opts.APIKey, Timeout: opts.Timeout, MaxRetries: opts.MaxRetries})
	if err != nil {
		return nil, fmt.Errorf("llm agent: %w", err)
	}
	return &LLM{opts: opts, client: client, log: log.With().Str("component", "miner.llm").Str("model", opts.Model).Logger()}, nil
}

// SystemPrompt is the LLM agent's instructions, in the style of
// ShoppingBench's agent prompt: the role, the tools, the rules for the
// final answer and the reasoning expected at every step.
const SystemPrompt = `You are a shopping assistant on an online marketplace. A user describes what they want to buy; you find it with the tools and recommend the products that meet every requirement.

Tools:
- find_product searches the catalog (up to 10 results per page, 5 pages). Use the filters: price ("lo-hi" or "lo-"), service (freeShipping, COD, official, flashsale) and shop_id to search inside one shop.
- view_product_information shows a product's attributes and sku_options (variants). Check attribute and option requirements here before you recommend.
- recommend_product gives your final answer: comma-separated product_ids, one per requested item, in the order the user asked for them. Call it exactly once.
- terminate ends the task with status success or failure. Call it right after recommend_product, or with failure when nothing fits.

Rules:
- Only recommend product_ids that a tool returned to you in this conversation.
- Every requirement counts: the product words, the price range, the services, the attributes and the variant options.
- If the user wants several items from one shop, all recommended products must share one shop_id: find the first item, then search for the others with that shop_id.
- If the user has a budget and a voucher, add up the prices, check whether the total reaches the voucher threshold, apply the discount (a fixed amount, or a percentage limited by the cap; a shop voucher only for products of one shop) and make sure the amount paid is within the budget.

At every step, first reason briefly about what the last results showed: cite product ids, prices, shops and attributes you saw and compare at least two candidates before choosing. Then call the tools.`

// Step implements episode.Agent.
func (a *LLM) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	params := openai.ChatCompletionNewParams{
		Model:       shared.ChatModel(a.opts.Model),
		Messages:    a.messages(v),
		Tools:       tools(v.Tools),
		Temperature: openai.Float(0),
	}
	if a.opts.MaxTokens > 0 {
		params.MaxTokens = openai.Int(a.opts.MaxTokens)
	}
	start := time.Now()
	msg, err := a.client.Chat(ctx, params)
	if err != nil {
		// The episode cannot go on without the model; end it cleanly so
		// the validator records a failure rather than a timeout.
		reason := clip(err.Error(), 300)
		a.log.Warn().Str("episode", v.EpisodeID).Int("step", len(v.History)).Dur("took_ms", time.Since(start)).Str("reason", reason).
			Msg("llm endpoint failed; terminating the episode")
		return episode.Action{
			Think:     "The language model endpoint failed (" + reason + "), so I cannot continue.",
			ToolCalls: []episode.ToolCall{{ID: "terminate", Name: shop.ToolTerminate, Parameters: json.RawMessage(`{"status":"failure"}`)}},
		}, nil
	}
	act := episode.Action{Think: reasoning(msg)}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		act.ToolCalls = append(act.ToolCalls, episode.ToolCall{ID: tc.ID, Name: tc.Function.Name, Parameters: arguments(tc.Function.Arguments)})
	}
	if len(act.ToolCalls) == 0 {
		// A plain answer is kept as the response; the next step reminds
		// the model to use the tools.
		act.Response = msg.Content
	}
	a.log.Debug().Str("episode", v.EpisodeID).Int("step", len(v.History)).Int("calls", len(act.ToolCalls)).Dur("took_ms", time.Since(start)).Msg("llm step")
	return act, nil
}

// reasoning is the model's reasoning: reasoning_content (DeepSeek, vLLM,
// Chutes) or reasoning (OpenRouter) when the endpoint returns it, else the
// assistant's text.
func reasoning(msg openai.ChatCompletionMessage) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := msg.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return strings.TrimSpace(msg.Content)
}

// arguments turns a model's argument string into the JSON object the
// protocol requires. Malformed arguments become {}, so the tool answers
// with a clear "missing argument" observation instead of the step being
// rejected as malformed.
func arguments(s string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil || obj == nil {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}

// tools converts the OpenAI function schemas the validator offered (or,
// if it offered none that parse, the shop's own) to request parameters.
func tools(offered json.RawMessage) []openai.ChatCompletionToolUnionParam {
	var schemas []shop.ToolSchema
	if json.Unmarshal(offered, &schemas) != nil || len(schemas) == 0 {
		schemas = shop.ToolSchemas()
	}
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(schemas))
	for _, s := range schemas {
		var params map[string]any
		_ = json.Unmarshal(s.Function.Parameters, &params)
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        s.Function.Name,
			Description: openai.String(s.Function.Description),
			Parameters:  shared.FunctionParameters(params),
		}))
	}
	return out
}

// nudge follows a step in which the model answered without a tool call.
const nudge = "Continue with the tools: recommend_product with the product_ids you chose, then terminate."

// messages rebuilds the conversation: system prompt, the user's query,
// then each earlier step as an assistant message with its tool calls and
// one tool message per result.
func (a *LLM) messages(v episode.EpisodeView) []openai.ChatCompletionMessageParamUnion {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.opts.SystemPrompt), openai.UserMessage(v.Query)}
	for _, turn := range v.History {
		am := openai.ChatCompletionAssistantMessageParam{}
		text := turn.Action.Think
		if turn.Action.Response != "" {
			text = turn.Action.Response
		}
		if text != "" {
			am.Content.OfString = openai.String(text)
		}
		for _, tc := range turn.Action.ToolCalls {
			am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Parameters)},
				},
			})
		}
		msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		for i, tc := range turn.Action.ToolCalls {
			content := "no result"
			if i < len(turn.Results) {
				r := turn.Results[i]
				switch {
				case r.Error != nil:
					content = "error: " + r.Error.Message
				case len(r.Result) > 0:
					content = string(r.Result)
				}
			}
			msgs = append(msgs, openai.ToolMessage(content, tc.ID))
		}
		if len(turn.Action.ToolCalls) == 0 {
			msgs = append(msgs, openai.UserMessage(nudge))
		}
	}
	return msgs
}
