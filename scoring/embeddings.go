package scoring

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"

	"arena/internal/llmclient"
)

// DefaultEmbeddingThreshold is ORO's cosine threshold for a title match.
const DefaultEmbeddingThreshold = 0.7

// EmbeddingsConfig configures the Embeddings title matcher.
type EmbeddingsConfig struct {
	// BaseURL is the API root including the version, such as
	// "http://localhost:8000/v1"; requests go to BaseURL + "/embeddings".
	BaseURL string
	// APIKey is sent as a bearer token; it may be empty for local servers.
	APIKey string
	// Model is the embedding model name. Required.
	Model string
	// Threshold is the cosine at or above which a title matches; zero
	// means DefaultEmbeddingThreshold.
	Threshold float64
	// Timeout bounds each request, retries included; zero means 30 s.
	Timeout time.Duration
	// MaxRetries on 429, 5xx and connection errors (with backoff); the
	// zero value means none.
	MaxRetries int
	// HTTPClient overrides the HTTP client (tests, proxies).
	HTTPClient *http.Client
}

// Embeddings matches titles by the cosine similarity of their embeddings
// from an OpenAI-compatible /v1/embeddings endpoint (vLLM, Ollama,
// OpenAI, ...). It is the only part of the package that does I/O: one
// request per phrase/title pair, both texts in one batch.
type Embeddings struct {
	client    *llmclient.Client
	model     string
	threshold float64
}

// NewEmbeddings checks cfg and builds the matcher. It makes no request.
func NewEmbeddings(cfg EmbeddingsConfig) (*Embeddings, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("embeddings: no base URL (for example http://localhost:8000/v1)")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embeddings: no model")
	}
	th := cfg.Threshold
	if th == 0 {
		th = DefaultEmbeddingThreshold
	}
	if !(th > -1 && th <= 1) {
		return nil, fmt.Errorf("embeddings: threshold %v outside (-1, 1]", th)
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("embeddings: negative max retries %d", cfg.MaxRetries)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	client, err := llmclient.New(llmclient.Options{BaseURL: strings.TrimRight(cfg.BaseURL, "/") + "/", APIKey: cfg.APIKey,
		Timeout: timeout, MaxRetries: cfg.MaxRetries, HTTPClient: cfg.HTTPClient})
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	return &Embeddings{client: client, model: cfg.Model, threshold: th}, nil
}

// Name implements TitleMatcher.
func (*Embeddings) Name() string { return "embeddings" }

// MatchTitle implements TitleMatcher: cosine(embed(phrase), embed(title))
// ≥ the threshold. Transport, status and shape errors are returned, never
// guessed around.
func (e *Embeddings) MatchTitle(ctx context.Context, phrase, title string) (bool, error) {
	c, err := e.Cosine(ctx, phrase, title)
	if err != nil {
		return false, err
	}
	return c >= e.threshold, nil
}

// Cosine embeds a and b in one request and returns their cosine.
func (e *Embeddings) Cosine(ctx context.Context, a, b string) (float64, error) {
	if strings.TrimSpace(a) == "" || strings.TrimSpace(b) == "" {
		return 0, errors.New("embeddings: empty text cannot be embedded")
	}
	res, err := e.client.Embeddings(ctx, openai.EmbeddingNewParams{
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{a, b}},
		Model:          openai.EmbeddingModel(e.model),
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		return 0, fmt.Errorf("embeddings: %w", err)
	}
	var vecs [2][]float64
	for _, d := range res.Data {
		if d.Index < 0 || d.Index > 1 || vecs[d.Index] != nil {
			return 0, fmt.Errorf("embeddings: unexpected embedding index %d", d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	if vecs[0] == nil || vecs[1] == nil {
		return 0, fmt.Errorf("embeddings: got %d embeddings for 2 inputs", len(res.Data))
	}
	return cosine(vecs[0], vecs[1])
}

func cosine(a, b []float64) (float64, error) {
	if len(a) != len(b) || len(a) == 0 {
		return 0, fmt.Errorf("embeddings: vectors of dimension %d and %d", len(a), len(b))
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 || math.IsNaN(dot) || math.IsInf(dot, 0) {
		return 0, errors.New("embeddings: zero or non-finite vector")
	}
	return dot / math.Sqrt(na*nb), nil
}
