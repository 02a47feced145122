package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
)

// libraryProduct is the same document as encoding/json sees it: the
// comparison baseline for the hand-written codec in productjson.go.
type libraryProduct struct {
	ProductID        string                       `json:"product_id"`
	ShopID           string                       `json:"shop_id"`
	Brand            string                       `json:"brand"`
	Category         string                       `json:"category"`
	Title            string                       `json:"title"`
	ShortDescription string                       `json:"short_description"`
	Description      string                       `json:"description"`
	Specification    string                       `json:"specification"`
	Price            float64                      `json:"price"`
	SoldCount        int64                        `json:"sold_count"`
	SKUOptions       map[string]map[string]string `json:"sku_options"`
	Attributes       map[string][]string          `json:"attributes"`
	Service          []string                     `json:"service"`
}

func codecCorpus(b *testing.B, n int) ([]shop.Product, []byte) {
	b.Helper()
	g, err := gen.New(gen.Options{Products: n, Seed: 1}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	products, err := g.Products(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	for i := range products {
		buf = products[i].AppendJSON(buf)
		buf = append(buf, '\n')
	}
	return products, buf
}

// BenchmarkProductCodec compares the hand-written product codec with
// encoding/json on the same 10,000 generated products (decode: the whole
// JSONL through shop.Load with one worker vs json.Unmarshal line by line).
func BenchmarkProductCodec(b *testing.B) {
	products, lines := codecCorpus(b, 10_000)
	b.Run("decode/arena", func(b *testing.B) {
		b.SetBytes(int64(len(lines)))
		for b.Loop() {
			got, _, err := shop.Load(context.Background(), bytes.NewReader(lines), shop.LoadOptions{Workers: 1}, zerolog.Nop())
			if err != nil || len(got) != len(products) {
				b.Fatalf("%d products, %v", len(got), err)
			}
		}
	})
	b.Run("decode/encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(lines)))
		for b.Loop() {
			n := 0
			for line := range bytes.Lines(lines) {
				var p libraryProduct
				if err := json.Unmarshal(line, &p); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != len(products) {
				b.Fatalf("%d products", n)
			}
		}
	})
	decoded := make([]libraryProduct, len(products))
	for i, line := 0, lines; len(line) > 0; i++ {
		end := bytes.IndexByte(line, '\n')
		if err := json.Unmarshal(line[:end], &decoded[i]); err != nil {
			b.Fatal(err)
		}
		line = line[end+1:]
	}
	b.Run("encode/arena", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = buf[:0]
			for i := range products {
				buf = products[i].AppendJSON(buf)
			}
		}
	})
	b.Run("encode/encoding-json", func(b *testing.B) {
		for b.Loop() {
			for i := range decoded {
				if _, err := json.Marshal(&decoded[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
