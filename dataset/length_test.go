package dataset_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/internal/bpe"
	"arena/validator/records"
)

var (
	qwen3Once sync.Once
	qwen3Tok  *bpe.Tokenizer
	qwen3Err  error
)

// qwen3 is Qwen3's own tokenizer (internal/bpe's test data), loaded once.
func qwen3(t *testing.T) *bpe.Tokenizer {
	t.Helper()
	qwen3Once.Do(func() { qwen3Tok, qwen3Err = bpe.Load("../internal/bpe/testdata/qwen3-tokenizer.json.gz") })
	if qwen3Err != nil {
		t.Fatal(qwen3Err)
	}
	return qwen3Tok
}

// TestMaxTokens: sft rows are measured in Qwen3's chat template with the real tokenizer;
// --max-tokens drops exactly the longer rows, --truncate cuts them at a step boundary to
// fit (dropping only those whose first step is too long), the card and the report say so,
// and the sequential pass agrees byte for byte.
func TestMaxTokens(t *testing.T) {
	e := newEnv(t)
	tok := qwen3(t)
	opts := func(max int, truncate bool) dataset.Options {
		return dataset.Options{Format: dataset.FormatSFT, MaxTokens: max, Truncate: truncate,
			Tokenizer: tok, TokenizerName: "Qwen3's tokenizer.json"}
	}
	baseDir, base := e.export(t, opts(0, false))
	rows := readJSONL[dataset.SFTRow](t, filepath.Join(baseDir, "train.jsonl"))
	l := base.Lengths
	if len(rows) < 4 || len(l.Before) != len(rows) || !slices.Equal(l.Before, l.Written) || l.Dropped+l.Truncated != 0 {
		t.Fatalf("no bound: %d rows, lengths %+v", len(rows), l)
	}
	byEpisode := map[string]dataset.SFTRow{}
	for i, r := range rows {
		// The chunks' counts add up to the whole rendering's.
		if n := tok.Count(dataset.ChatText(r.Messages, r.Tools)); n != l.Written[i] {
			t.Fatalf("row %d: %d tokens rendered whole, %d counted", i, n, l.Written[i])
		}
		byEpisode[r.Meta.EpisodeID] = r
	}
	sorted := slices.Sorted(slices.Values(l.Before))
	limit := sorted[len(sorted)/2]
	longer := 0
	for _, n := range l.Before {
		if n > limit {
			longer++
		}
	}
	if longer == 0 {
		t.Fatalf("lengths %v: none above the median", sorted)
	}

	tests := []struct {
		name     string
		truncate bool
	}{{"drop", false}, {"truncate", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rep := e.export(t, opts(limit, tt.truncate))
			got := readJSONL[dataset.SFTRow](t, filepath.Join(dir, "train.jsonl"))
			lr := rep.Lengths
			if !slices.Equal(lr.Before, l.Before) || rep.Dropped[dataset.DropTooLong] != lr.Dropped {
				t.Fatalf("lengths before %v, want %v; dropped %d, reported %d", lr.Before, l.Before, lr.Dropped, rep.Dropped[dataset.DropTooLong])
			}
			if lr.Dropped+lr.Truncated != longer || len(got) != len(rows)-lr.Dropped {
				t.Fatalf("%d longer rows: %d dropped, %d truncated, %d rows written of %d", longer, lr.Dropped, lr.Truncated, len(got), len(rows))
			}
			if !tt.truncate && lr.Truncated != 0 {
				t.Fatalf("drop mode truncated %d rows", lr.Truncated)
			}
			if tt.truncate && lr.Truncated == 0 {
				t.Fatal("no row was truncated")
			}
			cut := 0
			for i, r := range got {
				n := tok.Count(dataset.ChatText(r.Messages, r.Tools))
				if n > limit || n != lr.Written[i] {
					t.Fatalf("row %d: %d tokens (counted %d), bound %d", i, n, lr.Written[i], limit)
				}
				whole := byEpisode[r.Meta.EpisodeID]
				if len(r.Messages) == len(whole.Messages) {
					continue
				}
				cut++
				k := len(r.Messages)
				if !tt.truncate || k > len(whole.Messages) || !slices.EqualFunc(r.Messages, whole.Messages[:k], sameMessage) ||
					r.Messages[k-1].Role != "tool" || whole.Messages[k].Role != "assistant" {
					t.Fatalf("row %d (%d of %d messages) is not whole steps of its episode", i, k, len(whole.Messages))
				}
			}
			if cut != lr.Truncated {
				t.Fatalf("%d rows shorter than their episode, %d reported truncated", cut, lr.Truncated)
			}
			card, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			want := "longer rows dropped."
			if tt.truncate {
				want = "rows cut at the last step boundary that fits"
			}
			if !strings.Contains(string(card), "## Length") || !strings.Contains(string(card), want) ||
				!strings.Contains(string(card), "counted with Qwen3's tokenizer.json") {
				t.Fatalf("card:\n%s", card)
			}

			// The sequential reference pass writes the same bytes.
			o := opts(limit, tt.truncate)
			o.Workers = -1
			seqDir, _ := e.export(t, o)
			a, _ := os.ReadFile(filepath.Join(dir, "train.jsonl"))
			b, _ := os.ReadFile(filepath.Join(seqDir, "train.jsonl"))
			if string(a) != string(b) {
				t.Fatal("the sequential pass wrote other rows")
			}
		})
	}

	t.Run("estimate counts high", func(t *testing.T) {
		_, rep := e.export(t, dataset.Options{Format: dataset.FormatSFT})
		if !strings.HasPrefix(rep.Lengths.Counter, "estimate") {
			t.Fatalf("counter %q", rep.Lengths.Counter)
		}
		for i, n := range rep.Lengths.Before {
			if n < l.Before[i] {
				t.Errorf("row %d: estimated %d tokens, Qwen3 counts %d", i, n, l.Before[i])
			}
		}
	})
}

// TestChatTextMatchesQwen3Template: three SFT rows of an `arena dev` run render exactly as
// Qwen3's own chat_template renders them through @huggingface/jinja
// (testdata/qwen3-chat.mjs), thinking, tool calls, tool responses and tool schemas included.
func TestChatTextMatchesQwen3Template(t *testing.T) {
	cases := readJSONL[struct {
		Row  string `json:"row"`
		Text string `json:"text"`
	}](t, "testdata/qwen3-chat.jsonl")
	if len(cases) != 3 {
		t.Fatalf("%d cases", len(cases))
	}
	for i, c := range cases {
		var row dataset.SFTRow
		if err := json.Unmarshal([]byte(c.Row), &row); err != nil {
			t.Fatal(err)
		}
		got := dataset.ChatText(row.Messages, row.Tools)
		if got != c.Text {
			at := 0
			for at < min(len(got), len(c.Text)) && got[at] == c.Text[at] {
				at++
			}
			t.Fatalf("row %d differs at byte %d of %d: %q, want %q", i, at, len(c.Text),
				got[max(0, at-40):min(len(got), at+40)], c.Text[max(0, at-40):min(len(c.Text), at+40)])
		}
	}
}

func sameMessage(a, b dataset.Message) bool {
	return a.Role == b.Role && a.ReasoningContent == b.ReasoningContent && a.ToolCallID == b.ToolCallID &&
		(a.Content == nil) == (b.Content == nil) && (a.Content == nil || *a.Content == *b.Content) && len(a.ToolCalls) == len(b.ToolCalls)
}

// TestMaxTokensRefused: a bound outside sft, or --truncate without a bound, is one clear
// error before anything is written.
func TestMaxTokensRefused(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name string
		o    dataset.Options
		want string
	}{
		{"steps", dataset.Options{Format: dataset.FormatSteps, MaxTokens: 100}, "format steps: not implemented (format sft only)"},
		{"grpo tokenizer", dataset.Options{Format: dataset.FormatGRPO, Tokenizer: dataset.EstimateTokens{}}, "format grpo: not implemented"},
		{"truncate alone", dataset.Options{Format: dataset.FormatSFT, Truncate: true}, "truncate needs a max tokens bound"},
		{"negative", dataset.Options{Format: dataset.FormatSFT, MaxTokens: -1}, "max tokens -1 must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.Store, o.Ledger, o.Records = e.st, e.ledger, records.New()
			o.Out = filepath.Join(t.TempDir(), "out")
			_, err := dataset.Export(context.Background(), o, zerolog.Nop())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if _, err := os.Stat(o.Out); !os.IsNotExist(err) {
				t.Fatalf("out dir written: %v", err)
			}
		})
	}
}
