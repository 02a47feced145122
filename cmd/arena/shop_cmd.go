package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/internal/logx"
	"arena/shop"
	"arena/shop/gen"
)

func newShopCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "shop",
		Usage: "generate, inspect and search product catalogs (the agents' shopping environment)",
		UsageText: "arena shop generate --products N --seed S --out FILE\n" +
			"arena shop stats --catalog FILE\n" +
			"arena shop search --catalog FILE [--price LO-HI] [--sort SORT] [--service LIST] [--shop ID] [--page N] WORDS...\n" +
			"arena shop view --catalog FILE ID[,ID...]\n" +
			"arena shop bench --catalog FILE [--queries N] [--json]\n" +
			"arena shop python CODE|-",
		Description: "The shop is the marketplace every agent acts in: a product catalog and the tools\n" +
			"find_product, view_product_information, recommend_product and terminate, with ShoppingBench's\n" +
			"semantics. These commands let you build a synthetic catalog and try the tools by hand.\n\n" +
			"Catalogs are JSON Lines, one product per line, plain or gzip (detected automatically).\n" +
			"ShoppingBench's product files and its documents.jsonl ({\"id\", \"contents\", \"product\"})\n" +
			"both load as they are.\n\n" +
			"Example:\n" +
			"  arena shop generate --products 100000 --seed 1 --out catalog.jsonl.gz\n" +
			"  arena shop search --catalog catalog.jsonl.gz --price 0-500 --sort priceasc wireless earbuds",
		Commands: []*cli.Command{
			newShopGenerateCommand(env),
			newShopStatsCommand(env),
			newShopSearchCommand(env),
			newShopViewCommand(env),
			newShopBenchCommand(env),
			newShopPythonCommand(env),
		},
	}
}

func newShopGenerateCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "generate",
		Usage:     "write a deterministic synthetic marketplace catalog",
		UsageText: "arena shop generate --products N --seed S --out FILE",
		Description: "Generates N products from seed S: 26 top-level categories with their own attributes and\n" +
			"brands, about N/50 shops with overlapping assortments, items listed by several shops under\n" +
			"near-duplicate titles, SKU variants, the four services at realistic rates and long-tailed\n" +
			"prices. The same N and S always give byte-identical output.\n\n" +
			"FILE is gzip-compressed if its name ends in .gz. It is written under a temporary name and\n" +
			"renamed when complete, so an interrupted run leaves no partial catalog.\n\n" +
			"Example:\n" +
			"  arena shop generate --products 1000000 --seed 7 --out catalog-1m.jsonl.gz",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "products", Usage: "number of products `N`", Value: 10000},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed `S`; different seeds give different catalogs", Value: 1},
			&cli.StringFlag{Name: "out", Usage: "catalog `FILE` to write (.jsonl or .jsonl.gz)", Required: true, TakesFile: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			log, err := env.logger(cmd)
			if err != nil {
				return err
			}
			return runShopGenerate(ctx, env, log, cmd.Int("products"), cmd.Uint64("seed"), cmd.String("out"))
		},
	}
}

func runShopGenerate(ctx context.Context, env *cliEnv, log zerolog.Logger, n int, seed uint64, out string) error {
	prog := newProgressLine(env.stderr, "generating")
	g, err := gen.New(gen.Options{Products: n, Seed: seed, Progress: func(done, total int) {
		prog.update(int64(done), int64(total), "products")
	}}, log)
	if err != nil {
		return err
	}
	start := time.Now()
	w, err := shop.CreateFile(out)
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if err := g.Write(ctx, w); err != nil {
		w.Abort()
		prog.finish()
		return fmt.Errorf("generate: %w", err)
	}
	if err := w.Close(); err != nil {
		prog.finish()
		return fmt.Errorf("generate: write %s: %w", out, err)
	}
	prog.finish()
	size := int64(0)
	if st, err := os.Stat(out); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(env.stdout, "wrote %d products from %d shops (seed %d) to %s: %.1f MB in %s\n",
		w.Count(), g.Shops(), seed, out, float64(size)/1e6, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// catalogFlags are shared by the commands that read a catalog.
func catalogFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` (JSON Lines, plain or gzip)", Required: true, TakesFile: true},
		&cli.BoolFlag{Name: "strict", Usage: "fail on the first malformed or invalid line instead of skipping it"},
		&cli.StringFlag{Name: "envelope", Usage: "`KEY` wrapping each product in a line without product_id (\"product\" by default, as in ShoppingBench's documents.jsonl; \"reward\" for knowledge task files; \"-\" for none)"},
	}
}

// loadCatalog reads --catalog with progress on a terminal and a note about
// skipped lines.
func loadCatalog(ctx context.Context, env *cliEnv, log zerolog.Logger, cmd *cli.Command) (*shop.Catalog, error) {
	path := cmd.String("catalog")
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	prog := newProgressLine(env.stderr, "loading "+filepath.Base(path))
	opts := shop.LoadOptions{
		Strict:   cmd.Bool("strict"),
		Envelope: cmd.String("envelope"),
		Progress: func(read int64) { prog.update(read, st.Size(), "bytes") },
	}
	cat, rep, err := shop.OpenCatalog(ctx, path, opts, log)
	prog.finish()
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if rep.Skipped() > 0 {
		fmt.Fprintf(env.stderr, "note: skipped %d of %d lines (%d malformed, %d invalid, %d duplicate ids); --strict stops at the first\n",
			rep.Skipped(), rep.Lines, rep.Malformed, rep.Invalid, rep.Duplicates)
	}
	if cat.Len() == 0 {
		return nil, fmt.Errorf("catalog %s has no valid products", path)
	}
	return cat, nil
}

func newShopStatsCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "print counts by category, shop and service, and price quantiles",
		UsageText: "arena shop stats --catalog FILE [--top N]",
		Flags: append(catalogFlags(),
			&cli.IntFlag{Name: "top", Usage: "list the `N` largest shops", Value: 10},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			log, err := env.logger(cmd)
			if err != nil {
				return err
			}
			cat, err := loadCatalog(ctx, env, log, cmd)
			if err != nil {
				return err
			}
			return shop.WriteStats(env.stdout, cat.Stats(max(cmd.Int("top"), 0)))
		},
	}
}

func newShopSearchCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "run find_product by hand and print a readable table",
		UsageText: "arena shop search --catalog FILE [--price LO-HI] [--sort SORT] [--service LIST] [--shop ID] [--page N] [--json] WORDS...",
		Description: "Answers exactly as the find_product tool answers an agent: the 50 most relevant products\n" +
			"(BM25 over title, brand, category and attributes) that pass the filters, reordered by --sort,\n" +
			"10 per page. Put flags before the search words.\n\n" +
			"  --price    \"LO-HI\", \"LO-\" or \"-HI\", e.g. 0-100 or 1000-\n" +
			"  --sort     default (relevance), priceasc, pricedesc or order (best-selling first)\n" +
			"  --service  comma list of official (LazMall), freeShipping, COD, flashsale; all must apply\n\n" +
			"Example:\n" +
			"  arena shop search --catalog catalog.jsonl.gz --service COD --sort priceasc bluetooth speaker",
		Flags: append(catalogFlags(),
			&cli.StringFlag{Name: "price", Usage: "price range `LO-HI`"},
			&cli.StringFlag{Name: "sort", Usage: "`SORT`: default, priceasc, pricedesc or order"},
			&cli.StringFlag{Name: "service", Usage: "required services, a comma `LIST`"},
			&cli.StringFlag{Name: "shop", Usage: "only this shop `ID`"},
			&cli.IntFlag{Name: "page", Usage: "result page `N`, 1 to 5", Value: 1},
			&cli.BoolFlag{Name: "json", Usage: "print the tool's JSON result instead of a table"},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			log, err := env.logger(cmd)
			if err != nil {
				return err
			}
			req, err := searchRequest(cmd)
			if err != nil {
				return err
			}
			cat, err := loadCatalog(ctx, env, log, cmd)
			if err != nil {
				return err
			}
			prog := newProgressLine(env.stderr, "indexing")
			idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Progress: func(done, total int) {
				prog.update(int64(done), int64(total), "steps")
			}}, log)
			prog.finish()
			if err != nil {
				return err
			}
			res, err := idx.Find(req)
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				_, err := env.stdout.Write(append(shop.AppendSearchItems(nil, res.Items), '\n'))
				return err
			}
			return shop.WriteSearch(env.stdout, req, res, 80)
		},
	}
}

// searchRequest turns flags into a find_product request with the tool's own
// parsers, so the CLI accepts and rejects exactly what agents may send.
func searchRequest(cmd *cli.Command) (shop.FindRequest, error) {
	req := shop.FindRequest{Query: strings.Join(cmd.Args().Slice(), " "), ShopID: strings.TrimSpace(cmd.String("shop")), Page: cmd.Int("page")}
	if strings.TrimSpace(req.Query) == "" {
		return req, errors.New("search: give the words to search for, e.g. arena shop search --catalog FILE wireless earbuds")
	}
	if req.Page < 1 || req.Page > shop.MaxPages {
		return req, fmt.Errorf("search: --page %d out of range 1..%d", req.Page, shop.MaxPages)
	}
	var err error
	if req.Price, err = shop.ParsePriceRange(cmd.String("price")); err != nil {
		return req, fmt.Errorf("search: --price: %w", err)
	}
	if req.Sort, err = shop.ParseSort(cmd.String("sort")); err != nil {
		return req, fmt.Errorf("search: --sort: %w", err)
	}
	if req.Services, err = shop.ParseServices(cmd.String("service")); err != nil {
		return req, fmt.Errorf("search: --service: %w", err)
	}
	return req, nil
}

func newShopViewCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "view",
		Usage:     "show products in full, as view_product_information sees them",
		UsageText: "arena shop view --catalog FILE [--json] ID[,ID...]",
		Flags: append(catalogFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print the view_product_information JSON result"},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			log, err := env.logger(cmd)
			if err != nil {
				return err
			}
			var ids []string
			for _, arg := range cmd.Args().Slice() {
				for _, id := range strings.Split(arg, ",") {
					if id = strings.TrimSpace(id); id != "" {
						ids = append(ids, id)
					}
				}
			}
			if len(ids) == 0 {
				return errors.New("view: give one or more product ids, e.g. arena shop view --catalog FILE 3706669986,4428034196")
			}
			cat, err := loadCatalog(ctx, env, log, cmd)
			if err != nil {
				return err
			}
			var products []*shop.Product
			for _, id := range ids {
				p, ok := cat.Product(id)
				if !ok {
					return fmt.Errorf("view: unknown product_id %q", id)
				}
				products = append(products, p)
			}
			if cmd.Bool("json") {
				_, err := env.stdout.Write(append(shop.AppendProductInfo(nil, products), '\n'))
				return err
			}
			for i, p := range products {
				if i > 0 {
					fmt.Fprintln(env.stdout)
				}
				if err := shop.WriteProduct(env.stdout, p); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// progressLine shows the progress of a long job on one terminal line. It
// stays silent when stderr is not a terminal: logs cover that case.
type progressLine struct {
	w     io.Writer
	on    bool
	label string
	mu    sync.Mutex
	start time.Time
	last  time.Time
	drawn bool
}

func newProgressLine(w io.Writer, label string) *progressLine {
	return &progressLine{w: w, on: logx.IsTerminal(w), label: label, start: time.Now()}
}

// update redraws the line at most ten times a second, and on completion.
func (p *progressLine) update(done, total int64, unit string) { p.updateNote(done, total, unit, "") }

// updateNote is update with a note after the elapsed time.
func (p *progressLine) updateNote(done, total int64, unit, note string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = now
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	amount := fmt.Sprintf("%d/%d %s", done, total, unit)
	if unit == "bytes" {
		amount = fmt.Sprintf("%.0f/%.0f MB", float64(done)/1e6, float64(total)/1e6)
	}
	if note != "" {
		note = "  " + note
	}
	fmt.Fprintf(p.w, "\r\033[K%s %5.1f%%  %s  %s%s", p.label, pct, amount, time.Since(p.start).Round(time.Second), note)
	p.drawn = true
}

// finish clears the line so later output starts clean.
func (p *progressLine) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
