// Package llmclient is the one place arena builds a client for an
// OpenAI-compatible endpoint (chat completions for the miner's LLM agent
// and the LLM judge, embeddings for the title matcher): where it points,
// which key it sends, how long a call may take and how failed calls are
// classified.
//
// The client talks only to what its options say. openai.NewClient would
// also read OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_ORG_ID,
// OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS from the environment and
// send them to whatever endpoint is configured (openai-go v3.98.0
// client.go, DefaultClientOptions, lines 73-102), so the service is built
// directly with openai.NewChatCompletionService, which reads nothing from
// the environment.
package llmclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// DefaultTimeout bounds a call when Options.Timeout is zero, so that a
// server that never answers cannot hold a caller for ever.
const DefaultTimeout = 60 * time.Second

// Options configure a Client.
type Options struct {
	// BaseURL is the endpoint's API root, such as
	// https://openrouter.ai/api/v1 or http://127.0.0.1:11434/v1; requests
	// go to BaseURL/chat/completions (required).
	BaseURL string
	// APIKey is sent as a bearer token. Local endpoints may need none.
	APIKey string
	// APIKeyEnv names an environment variable holding the key, for callers
	// that take the key from the environment only; it must be set and not
	// empty. Give APIKey or APIKeyEnv, not both.
	APIKeyEnv string
	// LookupEnv reads APIKeyEnv; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Timeout bounds one Chat call, retries included; default
	// DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how often the client retries a request that failed to
	// connect or was answered 408, 409, 429 or 5xx, with openai-go's
	// backoff (honouring Retry-After); 0 means none, for callers that
	// retry themselves.
	MaxRetries int
	// HTTPClient replaces the default HTTP client (optional).
	HTTPClient *http.Client
	// UserAgent replaces openai-go's User-Agent header (optional).
	UserAgent string
}

// Client calls one OpenAI-compatible API root. It is safe for concurrent
// use.
type Client struct {
	chat       openai.ChatCompletionService
	embeddings openai.EmbeddingService
	timeout    time.Duration
	root       string
}

// ErrTimeout is matched by the error of a call that ran out of
// Options.Timeout while its context was still live.
var ErrTimeout = errors.New("timed out")

// ErrNoChoices is matched by the error of a call answered with an empty
// choices list.
var ErrNoChoices = errors.New("the response has no choices")

// New builds a client. It makes no request.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm client: base URL %q is not an http(s) URL such as https://openrouter.ai/api/v1", opts.BaseURL)
	}
	key := opts.APIKey
	if opts.APIKeyEnv != "" {
		if key != "" {
			return nil, errors.New("llm client: an API key and an environment variable for it are both given; give one")
		}
		lookup := opts.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		if key, _ = lookup(opts.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("llm client: the API key variable %s is not set", opts.APIKeyEnv)
		}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	copts := []option.RequestOption{
		option.WithBaseURL(opts.BaseURL),
		option.WithAPIKey(key),
		option.WithMaxRetries(max(opts.MaxRetries, 0)),
		option.WithHTTPClient(hc),
	}
	if opts.UserAgent != "" {
		copts = append(copts, option.WithHeader("User-Agent", opts.UserAgent))
	}
	return &Client{chat: openai.NewChatCompletionService(copts...), embeddings: openai.NewEmbeddingService(copts...),
		timeout: opts.Timeout, root: strings.TrimSuffix(opts.BaseURL, "/")}, nil
}

// Chat sends one chat-completions request and returns the first choice's
// message. Besides ErrTimeout and ErrNoChoices, an endpoint's error answer
// is an *openai.Error (see Retryable); every error names the endpoint.
func (c *Client) Chat(ctx context.Context, params openai.ChatCompletionNewParams) (openai.ChatCompletionMessage, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.chat.New(rctx, params)
	if err != nil {
		return openai.ChatCompletionMessage{}, c.callError(ctx, rctx, "/chat/completions", err)
	}
	if len(resp.Choices) == 0 {
		return openai.ChatCompletionMessage{}, fmt.Errorf("POST %s/chat/completions: %w", c.root, ErrNoChoices)
	}
	return resp.Choices[0].Message, nil
}

// RawReply is what ChatRaw reads of a chat completion: enough to meter it
// and to tell it from an unusable answer. The caller keeps the body; the
// SDK's full decode of every choice and message would cost more than the
// rest of a relayed call.
type RawReply struct {
	Model   string            `json:"model"`
	Choices []json.RawMessage `json:"choices"`
	Usage   struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
}

// ChatRaw sends body, a whole chat-completions request body, byte for
// byte (the inference relay forwards what it checked and records), and
// returns the endpoint's response body as received together with what it
// says of itself. An answer without choices fails with ErrNoChoices; other
// errors are classified as Chat's.
func (c *Client) ChatRaw(ctx context.Context, body []byte) ([]byte, *RawReply, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var raw []byte
	_, err := c.chat.New(rctx, openai.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", body), option.WithResponseBodyInto(&raw))
	if err != nil {
		return nil, nil, c.callError(ctx, rctx, "/chat/completions", err)
	}
	var resp RawReply
	if err := json.Unmarshal(raw, &resp); err != nil {
		return raw, nil, fmt.Errorf("POST %s/chat/completions: the response is not a chat completion: %w", c.root, err)
	}
	if len(resp.Choices) == 0 {
		return raw, nil, fmt.Errorf("POST %s/chat/completions: %w", c.root, ErrNoChoices)
	}
	return raw, &resp, nil
}

// StatusCode is the HTTP status of an endpoint's error answer in err, or
// 0 when err is not one.
func StatusCode(err error) int {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// Embeddings sends one embeddings request (BaseURL/embeddings). Its
// errors are classified as Chat's.
func (c *Client) Embeddings(ctx context.Context, params openai.EmbeddingNewParams) (*openai.CreateEmbeddingResponse, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.embeddings.New(rctx, params)
	if err != nil {
		return nil, c.callError(ctx, rctx, "/embeddings", err)
	}
	return resp, nil
}

// callError names the endpoint in a failed call's error, tells a timeout
// of the call (ErrTimeout) from the caller's cancellation, and adds the
// endpoint's own message to an error answer.
func (c *Client) callError(ctx, rctx context.Context, path string, err error) error {
	endpoint := c.root + path
	var apiErr *openai.Error
	var urlErr *url.Error
	switch {
	case rctx.Err() != nil && ctx.Err() == nil:
		return fmt.Errorf("POST %s: %w after %s", endpoint, ErrTimeout, c.timeout)
	case errors.As(err, &urlErr):
		return err // names the URL already
	case errors.As(err, &apiErr) && apiErr.Message != "":
		// openai-go's message is the status alone; the endpoint's own
		// words ("model overloaded", "invalid model") are what an
		// operator needs.
		return fmt.Errorf("POST %s: %w: %s", endpoint, err, oneLine(apiErr.Message, 300))
	}
	return fmt.Errorf("POST %s: %w", endpoint, err)
}

// oneLine keeps an endpoint's message to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "..."
	}
	return s
}

// Retryable reports whether err is an endpoint's answer that asks to try
// again later: 429 (rate limited) or a 5xx.
func Retryable(err error) bool {
	var apiErr *openai.Error
	return errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500)
}
