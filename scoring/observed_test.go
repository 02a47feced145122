package scoring

import (
	"encoding/json"
	"maps"
	"strconv"
	"testing"

	"arena/episode"
)

// decodeIDs is the obvious reference for scanIDs: decode the JSON and
// collect every product_id key's value.
func decodeIDs(t *testing.T, raw string) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("test input is not JSON: %v", err)
	}
	out := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "product_id" {
					switch id := e.(type) {
					case string:
						out[id] = true
					case float64:
						out[strconv.FormatFloat(id, 'f', -1, 64)] = true
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func TestScanIDsMatchesDecoding(t *testing.T) {
	cases := map[string]string{
		"list":              `[{"product_id":"1","shop_id":"9"},{"product_id":"2"}]`,
		"spaces":            "{ \"product_id\" \t:\n \"3\" }",
		"number":            `{"product_id": 4056, "sold_count": 7}`,
		"nested":            `{"items":[{"product":{"product_id":"5"}}],"page":1}`,
		"prefixed key":      `{"parent_product_id":"6","product_id_v2":"7","my_product_id":"8"}`,
		"id in description": `{"product_id":"9","description":"a \"product_id\": \"10\" trick and product_id:\"11\""}`,
		"escaped id":        `{"product_id":"1\u0032"}`,
		"underscores":       `{"a_b_c_d_e_f":"_____","product_id":"13","x":"__product_id\"__"}`,
		"value product_id":  `{"k":"product_id","product_id":"14"}`,
		"empty":             `{}`,
		"null id":           `{"product_id":null}`,
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			want := decodeIDs(t, raw)
			tr := &episode.Trajectory{Steps: []episode.StepRecord{{Results: []episode.ToolResult{{ToolCallID: "1", Result: json.RawMessage(raw)}}}}}
			if got := ObservedIDs(tr); !maps.Equal(got, want) {
				t.Fatalf("scan %v, decode %v", got, want)
			}
		})
	}
}
