package episode

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"arena/internal/testseed"
)

func TestNormalText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "find shoes", "find shoes"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"carriage return removed", "a\r\nb", "a\nb"},
		{"NUL and ESC removed", "a\x00b\x1b[31mc", "ab[31mc"},
		{"DEL and C1 removed", "a\x7fb\u0085c\u009bd", "abcd"},
		{"invalid UTF-8 replaced", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"bidi and other format characters kept", "a\u202eb\u200dc", "a\u202eb\u200dc"},
		{"non-ASCII kept", "Grüße 東京", "Grüße 東京"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := NormalText(tc.in)
			if got != tc.want {
				t.Fatalf("NormalText(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := NormalText(got); again != got {
				t.Fatalf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestNormalCall(t *testing.T) {
	cases := []struct {
		name, tool, params string
		wantName, want     string
	}{
		{"known keys kept, canonical", "find_product", `{ "page": 2, "q": "shoes" }`, "find_product", `{"page":2,"q":"shoes"}`},
		{"unknown keys dropped", "find_product", `{"q":"shoes","pad":"` + strings.Repeat("x", 1000) + `"}`, "find_product", `{"q":"shoes"}`},
		{"unknown tool keeps nothing", "buy_now", `{"q":"shoes"}`, "buy_now", `{}`},
		{"object value emptied", "terminate", `{"status":{"pad":"xxxx"}}`, "terminate", `{"status":{}}`},
		{"array kept, its objects emptied", "recommend_product", `{"product_ids":["a",{"x":1},2]}`, "recommend_product", `{"product_ids":["a",{},2]}`},
		{"lone surrogate and controls", "find_product", `{"q":"a\ud800b\u0000c\u001bd"}`, "find_product", `{"q":"a` + "\uFFFD" + `bcd"}`},
		{"paired surrogates kept", "find_product", `{"q":"\ud83d\ude00"}`, "find_product", `{"q":"` + "\U0001F600" + `"}`},
		{"invalid UTF-8 replaced", "find_product", "{\"q\":\"a\xffb\"}", "find_product", `{"q":"a` + "\uFFFD" + `b"}`},
		{"duplicate key: the last", "find_product", `{"q":"a","q":"b"}`, "find_product", `{"q":"b"}`},
		{"not an object", "find_product", `[1]`, "find_product", `{}`},
		{"html not escaped, numbers as written", "find_product", `{"q":"a&b<c>","page":1.0}`, "find_product", `{"page":1.0,"q":"a&b<c>"}`},
		{"name normalised and bounded", "find_\x00product" + strings.Repeat("z", 100), `{"q":"x"}`, "find_product" + strings.Repeat("z", maxToolNameBytes-len("find_product")), `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name, got := normalCall(tc.tool, json.RawMessage(tc.params))
			if name != tc.wantName || string(got) != tc.want {
				t.Fatalf("normalCall = %q %s, want %q %s", name, got, tc.wantName, tc.want)
			}
			if n2, again := normalCall(name, got); n2 != name || string(again) != string(got) {
				t.Fatalf("not idempotent: %s then %s", got, again)
			}
			if p := JSONTextProblem(got); p != "" {
				t.Fatalf("normalised parameters %s still have a problem: %s", got, p)
			}
		})
	}
}

func TestJSONTextProblem(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"clean", `{"q":"a\nb\tc \"\\ \u00e9 \ud83d\ude00"}`, ""},
		{"lone high surrogate", `{"q":"a\ud800"}`, `lone surrogate \ud800 at byte 7`},
		{"lone low surrogate", `{"q":"\udc00x"}`, `lone surrogate \udc00`},
		{"high then non-low", `{"q":"\ud800\u0041"}`, `lone surrogate \ud800`},
		{"escaped NUL", `{"q":"\u0000"}`, `control character \u0000`},
		{"escaped ESC", `{"q":"\u001b[0m"}`, `control character \u001b`},
		{"escaped carriage return", `{"q":"a\rb"}`, `control character \r`},
		{"invalid UTF-8", "{\"q\":\"\xfe\"}", "invalid UTF-8 byte 0xfe"},
		{"escaped backslash then u", `{"q":"\\ud800"}`, ""},
		{"C1 control", `{"q":"` + "\u0085" + `"}`, "control character U+0085"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := JSONTextProblem([]byte(tc.in))
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("JSONTextProblem(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNormalizeInfer(t *testing.T) {
	body := []byte("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\xffb\\ud800c\\ud83d\\ude00\\u0000\"}]}")
	inf := &Infer{RequestID: "r\x00" + strings.Repeat("1", 200), Body: body}
	normalizeInfer(inf)
	if !utf8.Valid(inf.Body) || !json.Valid(inf.Body) {
		t.Fatalf("body %q is not valid UTF-8 JSON", inf.Body)
	}
	var got struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	var orig struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if json.Unmarshal(inf.Body, &got) != nil || json.Unmarshal(body, &orig) != nil || got.Messages[0].Content != orig.Messages[0].Content {
		t.Fatalf("the prompt decodes to %q, before %q: its meaning changed", got.Messages[0].Content, orig.Messages[0].Content)
	}
	if p := JSONEncodingProblem(inf.Body); p != "" {
		t.Fatalf("normalised body: %s", p)
	}
	if p := JSONTextProblem(inf.Body); !strings.Contains(p, `\u0000`) {
		t.Fatalf("problem %q: want only the escaped NUL left (prompts keep their escapes)", p)
	}
	if len(inf.RequestID) != maxRequestIDBytes || strings.ContainsRune(inf.RequestID, 0) {
		t.Fatalf("request id %q not normalised and bounded", inf.RequestID)
	}
}

// BenchmarkNormalizeStep is the cost normalisation adds to each step a
// miner sends: a 2 KB think and four calls, as the loopback benchmark's
// agent sends them (clean), and the same with a NUL in the think and an
// unknown key in every call (hostile).
func BenchmarkNormalizeStep(b *testing.B) {
	mk := func(extra, key string) Step {
		calls := []ToolCall{{ID: "s1c0", Name: "find_product", Parameters: json.RawMessage(`{"q":"black wireless earbuds under 500","page":2` + key + `}`)}}
		for i := 1; i < 4; i++ {
			calls = append(calls, ToolCall{ID: "s1c" + string(rune('0'+i)), Name: "view_product_information", Parameters: json.RawMessage(`{"product_ids":"3706669986,3706669987"` + key + `}`)})
		}
		return Step{Think: strings.Repeat("compare the prices of the two shops; ", 55) + extra, ToolCalls: calls}
	}
	for _, c := range []struct {
		name string
		st   Step
	}{{"clean", mk("", "")}, {"hostile", mk("\x00", `,"pad":"xxxxxxxx"`)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				st := c.st
				st.ToolCalls = append([]ToolCall(nil), c.st.ToolCalls...)
				NormalizeStep(&st)
			}
		})
	}
}

// TestPlainParamsMatchesDecoded: the shortcut for plain parameters gives
// exactly what decoding and encoding them gives, on the table's inputs and
// on random ones built from the pieces that matter (seed logged; replay
// with ARENATEST_SEED).
func TestPlainParamsMatchesDecoded(t *testing.T) {
	known := toolParams()["find_product"]
	inputs := []string{
		`{"q":"shoes","page":1}`, `{ "page" : 1 , "q" : "a\"b\\c\nd\te" }`, `{"q":"a<b>&c"}`, `{"page":-1.5e3,"q":"x"}`,
		`{"q":null,"page":true,"sort":false}`, `{"q":"\u0041"}`, `{"q":"a\/b"}`, `{"q":"é"}`, `{"q":"x","q":"y"}`,
		`{"\u0071":"x"}`, `{"pad":[1,{"a":2}],"q":"x"}`, `{"q":["a","b"]}`, `{"q":{"a":1}}`, `{}`, `[]`, `{"q":"x"} 1`, `{"q":"x\u2028"}`,
	}
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 0))
	keys := []string{`"q"`, `"page"`, `"sort"`, `"pad"`, `"\u0070age"`}
	values := []string{`"a"`, `"a b"`, `"\n"`, `"\t"`, `"\r"`, `"\u0000"`, `"\ud800"`, `"\"\\"`, "\"\xff\"", `"é"`, `"\u00e9"`, `1`, `1.0`, `-2e3`, `true`, `null`, `[]`, `["x"]`, `{}`, `" "`, `"<&>"`, `"\u007f"`, `"\/"`}
	for range 2000 {
		var b strings.Builder
		b.WriteByte('{')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(keys[rng.IntN(len(keys))] + ":" + values[rng.IntN(len(values))])
		}
		b.WriteByte('}')
		inputs = append(inputs, b.String())
	}
	plain := 0
	for _, in := range inputs {
		got, ok := plainParams(known, json.RawMessage(in))
		if !ok {
			continue
		}
		plain++
		if want := decodedParams(known, json.RawMessage(in)); string(got) != string(want) {
			t.Fatalf("%s: plain %s, decoded %s", in, got, want)
		}
	}
	if plain < 100 {
		t.Fatalf("only %d inputs took the shortcut", plain)
	}
}
