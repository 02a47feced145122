package scoring

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"arena/suite"
)

// embeddingServer speaks the /v1/embeddings wire format. vectors maps an
// input text to its embedding; status, if non-zero, is returned first
// failures times before succeeding.
type embeddingServer struct {
	vectors  map[string][]float64
	status   int
	failures int32
	calls    atomic.Int32
	mangle   func(resp map[string]any) // edits a valid response
	delay    time.Duration
}

func (s *embeddingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.calls.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	if s.status != 0 && n <= s.failures {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		w.Write([]byte(`{"error":{"message":"try later","type":"server_error"}}`))
		return
	}
	var req struct {
		Input          []string `json:"input"`
		Model          string   `json:"model"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	var data []map[string]any
	for i, in := range req.Input {
		v, ok := s.vectors[in]
		if !ok {
			v = []float64{0, 0, 1}
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
	}
	resp := map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": 4, "total_tokens": 4}}
	if s.mangle != nil {
		s.mangle(resp)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func newEmbeddings(t *testing.T, srv *embeddingServer, retries int, timeout time.Duration) *Embeddings {
	t.Helper()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	e, err := NewEmbeddings(EmbeddingsConfig{BaseURL: ts.URL + "/v1", APIKey: "test", Model: "test-embed", MaxRetries: retries, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbeddingsMatch(t *testing.T) {
	s7 := math.Sqrt(1 - 0.7*0.7)
	vectors := map[string][]float64{
		"phrase":      {1, 0, 0},
		"same":        {2, 0, 0},
		"at 0.7":      {0.7, s7, 0},
		"below 0.7":   {0.69, math.Sqrt(1 - 0.69*0.69), 0},
		"orthogonal":  {0, 1, 0},
		"short":       {1, 0},
		"zero vector": {0, 0, 0},
	}
	cases := []struct {
		title   string
		want    bool
		wantErr bool
	}{
		{"same", true, false},
		{"at 0.7", true, false},
		{"below 0.7", false, false},
		{"orthogonal", false, false},
		{"short", false, true},
		{"zero vector", false, true},
	}
	e := newEmbeddings(t, &embeddingServer{vectors: vectors}, 0, 5*time.Second)
	for _, c := range cases {
		t.Run(c.title, func(t *testing.T) {
			got, err := e.MatchTitle(context.Background(), "phrase", c.title)
			if (err != nil) != c.wantErr || got != c.want {
				t.Fatalf("match = %v, err = %v; want %v, error %v", got, err, c.want, c.wantErr)
			}
		})
	}
	t.Run("through Rules", func(t *testing.T) {
		p := productProblem(suite.Item{ProductID: "t", Title: []string{"phrase"}})
		m, err := Rules(context.Background(), Input{Problem: p, Answers: answers(prod("x", "s", "at 0.7", 1))}, Options{Titles: e})
		if err != nil || m.Rule != 1 || m.Matcher != "embeddings" {
			t.Fatalf("rule %v matcher %q err %v", m.Rule, m.Matcher, err)
		}
		_, err = Rules(context.Background(), Input{Problem: p, Answers: answers(prod("x", "s", "short", 1))}, Options{Titles: e})
		if err == nil || !strings.Contains(err.Error(), "dimension") {
			t.Fatalf("err = %v, want the dimension error", err)
		}
	})
}

func TestEmbeddingsFailures(t *testing.T) {
	vectors := map[string][]float64{"a": {1, 0}, "b": {1, 0}}
	cases := []struct {
		name    string
		srv     *embeddingServer
		retries int
		timeout time.Duration
		wantErr bool
	}{
		{"ok", &embeddingServer{vectors: vectors}, 0, time.Second, false},
		{"500 without retries", &embeddingServer{vectors: vectors, status: 500, failures: 1}, 0, time.Second, true},
		{"429 then success", &embeddingServer{vectors: vectors, status: 429, failures: 1}, 2, 10 * time.Second, false},
		{"one embedding for two inputs", &embeddingServer{vectors: vectors, mangle: func(r map[string]any) {
			r["data"] = r["data"].([]map[string]any)[:1]
		}}, 0, time.Second, true},
		{"bad index", &embeddingServer{vectors: vectors, mangle: func(r map[string]any) {
			r["data"].([]map[string]any)[1]["index"] = 5
		}}, 0, time.Second, true},
		{"timeout", &embeddingServer{vectors: vectors, delay: 300 * time.Millisecond}, 0, 50 * time.Millisecond, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEmbeddings(t, c.srv, c.retries, c.timeout)
			ok, err := e.MatchTitle(context.Background(), "a", "b")
			if (err != nil) != c.wantErr || (!c.wantErr && !ok) {
				t.Fatalf("ok %v err %v, want error %v", ok, err, c.wantErr)
			}
		})
	}
}

func TestNewEmbeddingsConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  EmbeddingsConfig
	}{
		{"no url", EmbeddingsConfig{Model: "m"}},
		{"no model", EmbeddingsConfig{BaseURL: "http://x/v1"}},
		{"bad threshold", EmbeddingsConfig{BaseURL: "http://x/v1", Model: "m", Threshold: 2}},
		{"negative retries", EmbeddingsConfig{BaseURL: "http://x/v1", Model: "m", MaxRetries: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := NewEmbeddings(c.cfg); err == nil {
				t.Fatal("no error")
			}
		})
	}
	var _ TitleMatcher = (*Embeddings)(nil)
}
