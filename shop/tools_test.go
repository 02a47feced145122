package shop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/shop/index"
)

func newTestTools(t testing.TB, cat *Catalog) *Tools {
	t.Helper()
	idx, err := BuildIndex(context.Background(), cat, IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatalf("BuildIndex: %v", err)
	}
	tools, err := NewTools(ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatalf("NewTools: %v", err)
	}
	return tools
}

// fixture is a catalog whose answers can be worked out by hand: 70
// "earbuds" listings over 4 shops with known prices, sales and services,
// plus a few unrelated products.
func fixture(t testing.TB) *Catalog {
	t.Helper()
	var ps []Product
	svcs := []Services{0, ServiceCOD, ServiceCOD | ServiceFreeShipping, ServiceOfficial | ServiceFreeShipping | ServiceCOD, ServiceFlashsale}
	for i := range 70 {
		ps = append(ps, Product{
			ProductID:  fmt.Sprint(5000 + i),
			ShopID:     fmt.Sprint(100 + i%4),
			Brand:      "Sonix",
			Category:   "Audio > Headphones > Earbuds",
			Title:      "Wireless Earbuds Bluetooth " + strings.Repeat("Bass ", i%3),
			Price:      float64(100 + (i*37)%500),
			SoldCount:  int64((i * 53) % 200),
			Service:    svcs[i%len(svcs)],
			SKUOptions: []SKU{{{"color_family", "black"}}, {{"color_family", "white"}}},
			Attributes: []Attribute{{"connectivity", []string{"bluetooth"}}},
		})
	}
	ps = append(ps,
		Product{ProductID: "1", ShopID: "900", Title: "Violin Bow Horsetail", Price: 256, Category: "Music > Instruments > Accessories",
			ShortDescription: "warm tone", Description: "bow", SKUOptions: []SKU{{{"size", "4/4"}}}, Attributes: []Attribute{{"brand", []string{"heart string"}}}},
		Product{ProductID: "2", ShopID: "900", Title: "Guitar Strings Nickel", Price: 120, Category: "Music > Instruments > Accessories"},
		Product{ProductID: "3", ShopID: "100", Title: "Phone Case Shockproof", Price: 99, Category: "Mobiles > Accessories > Cases"},
	)
	cat, err := NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

type searchItem struct {
	ProductID string   `json:"product_id"`
	ShopID    string   `json:"shop_id"`
	Title     string   `json:"title"`
	Price     float64  `json:"price"`
	Service   []string `json:"service"`
	SoldCount int64    `json:"sold_count"`
}

func find(t *testing.T, tools *Tools, args string) []searchItem {
	t.Helper()
	res := tools.Execute(context.Background(), ToolFindProduct, json.RawMessage(args))
	if !res.OK() {
		t.Fatalf("find_product %s: %s", args, res.Err.Message)
	}
	var items []searchItem
	if err := json.Unmarshal(res.Output, &items); err != nil {
		t.Fatalf("result is not a JSON list of items: %v\n%s", err, res.Output)
	}
	return items
}

func ids(items []searchItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ProductID)
	}
	return out
}

func TestFindProductArgumentForms(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	base := ids(find(t, tools, `{"q": "earbuds", "page": 2}`))
	tests := []struct {
		name string
		args string
	}{
		{"page as string", `{"q": "earbuds", "page": "2"}`},
		{"page as padded string", `{"q": "earbuds", "page": " 2 "}`},
		{"page as float", `{"q": "earbuds", "page": 2.0}`},
		{"arguments as JSON string", `"{\"q\": \"earbuds\", \"page\": 2}"`},
		{"default sort", `{"q": "earbuds", "page": 2, "sort": "default"}`},
		{"relevance sort", `{"q": "earbuds", "page": 2, "sort": "relevance"}`},
		{"empty optional args", `{"q": "earbuds", "page": 2, "sort": "", "price": "", "shop_id": "", "service": ""}`},
		{"null optional args", `{"q": "earbuds", "page": 2, "sort": null, "price": null, "shop_id": null, "service": null}`},
		{"default service", `{"q": "earbuds", "page": 2, "service": "default"}`},
		{"unknown extra argument", `{"q": "earbuds", "page": 2, "lang": "en"}`},
		{"query case and punctuation", `{"q": "EARBUDS!!", "page": 2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(find(t, tools, tt.args)); !slices.Equal(got, base) {
				t.Fatalf("%s gave %v, want %v", tt.args, got, base)
			}
		})
	}
}

func TestFindProductFilters(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	cat := tools.Catalog()
	tests := []struct {
		name  string
		args  string
		check func(p *Product) bool
	}{
		{"price range inclusive", `{"q": "earbuds", "page": 1, "price": "200-300"}`, func(p *Product) bool { return p.Price >= 200 && p.Price <= 300 }},
		{"price lower bound", `{"q": "earbuds", "page": 1, "price": "500-"}`, func(p *Product) bool { return p.Price >= 500 }},
		{"price upper bound", `{"q": "earbuds", "page": 1, "price": "-150"}`, func(p *Product) bool { return p.Price <= 150 }},
		{"decimal bounds", `{"q": "earbuds", "page": 1, "price": "100.5-137.0"}`, func(p *Product) bool { return p.Price >= 100.5 && p.Price <= 137 }},
		{"one service", `{"q": "earbuds", "page": 1, "service": "COD"}`, func(p *Product) bool { return p.Service.Has(ServiceCOD) }},
		{"all services required", `{"q": "earbuds", "page": 1, "service": "COD,freeShipping"}`, func(p *Product) bool { return p.Service.Has(ServiceCOD | ServiceFreeShipping) }},
		{"service list with default and spaces", `{"q": "earbuds", "page": 1, "service": "default, official"}`, func(p *Product) bool { return p.Service.Has(ServiceOfficial) }},
		{"service as array, any case", `{"q": "earbuds", "page": 1, "service": ["cod", "FREESHIPPING"]}`, func(p *Product) bool { return p.Service.Has(ServiceCOD | ServiceFreeShipping) }},
		{"shop", `{"q": "earbuds", "page": 1, "shop_id": "102"}`, func(p *Product) bool { return p.ShopID == "102" }},
		{"shop as number", `{"q": "earbuds", "page": 1, "shop_id": 101}`, func(p *Product) bool { return p.ShopID == "101" }},
		{"everything", `{"q": "earbuds bass", "page": 1, "shop_id": "103", "price": "0-400", "service": "COD", "sort": "priceasc"}`,
			func(p *Product) bool { return p.ShopID == "103" && p.Price <= 400 && p.Service.Has(ServiceCOD) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Count the matching products by brute force, so we know how
			// many results to expect (the fixture's earbuds all match q).
			want := 0
			for p := range cat.All() {
				if strings.Contains(p.Title, "Earbuds") && tt.check(p) {
					want++
				}
			}
			want = min(want, MaxResults)
			var all []searchItem
			for page := 1; page <= MaxPages; page++ {
				args := strings.Replace(tt.args, `"page": 1`, fmt.Sprintf(`"page": %d`, page), 1)
				all = append(all, find(t, tools, args)...)
			}
			if len(all) != want || want == 0 {
				t.Fatalf("%d results over all pages, want %d (filters must apply before paging)", len(all), want)
			}
			for _, it := range all {
				p, _ := cat.Product(it.ProductID)
				if !tt.check(p) {
					t.Fatalf("result %+v fails the filter", it)
				}
			}
		})
	}
}

func TestFindProductSortsAndPaging(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	all := func(sort string) []searchItem {
		var out []searchItem
		for page := 1; page <= MaxPages; page++ {
			items := find(t, tools, fmt.Sprintf(`{"q": "earbuds", "page": %d, "sort": %q}`, page, sort))
			if len(items) > PageSize {
				t.Fatalf("page %d has %d items", page, len(items))
			}
			out = append(out, items...)
		}
		return out
	}
	relevance := all("default")
	if len(relevance) != MaxResults {
		t.Fatalf("70 matches gave %d results, want the cap of %d", len(relevance), MaxResults)
	}
	tests := []struct {
		sort string
		less func(a, b searchItem) bool // strict order expected between neighbours
	}{
		{"priceasc", func(a, b searchItem) bool {
			return a.Price < b.Price || (a.Price == b.Price && compareIDs(a.ProductID, b.ProductID) < 0)
		}},
		{"pricedesc", func(a, b searchItem) bool {
			return a.Price > b.Price || (a.Price == b.Price && compareIDs(a.ProductID, b.ProductID) < 0)
		}},
		{"order", func(a, b searchItem) bool {
			return a.SoldCount > b.SoldCount || (a.SoldCount == b.SoldCount && compareIDs(a.ProductID, b.ProductID) < 0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.sort, func(t *testing.T) {
			got := all(tt.sort)
			for i := 1; i < len(got); i++ {
				if !tt.less(got[i-1], got[i]) {
					t.Fatalf("items %d and %d out of %s order: %+v %+v", i-1, i, tt.sort, got[i-1], got[i])
				}
			}
			// A sort reorders the same 50 most relevant products.
			a, b := ids(got), ids(relevance)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatal("sorted results are not the relevance top 50")
			}
		})
	}
	t.Run("relevance ties by product id", func(t *testing.T) {
		// Titles repeat with period 3, so equal scores are common.
		idx := tools.idx
		res, _ := idx.Find(FindRequest{Query: "earbuds", Page: 1})
		hits := idx.ix.Search(index.Query{Text: "earbuds", Limit: MaxResults})
		for i := 1; i < len(hits); i++ {
			if hits[i].Score == hits[i-1].Score && hits[i].Doc < hits[i-1].Doc {
				t.Fatal("equal scores not in id order")
			}
		}
		if len(res.Items) != PageSize || res.Total != MaxResults || res.Pages() != MaxPages {
			t.Fatalf("page 1: %d items, total %d", len(res.Items), res.Total)
		}
	})
	t.Run("pages do not overlap", func(t *testing.T) {
		seen := map[string]bool{}
		for _, it := range relevance {
			if seen[it.ProductID] {
				t.Fatalf("%s on two pages", it.ProductID)
			}
			seen[it.ProductID] = true
		}
	})
	t.Run("page past the results is empty", func(t *testing.T) {
		if items := find(t, tools, `{"q": "violin", "page": 2}`); len(items) != 0 {
			t.Fatalf("page 2 of a 1-result query: %v", items)
		}
	})
	t.Run("no match is an empty list", func(t *testing.T) {
		res := tools.Execute(context.Background(), ToolFindProduct, json.RawMessage(`{"q": "zzzz qqqq", "page": 1}`))
		if !res.OK() || string(res.Output) != "[]" {
			t.Fatalf("got %+v %s", res.Err, res.Output)
		}
	})
	t.Run("unknown shop is an empty list", func(t *testing.T) {
		if items := find(t, tools, `{"q": "earbuds", "page": 1, "shop_id": "nope"}`); len(items) != 0 {
			t.Fatal(items)
		}
	})
	t.Run("deterministic bytes", func(t *testing.T) {
		args := json.RawMessage(`{"q": "wireless bass bluetooth", "page": 3, "sort": "order"}`)
		first := tools.Execute(context.Background(), ToolFindProduct, args).Output
		for range 20 {
			if got := tools.Execute(context.Background(), ToolFindProduct, args).Output; string(got) != string(first) {
				t.Fatal("same call, different result")
			}
		}
		// A rebuilt index answers identically.
		again := newTestTools(t, fixture(t))
		if got := again.Execute(context.Background(), ToolFindProduct, args).Output; string(got) != string(first) {
			t.Fatal("rebuilt index answers differently")
		}
	})
}

func TestFindProductResultShape(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	res := tools.Execute(context.Background(), ToolFindProduct, json.RawMessage(`{"q": "violin", "page": 1}`))
	want := `[{"product_id":"1","shop_id":"900","title":"Violin Bow Horsetail","price":256.0,"service":[],"sold_count":0}]`
	if string(res.Output) != want {
		t.Fatalf("got  %s\nwant %s", res.Output, want)
	}
}

func TestToolErrors(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprint(5000 + i)
	}
	tests := []struct {
		name string
		tool string
		args string
		code ErrorCode
		want string // substring of the message
	}{
		{"unknown tool", "buy_now", `{}`, CodeUnknownTool, `unknown tool "buy_now": available tools are find_product`},
		{"empty tool name", "", `{}`, CodeUnknownTool, "unknown tool"},
		{"arguments not an object", ToolFindProduct, `[1, 2]`, CodeBadArguments, "must be a JSON object"},
		{"arguments not JSON", ToolFindProduct, `{"q": `, CodeBadArguments, "not valid JSON"},
		{"missing q", ToolFindProduct, `{"page": 1}`, CodeMissingArgument, `missing required argument "q"`},
		{"blank q", ToolFindProduct, `{"q": "  ", "page": 1}`, CodeMissingArgument, `"q"`},
		{"no arguments", ToolFindProduct, ``, CodeMissingArgument, `"q"`},
		{"q not a string", ToolFindProduct, `{"q": {"text": "x"}, "page": 1}`, CodeInvalidArgument, "q must be a string, got an object"},
		{"q too long", ToolFindProduct, `{"q": "` + strings.Repeat("a ", 600) + `", "page": 1}`, CodeInvalidArgument, "keep it under 1000"},
		{"missing page", ToolFindProduct, `{"q": "earbuds"}`, CodeMissingArgument, `"page"`},
		{"page zero", ToolFindProduct, `{"q": "earbuds", "page": 0}`, CodeInvalidArgument, "page 0 out of range: pages run from 1 to 5"},
		{"page six", ToolFindProduct, `{"q": "earbuds", "page": 6}`, CodeInvalidArgument, "page 6 out of range"},
		{"page six as string", ToolFindProduct, `{"q": "earbuds", "page": "6"}`, CodeInvalidArgument, "page 6 out of range"},
		{"negative page", ToolFindProduct, `{"q": "earbuds", "page": -1}`, CodeInvalidArgument, "out of range"},
		{"fractional page", ToolFindProduct, `{"q": "earbuds", "page": 1.5}`, CodeInvalidArgument, "page must be an integer from 1 to 5, got a number 1.5"},
		{"page word", ToolFindProduct, `{"q": "earbuds", "page": "two"}`, CodeInvalidArgument, "page must be an integer"},
		{"page bool", ToolFindProduct, `{"q": "earbuds", "page": true}`, CodeInvalidArgument, "got a boolean"},
		{"price without dash", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "100"}`, CodeInvalidArgument, `malformed price "100"`},
		{"price words", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "cheap-expensive"}`, CodeInvalidArgument, "malformed price"},
		{"price currency", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "$10-$20"}`, CodeInvalidArgument, "malformed price"},
		{"price three parts", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "1-2-3"}`, CodeInvalidArgument, "malformed price"},
		{"price only dash", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "-"}`, CodeInvalidArgument, "at least one bound"},
		{"price inverted", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "500-100"}`, CodeInvalidArgument, "low bound is above"},
		{"price nan", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "NaN-5"}`, CodeInvalidArgument, "malformed price"},
		{"price hex", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": "0x10-"}`, CodeInvalidArgument, "malformed price"},
		{"price as number", ToolFindProduct, `{"q": "earbuds", "page": 1, "price": 100}`, CodeInvalidArgument, `malformed price "100"`},
		{"unknown sort", ToolFindProduct, `{"q": "earbuds", "page": 1, "sort": "cheapest"}`, CodeInvalidArgument, `unknown sort "cheapest": want priceasc, pricedesc, order or default`},
		{"unknown service", ToolFindProduct, `{"q": "earbuds", "page": 1, "service": "COD,express"}`, CodeInvalidArgument, `unknown service "express"`},
		{"service not a list", ToolFindProduct, `{"q": "earbuds", "page": 1, "service": {"COD": true}}`, CodeInvalidArgument, "service must be a string"},
		{"view missing ids", ToolViewProductInformation, `{}`, CodeMissingArgument, `missing required argument "product_ids"`},
		{"view empty ids", ToolViewProductInformation, `{"product_ids": " , ,"}`, CodeMissingArgument, "product_ids"},
		{"view unknown id", ToolViewProductInformation, `{"product_ids": "1,999"}`, CodeNotFound, `unknown product_id "999"`},
		{"view unknown ids", ToolViewProductInformation, `{"product_ids": "998,999"}`, CodeNotFound, `unknown product_ids "998", "999"`},
		{"view too many", ToolViewProductInformation, `{"product_ids": "` + strings.Join(many, ",") + `"}`, CodeTooMany, "21 product_ids given; at most 20 per call"},
		{"view ids wrong type", ToolViewProductInformation, `{"product_ids": true}`, CodeInvalidArgument, "product_ids must be a string"},
		{"view array with object", ToolViewProductInformation, `{"product_ids": ["1", {}]}`, CodeInvalidArgument, "product_ids[1] must be a string"},
		{"recommend missing ids", ToolRecommendProduct, `{}`, CodeMissingArgument, "product_ids"},
		{"recommend unknown id", ToolRecommendProduct, `{"product_ids": "424242"}`, CodeNotFound, `unknown product_id "424242"`},
		{"terminate missing status", ToolTerminate, `{}`, CodeMissingArgument, `"status"`},
		{"terminate bad status", ToolTerminate, `{"status": "done"}`, CodeInvalidArgument, `unknown status "done": want success or failure`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tools.Execute(context.Background(), tt.tool, json.RawMessage(tt.args))
			if res.OK() {
				t.Fatalf("call succeeded: %s", res.Output)
			}
			if res.Output != nil {
				t.Fatal("error result carries output")
			}
			if res.Err.Code != tt.code {
				t.Errorf("code %s, want %s (%s)", res.Err.Code, tt.code, res.Err.Message)
			}
			if !strings.Contains(res.Err.Message, tt.want) {
				t.Errorf("message %q, want it to contain %q", res.Err.Message, tt.want)
			}
			if len(res.Err.Message) > 400 {
				t.Errorf("message too long for an observation: %d bytes", len(res.Err.Message))
			}
		})
	}
}

func TestViewProductInformation(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	tests := []struct {
		name string
		args string
		ids  []string
	}{
		{"one id", `{"product_ids": "1"}`, []string{"1"}},
		{"comma list keeps order", `{"product_ids": "5003,1,5001"}`, []string{"5003", "1", "5001"}},
		{"spaces and empty items", `{"product_ids": " 5003 , ,1,"}`, []string{"5003", "1"}},
		{"repeats kept once", `{"product_ids": "1,1,5003,1"}`, []string{"1", "5003"}},
		{"array form", `{"product_ids": ["5003", 1]}`, []string{"5003", "1"}},
		{"number form", `{"product_ids": 5003}`, []string{"5003"}},
		{"twenty ids", `{"product_ids": "` + strings.Join(func() []string {
			var s []string
			for i := range 20 {
				s = append(s, fmt.Sprint(5000+i))
			}
			return s
		}(), ",") + `"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tools.Execute(context.Background(), ToolViewProductInformation, json.RawMessage(tt.args))
			if !res.OK() {
				t.Fatal(res.Err.Message)
			}
			var got []map[string]json.RawMessage
			if err := json.Unmarshal(res.Output, &got); err != nil {
				t.Fatal(err)
			}
			if tt.ids == nil {
				if len(got) != 20 {
					t.Fatalf("%d products", len(got))
				}
				return
			}
			var gotIDs []string
			for _, g := range got {
				var id string
				json.Unmarshal(g["product_id"], &id)
				gotIDs = append(gotIDs, id)
				if len(g) != 5 {
					t.Fatalf("fields %v, want product_id, short_description, description, sku_options, attributes", g)
				}
			}
			if !slices.Equal(gotIDs, tt.ids) {
				t.Fatalf("ids %v, want %v", gotIDs, tt.ids)
			}
		})
	}
	t.Run("shape", func(t *testing.T) {
		res := tools.Execute(context.Background(), ToolViewProductInformation, json.RawMessage(`{"product_ids": "1"}`))
		want := `[{"product_id":"1","short_description":"warm tone","description":"bow","sku_options":{"1":{"size":"4/4"}},"attributes":{"brand":["heart string"]}}]`
		if string(res.Output) != want {
			t.Fatalf("got  %s\nwant %s", res.Output, want)
		}
	})
}

func TestRecommendAndTerminate(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	tests := []struct {
		tool, args, want string
	}{
		{ToolRecommendProduct, `{"product_ids": "5001, 1"}`, `"Having recommended the products to the user: 5001,1."`},
		{ToolRecommendProduct, `{"product_ids": ["1"]}`, `"Having recommended the products to the user: 1."`},
		{ToolTerminate, `{"status": "success"}`, `"The interaction has been completed with status: success"`},
		{ToolTerminate, `{"status": "FAILURE"}`, `"The interaction has been completed with status: failure"`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			res := tools.Execute(context.Background(), tt.tool, json.RawMessage(tt.args))
			if !res.OK() || string(res.Output) != tt.want {
				t.Fatalf("got %+v %s, want %s", res.Err, res.Output, tt.want)
			}
		})
	}
}

func TestSession(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	ctx := context.Background()
	s := tools.NewSession()
	steps := []struct {
		tool, args string
		ok         bool
		code       ErrorCode
	}{
		{ToolFindProduct, `{"q": "violin", "page": 1}`, true, ""},
		{ToolRecommendProduct, `{"product_ids": "999"}`, false, CodeNotFound}, // a failed recommend does not count
		{ToolRecommendProduct, `{"product_ids": "1"}`, true, ""},
		{ToolRecommendProduct, `{"product_ids": "2"}`, false, CodeRepeatedCall},
		{ToolViewProductInformation, `{"product_ids": "1"}`, true, ""},
		{ToolTerminate, `{"status": "success"}`, true, ""},
		{ToolFindProduct, `{"q": "violin", "page": 1}`, false, CodeRepeatedCall},
		{ToolTerminate, `{"status": "failure"}`, false, CodeRepeatedCall},
	}
	for i, st := range steps {
		res := s.Execute(ctx, st.tool, json.RawMessage(st.args))
		if res.OK() != st.ok || (!st.ok && res.Err.Code != st.code) {
			t.Fatalf("step %d %s %s: %+v", i, st.tool, st.args, res.Err)
		}
	}
	if ids, ok := s.Recommendation(); !ok || !slices.Equal(ids, []string{"1"}) {
		t.Fatalf("recommendation %v %v", ids, ok)
	}
	if st, ok := s.Terminated(); !ok || st != "success" {
		t.Fatalf("terminated %q %v", st, ok)
	}
	fresh := tools.NewSession()
	if _, ok := fresh.Recommendation(); ok {
		t.Fatal("new session has a recommendation")
	}
}

func TestExecuteCanceled(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := tools.Execute(ctx, ToolFindProduct, json.RawMessage(`{"q": "x", "page": 1}`))
	if res.OK() || res.Err.Code != CodeCanceled {
		t.Fatalf("%+v", res)
	}
}

func TestToolsConcurrent(t *testing.T) {
	tools := newTestTools(t, fixture(t))
	calls := []struct{ tool, args string }{
		{ToolFindProduct, `{"q": "earbuds bass", "page": 2, "sort": "priceasc"}`},
		{ToolFindProduct, `{"q": "violin", "page": 1, "service": "COD"}`},
		{ToolViewProductInformation, `{"product_ids": "1,5002"}`},
		{ToolFindProduct, `{"q": "earbuds", "page": 9}`},
	}
	want := make([]Result, len(calls))
	for i, c := range calls {
		want[i] = tools.Execute(context.Background(), c.tool, json.RawMessage(c.args))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 100 {
				i := (g + k) % len(calls)
				got := tools.Execute(context.Background(), calls[i].tool, json.RawMessage(calls[i].args))
				if string(got.Output) != string(want[i].Output) || (got.Err == nil) != (want[i].Err == nil) {
					errs <- fmt.Sprintf("call %d differs under concurrency", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestToolsMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	idx, err := BuildIndex(context.Background(), fixture(t), IndexOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := NewTools(ToolsOptions{Index: idx}, zerolog.Nop(), reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tools.Execute(ctx, ToolFindProduct, json.RawMessage(`{"q": "x", "page": 1}`))
	tools.Execute(ctx, ToolFindProduct, json.RawMessage(`{"q": "x", "page": 7}`))
	tools.Execute(ctx, "some free text tool name", nil)
	checks := []struct {
		labels []string
		want   float64
	}{
		{[]string{ToolFindProduct, "ok"}, 1},
		{[]string{ToolFindProduct, string(CodeInvalidArgument)}, 1},
		{[]string{"unknown", string(CodeUnknownTool)}, 1},
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counters := map[string]float64{}
	latencySeries := 0
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetName() {
			case "arena_shop_tool_calls_total":
				counters[labels["tool"]+"/"+labels["outcome"]] = m.GetCounter().GetValue()
			case "arena_shop_tool_duration_seconds":
				latencySeries++
			}
		}
	}
	for _, c := range checks {
		if got := counters[c.labels[0]+"/"+c.labels[1]]; got != c.want {
			t.Errorf("calls%v = %v, want %v (all: %v)", c.labels, got, c.want, counters)
		}
	}
	if latencySeries != 2 {
		t.Errorf("%d latency series, want 2 (find_product, unknown)", latencySeries)
	}
	// A second Tools on the same registry is a clear error, not a panic.
	if _, err := NewTools(ToolsOptions{Index: idx}, zerolog.Nop(), reg); err == nil {
		t.Fatal("duplicate registration accepted")
	}
}

func TestNewToolsValidation(t *testing.T) {
	if _, err := NewTools(ToolsOptions{}, zerolog.Nop(), nil); err == nil {
		t.Fatal("nil index accepted")
	}
	idx, _ := BuildIndex(context.Background(), fixture(t), IndexOptions{}, zerolog.Nop())
	if _, err := NewTools(ToolsOptions{Index: idx, MaxViewIDs: -1}, zerolog.Nop(), nil); err == nil {
		t.Fatal("negative MaxViewIDs accepted")
	}
}

func TestToolSchemas(t *testing.T) {
	schemas := ToolSchemas()
	var names []string
	for _, s := range schemas {
		names = append(names, s.Function.Name)
		if s.Type != "function" || s.Function.Description == "" {
			t.Errorf("%s: bad schema %+v", s.Function.Name, s)
		}
		var params struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(s.Function.Parameters, &params); err != nil || params.Type != "object" {
			t.Fatalf("%s parameters: %v", s.Function.Name, err)
		}
		for _, r := range params.Required {
			if _, ok := params.Properties[r]; !ok {
				t.Errorf("%s requires undeclared %q", s.Function.Name, r)
			}
		}
		// Every declared parameter must be accepted by Execute (no
		// unknown-argument surprises): call with each one present.
		// ShoppingBench's required sets (src/agent/toolkit/*.py).
		if want, ok := map[string][]string{ToolWebSearch: {"q"}, ToolPythonExecute: {"code"}}[s.Function.Name]; ok &&
			!slices.Equal(params.Required, want) {
			t.Errorf("%s requires %v, ShoppingBench requires %v", s.Function.Name, params.Required, want)
		}
		if s.Function.Name == ToolWebSearch {
			if _, ok := params.Properties["max_results"]; !ok {
				t.Error("web_search lacks max_results")
			}
		}
		if s.Function.Name == ToolFindProduct {
			if got := params.Required; !slices.Equal(got, []string{"q", "page"}) {
				t.Errorf("find_product requires %v, ShoppingBench requires q and page", got)
			}
			for _, p := range []string{"q", "page", "shop_id", "price", "sort", "service"} {
				if _, ok := params.Properties[p]; !ok {
					t.Errorf("find_product lacks %q", p)
				}
			}
		}
	}
	if !slices.Equal(names, ToolNames()) {
		t.Fatalf("schema names %v, want %v", names, ToolNames())
	}
	var decoded []ToolSchema
	if err := json.Unmarshal(ToolSchemasJSON(), &decoded); err != nil || len(decoded) != len(ToolNames()) {
		t.Fatalf("ToolSchemasJSON: %d schemas, %v", len(decoded), err)
	}
	// Fresh values each call: callers may modify what they get.
	schemas[0].Function.Name = "changed"
	if ToolSchemas()[0].Function.Name != ToolFindProduct {
		t.Fatal("ToolSchemas shares state between calls")
	}
}

func FuzzExecute(f *testing.F) {
	for _, s := range []string{`{"q": "earbuds", "page": 1}`, `{"product_ids": "1,2"}`, `{"q": 1, "page": "x", "price": "1-", "service": ["COD"]}`, `"{}"`, `null`} {
		f.Add(ToolFindProduct, s)
		f.Add(ToolViewProductInformation, s)
	}
	tools := newTestTools(f, fixture(f))
	f.Fuzz(func(t *testing.T, tool, args string) {
		res := tools.Execute(context.Background(), tool, json.RawMessage(args))
		if res.OK() == (res.Err != nil) {
			t.Fatal("result must have exactly one of output and error")
		}
		if res.OK() && !json.Valid(res.Output) {
			t.Fatalf("invalid JSON output %s", res.Output)
		}
		if res.Err != nil && res.Err.Code == CodeInternal {
			t.Fatalf("internal error for %q %q", tool, args)
		}
	})
}
