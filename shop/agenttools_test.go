package shop_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/knowledge"
	"arena/shop"
	"arena/shop/gen"
	"arena/shop/pyexec"
)

// webTools are tools over a small generated catalog with its knowledge
// corpus, and a fact of that corpus to look up.
func webTools(t *testing.T, opts shop.ToolsOptions) (*shop.Tools, knowledge.Fact) {
	t.Helper()
	ctx := context.Background()
	g, err := gen.New(gen.Options{Products: 2000, Seed: 5}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := g.Products(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Workers: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	web, err := knowledge.Build(ctx, cat, knowledge.Options{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	opts.Index = idx
	if opts.Web == nil {
		opts.Web = web
	}
	tools, err := shop.NewTools(opts, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tools, web.Facts()[0]
}

func TestWebSearchTool(t *testing.T) {
	tools, fact := webTools(t, shop.ToolsOptions{})
	q, _ := json.Marshal(fact.Questions[0])
	for _, tc := range []struct {
		name    string
		args    string
		results int // expected result count when the call succeeds
		code    shop.ErrorCode
		msg     string
	}{
		{"question", `{"q": ` + string(q) + `}`, 10, "", ""},
		{"max results", `{"q": ` + string(q) + `, "max_results": 3}`, 3, "", ""},
		{"max results as text", `{"q": ` + string(q) + `, "max_results": "2"}`, 2, "", ""},
		{"arguments as a JSON string", `"{\"q\": \"brand founded\", \"max_results\": 1}"`, 1, "", ""},
		{"max results zero", `{"q": "x", "max_results": 0}`, 0, shop.CodeInvalidArgument, "max_results must be an integer from 1 to 20"},
		{"max results above", `{"q": "x", "max_results": 21}`, 0, shop.CodeInvalidArgument, "from 1 to 20"},
		{"max results fraction", `{"q": "x", "max_results": 2.5}`, 0, shop.CodeInvalidArgument, "from 1 to 20"},
		{"max results bool", `{"q": "x", "max_results": true}`, 0, shop.CodeInvalidArgument, "must be a string"},
		{"no q", `{"max_results": 3}`, 0, shop.CodeMissingArgument, `missing required argument "q"`},
		{"blank q", `{"q": "   "}`, 0, shop.CodeMissingArgument, `missing required argument "q"`},
		{"long q", `{"q": "` + strings.Repeat("a", 1001) + `"}`, 0, shop.CodeInvalidArgument, "keep it under 1000"},
		{"not an object", `[1]`, 0, shop.CodeBadArguments, "must be a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tools.Execute(context.Background(), shop.ToolWebSearch, json.RawMessage(tc.args))
			if tc.code != "" {
				if res.Err == nil || res.Err.Code != tc.code || !strings.Contains(res.Err.Message, tc.msg) ||
					!strings.HasPrefix(res.Err.Message, "web_search: ") {
					t.Fatalf("got %s %+v, want %s containing %q", res.Output, res.Err, tc.code, tc.msg)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err.Message)
			}
			var results []map[string]string
			if err := json.Unmarshal(res.Output, &results); err != nil {
				t.Fatalf("output %s: %v", res.Output, err)
			}
			if len(results) != tc.results {
				t.Fatalf("%d results, want %d", len(results), tc.results)
			}
			for _, r := range results {
				if len(r) != 3 || r["url"] == "" || r["title"] == "" || r["content"] == "" {
					t.Fatalf("result %v is not ShoppingBench's {url, title, content}", r)
				}
			}
			if strings.Contains(tc.args, "q\": \"") && tc.name != "arguments as a JSON string" && results[0]["url"] != fact.URL {
				t.Fatalf("first result %v, want the page of %q (%s)", results[0], fact.Answer, fact.URL)
			}
		})
	}

	t.Run("no corpus", func(t *testing.T) {
		noWeb, err := shop.NewTools(shop.ToolsOptions{Index: mustIndex(t)}, zerolog.Nop(), nil)
		if err != nil {
			t.Fatal(err)
		}
		res := noWeb.Execute(context.Background(), shop.ToolWebSearch, json.RawMessage(`{"q": "anything"}`))
		if res.Err == nil || res.Err.Code != shop.CodeUnavailable {
			t.Fatalf("got %s %+v, want unavailable", res.Output, res.Err)
		}
	})
}

func mustIndex(t *testing.T) *shop.Index {
	t.Helper()
	cat, err := shop.NewCatalog([]shop.Product{{ProductID: "1", Title: "Earbuds", Price: 1}})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestPythonExecuteTool(t *testing.T) {
	tools, err := shop.NewTools(shop.ToolsOptions{Index: mustIndex(t), Python: pyexec.Limits{MaxOutputBytes: 64}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, args string
		want       string // printed output when the call succeeds
		code       shop.ErrorCode
		msg        string
	}{
		{"voucher arithmetic", `{"code": "total = 459 + 1299.5\nprint(max(total * 0.85, total - 200))"}`, "1558.5\n", "", ""},
		{"arguments as a JSON string", `"{\"code\": \"print(round(2.675, 2))\"}"`, "2.67\n", "", ""},
		{"f-string", `{"code": "print(f'{1234.5:,.2f} PHP')"}`, "1,234.50 PHP\n", "", ""},
		{"shop totals with a lambda", `{"code": "totals = {\"a\": 120, \"b\": 95}\nbest = min(totals, key=lambda s: totals[s])\nprint(f\"{best}: {totals[best]}\")"}`, "b: 95\n", "", ""},
		{"voucher threshold loop", `{"code": "for total in [150, 459]:\n    if total >= 170:\n        print(total - 34)\n    else:\n        print(total)"}`, "150\n425\n", "", ""},
		{"import refused", `{"code": "import os\nprint(os.getcwd())"}`, "", shop.CodeExecution, "python_execute: line 1: Unsupported: imports are not supported"},
		{"escape refused", `{"code": "print(().__class__.__subclasses__())"}`, "", shop.CodeExecution, "attribute names starting with '_'"},
		{"endless loop bounded", `{"code": "while True:\n    pass"}`, "", shop.CodeExecution, "LimitExceeded: execution limit"},
		{"runtime error", `{"code": "print(1 / 0)"}`, "", shop.CodeExecution, "python_execute: line 1: ZeroDivisionError: division by zero"},
		{"nothing printed", `{"code": "x = 2 + 2"}`, "", shop.CodeExecution, "No output produced by the code"},
		{"number as code", `{"code": 5}`, "", shop.CodeExecution, "No output produced"},
		{"output limit", `{"code": "print('x' * 100)"}`, "", shop.CodeExecution, "printed more than 64 bytes"},
		{"no code", `{}`, "", shop.CodeMissingArgument, `missing required argument "code"`},
		{"code not text", `{"code": ["print(1)"]}`, "", shop.CodeInvalidArgument, "code must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tools.Execute(context.Background(), shop.ToolPythonExecute, json.RawMessage(tc.args))
			if tc.code != "" {
				if res.Err == nil || res.Err.Code != tc.code || !strings.Contains(res.Err.Message, tc.msg) {
					t.Fatalf("got %s %+v, want %s containing %q", res.Output, res.Err, tc.code, tc.msg)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err.Message)
			}
			var got string
			if err := json.Unmarshal(res.Output, &got); err != nil || got != tc.want {
				t.Fatalf("output %s (%v), want the JSON string %q", res.Output, err, tc.want)
			}
		})
	}
}

// TestNewToolsInSession checks that the episode rules cover the new tools:
// they run any number of times before terminate and none after it.
func TestNewToolsInSession(t *testing.T) {
	tools, fact := webTools(t, shop.ToolsOptions{})
	s := tools.NewSession()
	ctx := context.Background()
	q, _ := json.Marshal(fact.Questions[0])
	for range 2 {
		if res := s.Execute(ctx, shop.ToolWebSearch, json.RawMessage(`{"q": `+string(q)+`}`)); !res.OK() {
			t.Fatal(res.Err.Message)
		}
		if res := s.Execute(ctx, shop.ToolPythonExecute, json.RawMessage(`{"code": "print(1)"}`)); !res.OK() {
			t.Fatal(res.Err.Message)
		}
	}
	if res := s.Execute(ctx, shop.ToolTerminate, json.RawMessage(`{"status": "failure"}`)); !res.OK() {
		t.Fatal(res.Err.Message)
	}
	for _, name := range []string{shop.ToolWebSearch, shop.ToolPythonExecute} {
		if res := s.Execute(ctx, name, json.RawMessage(`{"q": "x", "code": "print(1)"}`)); res.Err == nil || res.Err.Code != shop.CodeRepeatedCall {
			t.Errorf("%s after terminate: %s %+v, want repeated_call", name, res.Output, res.Err)
		}
	}
}
