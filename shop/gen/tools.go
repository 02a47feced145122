package gen

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"arena/shop"
)

// Tools generates the catalog of opts, indexes it in memory and serves the
// tools over it: a whole shop without a catalog file, for checks and tests.
// It also returns the products, in catalog order.
func Tools(ctx context.Context, opts Options, index shop.IndexOptions, log zerolog.Logger) (*shop.Tools, []shop.Product, error) {
	g, err := New(opts, log)
	if err != nil {
		return nil, nil, err
	}
	products, err := g.Products(ctx)
	if err != nil {
		return nil, nil, err
	}
	cat, err := shop.NewCatalog(products)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: %w", err)
	}
	idx, err := shop.BuildIndex(ctx, cat, index, log)
	if err != nil {
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, log, nil)
	if err != nil {
		return nil, nil, err
	}
	return tools, products, nil
}
