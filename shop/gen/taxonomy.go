package gen

import (
	"fmt"
	"strconv"
	"strings"
)

// kv is an attribute or SKU dimension with its vocabulary.
type kv struct {
	key    string
	values []string
}

type leafCat struct {
	path  string // "Top > Sub > Leaf"
	price float64
	types []string
	feats []string
	attrs []kv // the top category's, with the leaf's added or overriding
	skus  []kv // leaf dimensions first: they are the most specific
}

type topCat struct {
	name    string
	weight  float64
	nBrands int
	attrs   []kv
	skus    []kv
	leaves  []*leafCat
	brands  []string // filled per seed by the generator
}

// parseTaxonomy reads taxonomySource's format (documented there).
func parseTaxonomy(src string) ([]*topCat, error) {
	var tops []*topCat
	var top *topCat
	var leaf *leafCat
	var leafAttrs, leafSKUs []kv
	finishLeaf := func() {
		if leaf == nil {
			return
		}
		leaf.attrs = mergeKV(top.attrs, leafAttrs)
		leaf.skus = append(append([]kv(nil), leafSKUs...), withoutKeys(top.skus, leafSKUs)...)
		leaf, leafAttrs, leafSKUs = nil, nil, nil
	}
	for n, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kw, rest, _ := strings.Cut(line, " ")
		fail := func(format string, args ...any) error {
			return fmt.Errorf("taxonomy line %d: %s", n+1, fmt.Sprintf(format, args...))
		}
		switch kw {
		case "top":
			if top != nil {
				finishLeaf()
			}
			parts := splitTrim(rest, "|")
			if len(parts) != 3 {
				return nil, fail("want: top <name> | <weight> | <brands>")
			}
			w, err1 := strconv.ParseFloat(parts[1], 64)
			b, err2 := strconv.Atoi(parts[2])
			if err1 != nil || err2 != nil || w <= 0 || b < 1 {
				return nil, fail("bad weight or brand count")
			}
			top = &topCat{name: parts[0], weight: w, nBrands: b}
			tops = append(tops, top)
		case "attr", "sku":
			if top == nil {
				return nil, fail("%s before any top", kw)
			}
			key, vals, ok := strings.Cut(rest, ":")
			values := splitTrim(vals, ",")
			if !ok || strings.TrimSpace(key) == "" || len(values) == 0 {
				return nil, fail("want: %s <key>: v1, v2", kw)
			}
			item := kv{key: strings.TrimSpace(key), values: values}
			switch {
			case leaf != nil && kw == "attr":
				leafAttrs = append(leafAttrs, item)
			case leaf != nil:
				leafSKUs = append(leafSKUs, item)
			case kw == "attr":
				top.attrs = append(top.attrs, item)
			default:
				top.skus = append(top.skus, item)
			}
		case "leaf":
			if top == nil {
				return nil, fail("leaf before any top")
			}
			finishLeaf()
			parts := splitTrim(rest, "|")
			if len(parts) != 4 {
				return nil, fail("want: leaf <sub> > <leaf> | <price> | <types> | <features>")
			}
			price, err := strconv.ParseFloat(parts[1], 64)
			if err != nil || price <= 0 {
				return nil, fail("bad price %q", parts[1])
			}
			types, feats := splitTrim(parts[2], ","), splitTrim(parts[3], ",")
			if !strings.Contains(parts[0], ">") || len(types) == 0 || len(feats) < 4 {
				return nil, fail("a leaf needs a sub > leaf path, types and at least 4 features")
			}
			leaf = &leafCat{path: top.name + " > " + parts[0], price: price, types: types, feats: feats}
			top.leaves = append(top.leaves, leaf)
		default:
			return nil, fail("unknown keyword %q", kw)
		}
	}
	if top != nil {
		finishLeaf()
	}
	for _, t := range tops {
		if len(t.leaves) == 0 {
			return nil, fmt.Errorf("taxonomy: top category %q has no leaves", t.name)
		}
		if len(t.attrs) == 0 || len(t.skus) == 0 {
			return nil, fmt.Errorf("taxonomy: top category %q needs attributes and SKU dimensions", t.name)
		}
	}
	return tops, nil
}

func splitTrim(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// mergeKV returns base with over's entries replacing same-key ones and new
// keys appended.
func mergeKV(base, over []kv) []kv {
	out := withoutKeys(base, over)
	return append(out, over...)
}

func withoutKeys(base, drop []kv) []kv {
	var out []kv
	for _, b := range base {
		keep := true
		for _, d := range drop {
			if d.key == b.key {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, b)
		}
	}
	return out
}
