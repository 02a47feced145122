package shop

import (
	"encoding/json"
	"strings"
)

// ToolSchema is one tool in OpenAI's function-calling format:
// {"type": "function", "function": {"name", "description", "parameters"}}.
type ToolSchema struct {
	Type     string         `json:"type"`
	Function FunctionSchema `json:"function"`
}

// FunctionSchema describes a function: its parameters are a JSON Schema
// object.
type FunctionSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolSchemas returns the schemas of the six tools, in ToolNames order,
// for the episode protocol to send to agents. Names, parameters and
// required sets are ShoppingBench's, so agents trained there call them the
// same way. The descriptions are static: nothing in them depends on a
// problem or on the web corpus. Each call returns fresh values.
func ToolSchemas() []ToolSchema {
	services := strings.Join(ServiceNames(), ", ")
	fn := func(name, desc string, params map[string]any) ToolSchema {
		raw, err := json.Marshal(params)
		if err != nil {
			// The literals below are plain maps and strings.
			panic("shop: tool schema does not marshal: " + err.Error())
		}
		return ToolSchema{Type: "function", Function: FunctionSchema{Name: name, Description: desc, Parameters: raw}}
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return []ToolSchema{
		fn(ToolFindProduct,
			"Search the marketplace. Returns up to 10 products per page, each with product_id, shop_id, title, price, service and sold_count. "+
				"Results are the 50 most relevant matches (5 pages); filters are applied before paging.",
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"q": str(`Search words, e.g. "nike shoes" or "backpack for college student".`),
					"page": map[string]any{"type": "integer", "minimum": 1, "maximum": MaxPages,
						"description": "Result page, 1 to 5; raise it to see more products."},
					"shop_id": str("Only search the products of this shop."),
					"price":   str(`Price range: "lo-hi" or "lo-", e.g. "0-100", "100-1000", "1000-".`),
					"sort": map[string]any{"type": "string", "enum": []string{"priceasc", "pricedesc", "order", "default"},
						"description": "priceasc: cheapest first; pricedesc: most expensive first; order: best-selling first; default: most relevant first. Sorting reorders the 50 most relevant matches."},
					"service": str("Comma-separated services every product must offer, from: " + services + ". " +
						"official = LazMall (authentic brand store, easy returns); freeShipping = free delivery; COD = cash on delivery; " +
						"flashsale = LazFlash limited-time deal; default = no service filter."),
				},
				"required": []string{"q", "page"},
			}),
		fn(ToolViewProductInformation,
			"Fetch details of products by id: short_description, description, sku_options (the variants you can buy) and attributes.",
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"product_ids": str("Comma-separated product_ids, at most 20."),
				},
				"required": []string{"product_ids"},
			}),
		fn(ToolRecommendProduct,
			"Recommend products to the user as the final answer. Use it only once.",
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"product_ids": str("Comma-separated product_ids. One product: the best match. Several products: in the order the user asked for them. " +
						"Products from one shop: all ids must share that shop_id."),
				},
				"required": []string{"product_ids"},
			}),
		fn(ToolTerminate,
			"End the conversation and report whether the task was completed.",
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"status": map[string]any{"type": "string", "enum": []string{"success", "failure"},
						"description": "success if the request was fulfilled, otherwise failure."},
				},
				"required": []string{"status"},
			}),
		fn(ToolWebSearch,
			"Search the web for facts the request depends on, such as what a term means or which brand a description points to. "+
				"Returns up to max_results pages, best first, each with url, title and content (a snippet of the page).",
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"q": str(`What to look up, e.g. "which brand of headphones was founded in Osaka".`),
					"max_results": map[string]any{"type": "integer", "minimum": 1, "maximum": MaxWebResults,
						"description": "How many results to return, 1 to 20; default 10."},
				},
				"required": []string{"q"},
			}),
		fn(ToolPythonExecute,
			"Run Python code and return what it prints, e.g. to compare totals across shops or apply a voucher. "+
				"Plain Python runs: numbers, strings and f-strings, lists, dicts, sets, tuples, comprehensions, if/for/while, "+
				"def and lambda, try/except, and the common built-ins (min, max, sum, sorted, round, abs, len, range, enumerate, zip, "+
				"int, float, str, dict, list, print, ...). Imports, files, classes and introspection are refused; "+
				"integers stay within 64 bits, and steps, memory and output are bounded.",
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"code": str(`The code; it must print its results, e.g. "total = 459 + 1299.5\nprint(round(total * 0.9, 2))".`),
				},
				"required": []string{"code"},
			}),
	}
}

// ToolSchemasJSON is ToolSchemas as a JSON array, ready for episode_start.
func ToolSchemasJSON() json.RawMessage {
	raw, err := json.Marshal(ToolSchemas())
	if err != nil {
		panic("shop: tool schemas do not marshal: " + err.Error())
	}
	return raw
}
