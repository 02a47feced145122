package miner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
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
	// https://openrouter.ai/api/v1 or http://127.0.0.1:11434/v1. It may be
	// empty when the agent plays only for validators that relay
	// inference (protocol version 2): their relay is then its endpoint.
	BaseURL string
	// Model is the model name (required with BaseURL). Through a relay,
	// the model is this one if the relay allows it, else the relay's
	// first allowed model.
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
	// HTTPClient replaces the endpoint's HTTP client (the stand-in is
	// served in process through it).
	HTTPClient *http.Client
}

// LLM is an agent backed by a chat model with native function calling.
// Like the heuristic agent it is stateless: each step rebuilds the
// conversation from the episode view (query, its own earlier tool calls
// and the validator's results), so it serves concurrent episodes and
// never drifts from what the validator recorded.
type LLM struct {
	opts   LLMOptions
	client *llmclient.Client // nil without a BaseURL: relay only
	log    zerolog.Logger
}

// NewLLM builds the agent. It makes no request until the first step.
func NewLLM(opts LLMOptions, log zerolog.Logger) (*LLM, error) {
	if opts.BaseURL != "" && opts.Model == "" {
		return nil, errors.New("llm agent: a model (--llm-model) is required with a base URL (--llm-base-url)")
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
	a := &LLM{opts: opts, log: log.With().Str("component", "miner.llm").Str("model", opts.Model).Logger()}
	if opts.BaseURL != "" {
		client, err := llmclient.New(llmclient.Options{BaseURL: opts.BaseURL, APIKey: opts.APIKey, Timeout: opts.Timeout, MaxRetries: opts.MaxRetries,
			HTTPClient: opts.HTTPClient})
		if err != nil {
			return nil, fmt.Errorf("llm agent: %w", err)
		}
		a.client = client
	}
	return a, nil
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

// Step implements episode.Agent. When the validator relays inference
// (v.Infer is set), the completion comes through its relay and the
// action names it, so the validator can verify the step; otherwise it
// comes from the agent's own endpoint.
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
	if v.Infer != nil {
		return a.relayStep(ctx, v, params, start)
	}
	if a.client == nil {
		return failStep("this agent has no endpoint of its own (--llm-base-url) and the validator relays no inference"), nil
	}
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

// relayStep takes the step's completion from the validator's relay: the
// action is the completion normalised as the validator verifies it
// (episode.StepFromCompletion), naming its completion_id.
func (a *LLM) relayStep(ctx context.Context, v episode.EpisodeView, params openai.ChatCompletionNewParams, start time.Time) (episode.Action, error) {
	model := a.opts.Model
	if len(v.Relay.Models) > 0 && !slices.Contains(v.Relay.Models, model) {
		model = v.Relay.Models[0]
	}
	params.Model = shared.ChatModel(model)
	if mt := v.Relay.MaxTokens; mt > 0 && a.opts.MaxTokens > mt {
		params.MaxTokens = openai.Int(mt)
	}
	body, err := json.Marshal(params)
	if err != nil {
		return episode.Action{}, fmt.Errorf("llm agent: encode request: %w", err)
	}
	res, err := v.Infer(ctx, body)
	if err != nil {
		reason := clip(err.Error(), 300)
		a.log.Warn().Str("episode", v.EpisodeID).Int("step", len(v.History)).Dur("took_ms", time.Since(start)).Str("reason", reason).
			Msg("relay inference failed; terminating the episode")
		return failStep("The validator's inference relay failed (" + reason + "), so I cannot continue."), nil
	}
	st, err := episode.StepFromCompletion(res.Completion)
	if err != nil {
		return failStep("The relayed completion is unusable (" + clip(err.Error(), 200) + ")."), nil
	}
	a.log.Debug().Str("episode", v.EpisodeID).Int("step", len(v.History)).Int("calls", len(st.ToolCalls)).Str("completion", res.CompletionID).
		Dur("took_ms", time.Since(start)).Msg("llm step through the relay")
	return episode.Action{Think: st.Think, ToolCalls: st.ToolCalls, Response: st.Response, CompletionID: res.CompletionID}, nil
}

func failStep(think string) episode.Action {
	return episode.Action{
		Think:     think,
		ToolCalls: []episode.ToolCall{{ID: "terminate", Name: shop.ToolTerminate, Parameters: json.RawMessage(`{"status":"failure"}`)}},
	}
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
