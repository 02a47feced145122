package knowledge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/index"
)

// Page is one document of the offline web. Title and Snippet are what
// web_search shows; Text is searched too but not shown.
type Page struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
	Text    string `json:"text,omitempty"`
}

func (p *Page) validate() error {
	switch {
	case strings.TrimSpace(p.URL) == "":
		return errors.New("page without url")
	case strings.TrimSpace(p.Title) == "":
		return fmt.Errorf("page %s has no title", p.URL)
	case strings.TrimSpace(p.Snippet) == "":
		return fmt.Errorf("page %s has no snippet", p.URL)
	}
	return nil
}

// Corpus is an immutable set of pages with their search index and the
// facts they back. It is safe for concurrent use.
type Corpus struct {
	pages []Page
	facts []Fact
	ix    *index.Index
}

// searchParams rank pages by BM25F over title (boosted) and snippet and
// text (one field). The brand field is unused.
func searchParams() index.Params {
	p := index.DefaultParams()
	p.Weights[index.FieldBrand], p.Weights[index.FieldCategory] = 0, 0
	return p
}

// newCorpus indexes pages; URLs must be unique.
func newCorpus(ctx context.Context, pages []Page, facts []Fact, log zerolog.Logger) (*Corpus, error) {
	seen := make(map[string]bool, len(pages))
	for i := range pages {
		if err := pages[i].validate(); err != nil {
			return nil, fmt.Errorf("knowledge: page %d: %w", i, err)
		}
		if seen[pages[i].URL] {
			return nil, fmt.Errorf("knowledge: duplicate page url %s", pages[i].URL)
		}
		seen[pages[i].URL] = true
	}
	fill := func(i int, d *index.Doc) {
		p := &pages[i]
		d.Title = p.Title
		d.Attrs = append(d.Attrs, p.Snippet, p.Text)
	}
	ix, err := index.Build(ctx, len(pages), fill, index.Options{Params: searchParams(), Workers: 1}, log)
	if err != nil {
		return nil, fmt.Errorf("knowledge: index pages: %w", err)
	}
	return &Corpus{pages: pages, facts: facts, ix: ix}, nil
}

// New builds a corpus of the given pages only, with no facts.
func New(ctx context.Context, pages []Page, log zerolog.Logger) (*Corpus, error) {
	return newCorpus(ctx, pages, nil, log)
}

// Len is the number of pages.
func (c *Corpus) Len() int { return len(c.pages) }

// Page returns page i.
func (c *Corpus) Page(i int) Page { return c.pages[i] }

// Facts lists the facts the corpus's generated pages state, in a fixed
// order. The slice is shared: do not modify it.
func (c *Corpus) Facts() []Fact { return c.facts }

// MaxResults bounds one search, as ShoppingBench's max_results (1..20).
const MaxResults = 20

// Search returns the indexes of the pages most relevant to q, best first,
// at most n (1..MaxResults). Ties keep page order.
func (c *Corpus) Search(q string, n int) []int {
	if n < 1 || len(c.pages) == 0 {
		return nil
	}
	hits := c.ix.Search(index.Query{Text: q, Limit: min(n, MaxResults)})
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = int(h.Doc)
	}
	return out
}

// WebSearch implements shop.WebSearcher: Search with ShoppingBench's
// result shape, the snippet as content.
func (c *Corpus) WebSearch(ctx context.Context, q string, n int) ([]shop.WebResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hits := c.Search(q, n)
	out := make([]shop.WebResult, len(hits))
	for i, h := range hits {
		p := &c.pages[h]
		out[i] = shop.WebResult{URL: p.URL, Title: p.Title, Content: p.Snippet}
	}
	return out, nil
}

// Options configure Build.
type Options struct {
	// Seed selects the invented brand details. The same catalog and seed
	// always give the same corpus; zero means DefaultSeed, which is what
	// every validator uses so that problems stay solvable across
	// restarts.
	Seed uint64
	// Extra pages to serve alongside the generated ones, such as
	// ImportSimpleQA's.
	Extra []Page
}

// DefaultSeed is the seed of the invented brand details.
const DefaultSeed = 0x6b6e6f776c656467 // "knowledg"

// Build derives the corpus of a catalog: a page and a fact for every
// unambiguous brand and for every glossary term the catalog's titles use,
// plus opts.Extra.
func Build(ctx context.Context, cat *shop.Catalog, opts Options, log zerolog.Logger) (_ *Corpus, err error) {
	if cat == nil {
		return nil, errors.New("knowledge: nil catalog")
	}
	defer shop.RecoverReadError(&err)
	log = log.With().Str("component", "knowledge").Logger()
	start := time.Now()
	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	pages, facts, err := derive(ctx, cat, seed)
	if err != nil {
		return nil, err
	}
	pages = append(pages, opts.Extra...)
	c, err := newCorpus(ctx, pages, facts, log)
	if err != nil {
		return nil, err
	}
	log.Info().Int("pages", len(pages)).Int("facts", len(facts)).Int("extra_pages", len(opts.Extra)).
		Dur("took_ms", time.Since(start).Round(time.Millisecond)).Msg("knowledge corpus built")
	return c, nil
}
