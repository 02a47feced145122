package shop

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func sampleProduct() Product {
	return Product{
		ProductID:        "3706669986",
		ShopID:           "3450032",
		Brand:            "HEART STRING",
		Category:         "Media, Music & Books > Musical Instruments > Musical Accessories",
		Title:            `Heart String Violin Bow "4/4" <Full> & Size`,
		ShortDescription: "Warm tone;\tfine\nbalance;",
		Description:      "Line one\r\nâ¤ï¸ emoji \u2028 sep \x01 ctl",
		Specification:    "model:Violin Bow;brand:heart string",
		Price:            256,
		SoldCount:        2,
		SKUOptions:       []SKU{{{"size", "1/4 violin bow"}}, {{"color", "red"}, {"size", "3/4"}}},
		Attributes:       []Attribute{{"brand", []string{"heart string"}}, {"model", []string{"violin bow", "v2"}}},
		Service:          ServiceCOD | ServiceFlashsale,
	}
}

func TestProductJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		p    Product
	}{
		{"full", sampleProduct()},
		{"empty collections", Product{ProductID: "1", Title: "t", Price: 0.5}},
		{"all services", Product{ProductID: "2", Title: "t", Price: 1e6, Service: allServices}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.p.AppendJSON(nil)
			if !json.Valid(raw) {
				t.Fatalf("invalid JSON: %s", raw)
			}
			var got Product
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(got, tt.p) {
				t.Fatalf("round trip changed the product:\n got %+v\nwant %+v", got, tt.p)
			}
			// encoding/json must read our output the same way.
			var generic map[string]any
			if err := json.Unmarshal(raw, &generic); err != nil {
				t.Fatal(err)
			}
			if generic["title"] != tt.p.Title || generic["description"] != tt.p.Description {
				t.Fatalf("encoding/json reads different strings: %q", generic["title"])
			}
		})
	}
}

func TestAppendJSONShape(t *testing.T) {
	p := sampleProduct()
	got := string(p.AppendJSON(nil))
	for _, want := range []string{
		`{"product_id":"3706669986","shop_id":"3450032","brand":"HEART STRING",`,
		`"price":256.0,"sold_count":2,`,
		`"sku_options":{"1":{"size":"1/4 violin bow"},"2":{"color":"red","size":"3/4"}}`,
		`"attributes":{"brand":["heart string"],"model":["violin bow","v2"]}`,
		`"service":["COD","flashsale"]}`,
		`<Full> & Size`, // no HTML escaping
		`\u2028`, `\u0001`, `\t`, `\r\n`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("JSON lacks %s\n%s", want, got)
		}
	}
}

func TestAppendPrice(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{256, "256.0"}, {86.68, "86.68"}, {0, "0.0"}, {239.2, "239.2"}, {1e20, "100000000000000000000"}, {1.005, "1.005"}, {1e15 + 0.5, "1000000000000000.5"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := string(appendPrice(nil, tt.in)); got != tt.want {
				t.Fatalf("appendPrice(%v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestInvalidUTF8BecomesReplacement(t *testing.T) {
	p := Product{ProductID: "1", Title: "ab\xffcd", Price: 1}
	raw := p.AppendJSON(nil)
	var got Product
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Title != "ab\uFFFDcd" {
		t.Fatalf("title %q", got.Title)
	}
}

// decodeLine parses one line the way the loader does.
func decodeLine(line, envelope string) (parsedProduct, error) {
	d := decoder{data: []byte(line)}
	return d.document(envelope)
}

func TestDecodeLenientForms(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(t *testing.T, p Product)
	}{
		{"numeric ids", `{"product_id": 123, "shop_id": 45, "title": "x", "price": 1}`, func(t *testing.T, p Product) {
			if p.ProductID != "123" || p.ShopID != "45" {
				t.Fatalf("ids %q %q", p.ProductID, p.ShopID)
			}
		}},
		{"price as string", `{"product_id": "1", "title": "x", "price": " 12.50 "}`, func(t *testing.T, p Product) {
			if p.Price != 12.5 {
				t.Fatalf("price %v", p.Price)
			}
		}},
		{"float sold_count", `{"product_id": "1", "title": "x", "price": 1, "sold_count": 7.0}`, func(t *testing.T, p Product) {
			if p.SoldCount != 7 {
				t.Fatalf("sold %v", p.SoldCount)
			}
		}},
		{"empty list for dicts", `{"product_id": "1", "title": "x", "price": 1, "sku_options": [], "attributes": []}`, func(t *testing.T, p Product) {
			if p.SKUOptions != nil || p.Attributes != nil {
				t.Fatalf("%+v", p)
			}
		}},
		{"sku list and numeric values", `{"product_id": "1", "title": "x", "price": 1, "sku_options": [{"size": 42}, {"size": "xl", "b": true}]}`, func(t *testing.T, p Product) {
			want := []SKU{{{"size", "42"}}, {{"b", "true"}, {"size", "xl"}}}
			if !reflect.DeepEqual(p.SKUOptions, want) {
				t.Fatalf("skus %+v", p.SKUOptions)
			}
		}},
		{"sku keys ordered numerically", `{"product_id": "1", "title": "x", "price": 1, "sku_options": {"10": {"a": "10"}, "2": {"a": "2"}, "1": {"a": "1"}}}`, func(t *testing.T, p Product) {
			if len(p.SKUOptions) != 3 || p.SKUOptions[0][0].Value != "1" || p.SKUOptions[2][0].Value != "10" {
				t.Fatalf("skus %+v", p.SKUOptions)
			}
		}},
		{"bare attribute value", `{"product_id": "1", "title": "x", "price": 1, "attributes": {"b": "one", "a": ["x", null, "y"]}}`, func(t *testing.T, p Product) {
			want := []Attribute{{"a", []string{"x", "y"}}, {"b", []string{"one"}}}
			if !reflect.DeepEqual(p.Attributes, want) {
				t.Fatalf("attrs %+v", p.Attributes)
			}
		}},
		{"service string and case", `{"product_id": "1", "title": "x", "price": 1, "service": "cod, FreeShipping"}`, func(t *testing.T, p Product) {
			if p.Service != ServiceCOD|ServiceFreeShipping {
				t.Fatalf("service %v", p.Service)
			}
		}},
		{"unknown fields ignored", `{"extra": {"deep": [1, {"x": null}], "s": "\u00e9"}, "product_id": "1", "title": "x", "price": 1, "main_image_url": "u"}`, func(t *testing.T, p Product) {
			if p.ProductID != "1" {
				t.Fatal(p)
			}
		}},
		{"escapes", `{"product_id": "1", "title": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "price": 1}`, func(t *testing.T, p Product) {
			if p.Title != "a\"b\\c/d\né😀" {
				t.Fatalf("title %q", p.Title)
			}
		}},
		{"lone surrogate", `{"product_id": "1", "title": "a\ud83dz", "price": 1}`, func(t *testing.T, p Product) {
			if p.Title != "a\uFFFDz" {
				t.Fatalf("title %q", p.Title)
			}
		}},
		{"nulls", `{"product_id": "1", "title": "x", "price": 1, "brand": null, "sku_options": null, "attributes": null, "service": null}`, func(t *testing.T, p Product) {}},
		{"documents envelope", `{"id": "9", "contents": "x", "product": {"product_id": "9", "title": "t", "price": 3}}`, func(t *testing.T, p Product) {
			if p.ProductID != "9" || p.Price != 3 {
				t.Fatal(p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pp, err := decodeLine(tt.line, "product")
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(pp.fieldErrs) > 0 {
				t.Fatalf("field errors: %v", pp.fieldErrs)
			}
			tt.check(t, pp.p)
		})
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct{ name, line string }{
		{"truncated", `{"product_id": "1", "title": "x"`},
		{"trailing garbage", `{"product_id": "1"} x`},
		{"two objects", `{}{}`},
		{"not an object", `["product_id"]`},
		{"bare string", `"hello"`},
		{"bad escape", `{"title": "\q"}`},
		{"control char", "{\"title\": \"a\x01b\"}"},
		{"bad number", `{"price": 01}`},
		{"bad literal", `{"price": nul}`},
		{"missing colon", `{"price" 1}`},
		{"trailing comma", `{"price": 1,}`},
		{"deep nesting", `{"x": ` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`},
		{"short unicode escape", `{"t": "\u12"}`},
		{"empty", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeLine(tt.line, "product")
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Fatalf("decode(%q) = %v, want a syntax error", tt.line, err)
			}
		})
	}
}

func TestDecodeInvalidFields(t *testing.T) {
	tests := []struct{ name, line, want string }{
		{"title as list", `{"product_id": "1", "title": ["x"], "price": 1}`, "title"},
		{"price not numeric", `{"product_id": "1", "title": "x", "price": "cheap"}`, "price"},
		{"negative price", `{"product_id": "1", "title": "x", "price": -1}`, "price"},
		{"negative sold", `{"product_id": "1", "title": "x", "price": 1, "sold_count": -3}`, "sold_count"},
		{"sku not object", `{"product_id": "1", "title": "x", "price": 1, "sku_options": "big"}`, "sku_options"},
		{"attributes list", `{"product_id": "1", "title": "x", "price": 1, "attributes": ["a"]}`, "attributes"},
		{"service object", `{"product_id": "1", "title": "x", "price": 1, "service": {"a": 1}}`, "service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pp, err := decodeLine(tt.line, "product")
			if err != nil {
				t.Fatalf("decode: %v (well-formed JSON must not be malformed)", err)
			}
			if len(pp.fieldErrs) == 0 || !strings.Contains(errors.Join(pp.fieldErrs...).Error(), tt.want) {
				t.Fatalf("field errors %v, want one about %s", pp.fieldErrs, tt.want)
			}
		})
	}
}

func FuzzDecodeProduct(f *testing.F) {
	seeds := []string{
		string(func() []byte { p := sampleProduct(); return p.AppendJSON(nil) }()),
		`{"product_id": 1, "title": "x", "price": "2", "sku_options": [{"a": 1}], "attributes": {"k": "v"}}`,
		`{"product": {"product_id": "1"}}`, `{"a": [[[{}]]]}`, `{"t": "\ud800\udc00"}`, `[`, `{"price": -0.0e+1}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		d := decoder{data: []byte(line), intern: &interner{}}
		_, err := d.document("product")
		if err == nil && !json.Valid([]byte(line)) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		var p Product
		if json.Unmarshal([]byte(line), &p) == nil {
			// Whatever we accept must encode to valid JSON again.
			if out := p.AppendJSON(nil); !json.Valid(out) {
				t.Fatalf("re-encoding gives invalid JSON %q", out)
			}
		}
	})
}
