package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arena/dataset/datasettest"
)

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("%s line %d is not JSON", path, n+1)
		}
		n++
	}
	return n
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	fx := datasettest.Build(t, filepath.Join(dir, "data"), datasettest.Options{Racers: 4, Anomalies: true, Verified: true})
	out := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name  string
		args  []string
		code  int
		want  string // in stdout (exit 0) or the last stderr line
		files []string
	}{
		{"sft", []string{"export", "--data", fx.Dir, "--format", "sft", "--out", out("sft"), "--eval-fraction", "0.3", "--parquet"}, 0, "train rows",
			[]string{"train.jsonl", "eval.jsonl", "train.parquet", "eval.parquet", "README.md"}},
		{"steps", []string{"export", "--data", fx.Dir, "--format", "steps", "--out", out("steps"), "--think", "tags"}, 0, "steps", []string{"train.jsonl", "README.md"}},
		{"dpo openai", []string{"export", "--data", fx.Dir, "--format", "dpo", "--style", "openai", "--min-margin", "0.3", "--out", out("dpo")}, 0, "dpo", []string{"train.jsonl"}},
		{"grpo filtered", []string{"export", "--data", fx.Dir, "--format", "grpo", "--agentic", "--types", "product,voucher", "--since-block", "1", "--out", out("grpo")}, 0, "grpo", []string{"train.jsonl"}},
		{"completions", []string{"export", "--data", fx.Dir, "--format", "completions", "--out", out("completions"), "--parquet"}, 0, "completions", []string{"train.jsonl", "train.parquet", "README.md"}},
		{"sft verified only", []string{"export", "--data", fx.Dir, "--format", "sft", "--verified-only", "--out", out("sft-verified")}, 0, "train rows", []string{"train.jsonl"}},
		{"sft success only", []string{"export", "--data", fx.Dir, "--format", "sft", "--success-only", "--min-final", "0.5", "--min-judge", "0.5", "--out", out("sft-ok")}, 0, "train rows", []string{"train.jsonl"}},
		{"non-empty out", []string{"export", "--data", fx.Dir, "--format", "sft", "--out", out("sft")}, 1, "not empty; pass --force", nil},
		{"force", []string{"export", "--data", fx.Dir, "--format", "sft", "--out", out("sft"), "--force"}, 0, "train rows", []string{"train.jsonl"}},
		{"missing data dir", []string{"export", "--data", out("nope"), "--format", "sft", "--out", out("x1")}, 1, "no such directory", nil},
		{"dev folder", []string{"export", "--data", dir, "--format", "sft", "--out", out("x6")}, 1, "not an arena data dir, but " + fx.Dir + " is one (an `arena dev` folder keeps the validator's data there): pass " + fx.Dir, nil},
		{"not a data dir", []string{"export", "--data", out("sft"), "--format", "sft", "--out", out("x7")}, 1, "not an arena data dir: it holds no Badger database (no MANIFEST file)", nil},
		{"sft max tokens", []string{"export", "--data", fx.Dir, "--format", "sft", "--max-tokens", "1750", "--tokenizer", qwen3Tokenizer, "--out", out("sft-short")}, 0,
			"21 train rows, 0 eval rows in " + out("sft-short") + "\nexport: rows of 1723 to 1799 tokens (median 1761, counted with the tokenizer qwen3-tokenizer.json.gz); 27 longer than 1750 tokens dropped\n", []string{"train.jsonl", "README.md"}},
		{"sft truncate", []string{"export", "--data", fx.Dir, "--format", "sft", "--max-tokens", "2400", "--truncate", "--out", out("sft-cut")}, 0,
			"48 train rows, 0 eval rows in " + out("sft-cut") + "\nexport: rows of 2322 to 2416 tokens (median 2404, counted with estimate: bytes / 3); 0 longer than 2400 tokens dropped, 27 truncated at a step boundary\n", []string{"train.jsonl", "README.md"}},
		{"steps max tokens", []string{"export", "--data", fx.Dir, "--format", "steps", "--max-tokens", "1750", "--out", out("x8")}, 1, "format steps: not implemented (format sft only)", nil},
		{"not a tokenizer", []string{"export", "--data", fx.Dir, "--format", "sft", "--tokenizer", filepath.Join(fx.Dir, "MANIFEST"), "--out", out("x9")}, 1, "--tokenizer: tokenizer " + filepath.Join(fx.Dir, "MANIFEST") + ": not a tokenizer.json", nil},
		{"unknown format", []string{"export", "--data", fx.Dir, "--format", "csv", "--out", out("x2")}, 1, `unknown format "csv"`, nil},
		{"eval fraction 1", []string{"export", "--data", fx.Dir, "--format", "sft", "--eval-fraction", "1", "--out", out("x3")}, 1, "--eval-fraction 1: want a number in [0,1)", nil},
		{"bad type", []string{"export", "--data", fx.Dir, "--format", "sft", "--types", "book", "--out", out("x4")}, 1, `unknown problem type "book"`, nil},
		{"bad think", []string{"export", "--data", fx.Dir, "--format", "sft", "--think", "xml", "--out", out("x5")}, 1, `unknown think mode "xml"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.code, stdout, stderr)
			}
			if code != 0 {
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				last := lines[len(lines)-1]
				if !strings.HasPrefix(last, "arena: export: ") || !strings.Contains(last, tt.want) {
					t.Fatalf("last stderr line %q, want arena: export: ... %q", last, tt.want)
				}
				if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") {
					t.Fatalf("stack trace: %s", stderr)
				}
				return
			}
			if !strings.Contains(stdout, tt.want) {
				t.Fatalf("stdout %q lacks %q", stdout, tt.want)
			}
			outDir := tt.args[indexOf(tt.args, "--out")+1]
			for _, f := range tt.files {
				if _, err := os.Stat(filepath.Join(outDir, f)); err != nil {
					t.Fatalf("missing %s: %v", f, err)
				}
			}
			card, err := os.ReadFile(filepath.Join(outDir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			n := countLines(t, filepath.Join(outDir, "train.jsonl"))
			if !strings.Contains(string(card), fmt.Sprintf("| train | **all** | %d |", n)) {
				t.Fatalf("card does not count the %d train rows:\n%s", n, card)
			}
			if !strings.Contains(string(card), "arena export --data") {
				t.Fatalf("card lacks the command line:\n%s", card)
			}
		})
	}
}

// qwen3Tokenizer is Qwen3's tokenizer.json, kept as internal/bpe's test data.
const qwen3Tokenizer = "../../internal/bpe/testdata/qwen3-tokenizer.json.gz"

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}
