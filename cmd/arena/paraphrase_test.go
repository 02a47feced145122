package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arena/internal/llmclient/llmtest"
	"arena/suite"
)

// TestSuiteGenerateParaphrases: with suite.paraphrase set (key from the
// environment), `arena suite generate` sends every query to the endpoint,
// keeps the rewrites that state every constraint, reports what it kept,
// and writes the paraphrase record into the suite file; a rewrite that
// states none of the constraints is refused and the offline phrasing
// written instead.
// `arena suite refill` paraphrases the hidden problems it adds.
// lossy picks the queries the fake endpoint answers with a rewrite that
// states none of the constraints: about one in three.
func lossy(query string) bool {
	h := fnv.New32a()
	h.Write([]byte(query))
	return h.Sum32()%3 == 0
}

func TestSuiteGenerateParaphrases(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Request) llmtest.Reply {
		if lossy(r.Last) {
			return llmtest.Reply{Content: "Hello. I need something nice, please."}
		}
		return llmtest.Reply{Content: "Hello. " + r.Last}
	})

	dir := t.TempDir()
	cat, sfile := filepath.Join(dir, "catalog.jsonl.gz"), filepath.Join(dir, "suite.jsonl")
	if code, _, errOut := runCLI(t, nil, "shop", "generate", "--products", "3000", "--seed", "2", "--out", cat); code != 0 {
		t.Fatalf("shop generate: %s", errOut)
	}
	environ := []string{"ARENA_SUITE_PARAPHRASE_BASE_URL=" + srv.URL + "/v1", "ARENA_SUITE_PARAPHRASE_MODEL=rewriter",
		"ARENA_SUITE_PARAPHRASE_API_KEY=sk-test-paraphrase"}
	code, out, errOut := runCLI(t, environ, "suite", "generate", "--catalog", cat, "--count", "24", "--seed", "3", "--out", sfile)
	if code != 0 {
		t.Fatalf("suite generate: exit %d: %s", code, errOut)
	}
	unauthorised := 0
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer sk-test-paraphrase" {
			unauthorised++
		}
	}
	if n := len(srv.Requests()); n != 24 || unauthorised != 0 {
		t.Fatalf("%d requests (%d without the key from the environment), want 24 with it", n, unauthorised)
	}
	f, err := os.Open(sfile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, _, err := suite.ReadJSONL(f, sfile)
	if err != nil {
		t.Fatal(err)
	}
	kept, refused := 0, 0
	for _, p := range ps {
		offline := p.Query
		if p.Paraphrase != nil {
			offline = p.Paraphrase.Offline
		}
		if lossy(offline) {
			refused++
		}
		if p.Paraphrase != nil {
			kept++
			if !strings.HasPrefix(p.Query, "Hello. ") || p.Paraphrase.Model != "rewriter" || "Hello. "+p.Paraphrase.Offline != p.Query {
				t.Errorf("problem %s: query %q, record %+v", p.ID, p.Query, p.Paraphrase)
			}
		} else if strings.HasPrefix(p.Query, "Hello. ") {
			t.Errorf("problem %s: a refused rewrite was written: %q", p.ID, p.Query)
		}
	}
	if kept != 24-refused || refused == 0 {
		t.Fatalf("%d paraphrased problems in the file, want %d (and some refused)", kept, 24-refused)
	}
	want := fmt.Sprintf("paraphrased %d of 24 (offline phrasing kept: %d drops constraint) with rewriter", kept, refused)
	if !strings.Contains(out, want) {
		t.Fatalf("report lacks %q:\n%s", want, out)
	}

	before := len(srv.Requests())
	data := filepath.Join(dir, "data")
	if code, out, errOut := runCLI(t, environ, "suite", "refill", "--catalog", cat, "--min", "6", "--data", data); code != 0 {
		t.Fatalf("suite refill: exit %d: %s%s", code, out, errOut)
	}
	if len(srv.Requests()) == before {
		t.Fatal("suite refill sent nothing to the paraphrase endpoint")
	}

	// A configured endpoint without a model is one line before any work.
	code, _, errOut = runCLI(t, environ[:1], "suite", "generate", "--catalog", cat, "--count", "4", "--out", filepath.Join(dir, "x.jsonl"))
	if code == 0 || !strings.Contains(errOut, "suite.paraphrase.model") || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
		t.Fatalf("exit %d, stderr %q; want one line naming suite.paraphrase.model", code, errOut)
	}
}
