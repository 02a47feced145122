package shop

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// This file renders catalogs, search pages and products for people (the
// arena shop commands). Agents get JSON from Tools instead.

// WriteStats renders catalog statistics.
func WriteStats(w io.Writer, st Stats) error {
	ew := &errWriter{w: w}
	ew.printf("products      %s\n", thousands(st.Products))
	ew.printf("shops         %s\n", thousands(st.Shops))
	ew.printf("brands        %s\n", thousands(st.Brands))
	ew.printf("categories    %s leaf paths under %d top-level categories\n", thousands(st.Categories), len(st.TopCategories))
	ew.printf("with SKUs     %s (%s)\n", thousands(st.WithSKUs), percent(st.WithSKUs, st.Products))

	ew.printf("\nprice         min %s  p10 %s  p25 %s  median %s  p75 %s  p90 %s  p99 %s  max %s  mean %s\n",
		money(st.Price.Min), money(st.Price.P10), money(st.Price.P25), money(st.Price.P50), money(st.Price.P75),
		money(st.Price.P90), money(st.Price.P99), money(st.Price.Max), money(st.Price.Mean))

	ew.printf("\nBY SERVICE\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range st.Services {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t\n", c.Name, thousands(c.N), percent(c.N, st.Products))
	}
	ew.err = firstErr(ew.err, tw.Flush())

	ew.printf("\nBY CATEGORY (top level)\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, c := range st.TopCategories {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, thousands(c.N), percent(c.N, st.Products))
	}
	ew.err = firstErr(ew.err, tw.Flush())

	ew.printf("\nBY SHOP\n")
	q := st.ProductsPerShop
	ew.printf("  products per shop: min %.0f  median %.0f  p90 %.0f  p99 %.0f  max %.0f\n", q.Min, q.P50, q.P90, q.P99, q.Max)
	if len(st.TopShops) > 0 {
		ew.printf("  largest shops:\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, c := range st.TopShops {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", c.Name, thousands(c.N), percent(c.N, st.Products))
		}
		ew.err = firstErr(ew.err, tw.Flush())
	}
	return ew.err
}

// WriteSearch renders one find_product page as a table. width bounds the
// title column (0 for no limit).
func WriteSearch(w io.Writer, req FindRequest, res FindResult, titleWidth int) error {
	ew := &errWriter{w: w}
	filters := []string{fmt.Sprintf("q=%q", req.Query), fmt.Sprintf("page=%d", req.Page), "sort=" + req.Sort.String()}
	if req.Price.HasMin || req.Price.HasMax {
		filters = append(filters, "price="+req.Price.String())
	}
	if req.Services != 0 {
		filters = append(filters, "service="+req.Services.String())
	}
	if req.ShopID != "" {
		filters = append(filters, "shop_id="+req.ShopID)
	}
	ew.printf("find_product %s\n", strings.Join(filters, " "))
	switch {
	case res.Total == 0:
		ew.printf("no products match\n")
		return ew.err
	case len(res.Items) == 0:
		ew.printf("page %d is empty: %d results fill %d page(s)\n", req.Page, res.Total, res.Pages())
		return ew.err
	}
	first := (req.Page-1)*PageSize + 1
	ew.printf("results %d-%d of %d (page %d of %d)\n\n", first, first+len(res.Items)-1, res.Total, req.Page, res.Pages())
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "#\tPRODUCT_ID\tSHOP_ID\tPRICE\tSOLD\tSERVICE\tTITLE\n")
	for i, p := range res.Items {
		svc := p.Service.String()
		if svc == "" {
			svc = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", first+i, p.ProductID, p.ShopID, money(p.Price), p.SoldCount, svc, truncate(p.Title, titleWidth))
	}
	ew.err = firstErr(ew.err, tw.Flush())
	return ew.err
}

// WriteProduct renders one product in full.
func WriteProduct(w io.Writer, p *Product) error {
	ew := &errWriter{w: w}
	ew.printf("%s\n", p.Title)
	ew.printf("  product_id     %s\n", p.ProductID)
	ew.printf("  shop_id        %s\n", p.ShopID)
	if p.Brand != "" {
		ew.printf("  brand          %s\n", p.Brand)
	}
	ew.printf("  category       %s\n", p.Category)
	ew.printf("  price          %s\n", money(p.Price))
	ew.printf("  sold           %d\n", p.SoldCount)
	svc := p.Service.String()
	if svc == "" {
		svc = "none"
	}
	ew.printf("  service        %s\n", svc)
	if len(p.Attributes) > 0 {
		ew.printf("  attributes\n")
		for _, a := range p.Attributes {
			ew.printf("    %s: %s\n", a.Key, strings.Join(a.Values, ", "))
		}
	}
	if len(p.SKUOptions) > 0 {
		ew.printf("  sku_options\n")
		for i, sku := range p.SKUOptions {
			var kv []string
			for _, o := range sku {
				kv = append(kv, o.Key+"="+o.Value)
			}
			ew.printf("    %d. %s\n", i+1, strings.Join(kv, ", "))
		}
	}
	if p.Specification != "" {
		ew.printf("  specification  %s\n", p.Specification)
	}
	if p.ShortDescription != "" {
		ew.printf("  short description\n%s", wrap(p.ShortDescription, 4, 96))
	}
	if p.Description != "" {
		ew.printf("  description\n%s", wrap(p.Description, 4, 96))
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func money(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func percent(n, total int) string {
	if total == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(total), 'f', 1, 64) + "%"
}

// thousands groups digits: 1234567 -> 1,234,567.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// truncate shortens s to at most width runes, marking the cut.
func truncate(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:max(width-1, 0)]) + "…"
}

// wrap breaks text into indented lines of at most width runes.
func wrap(text string, indent, width int) string {
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	line := 0
	for _, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		if line > 0 && line+1+n > width {
			b.WriteByte('\n')
			line = 0
		}
		if line == 0 {
			b.WriteString(pad)
		} else {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	if line > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}
