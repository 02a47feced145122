package plot

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const nasty = `<script>alert(1)</script>&"'`

func pts(ys ...float64) []Point {
	p := make([]Point, len(ys))
	for i, y := range ys {
		p[i] = Point{X: float64(i), Y: y}
	}
	return p
}

func TestLine(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	many := make([]Point, 1000)
	for i := range many {
		many[i] = Point{X: float64(i), Y: math.Sin(float64(i) / 50)}
	}
	many[500].Label = "peak"
	tests := []struct {
		name      string
		opts      Options
		series    []Series
		polylines int
		pairs     []int // coordinate pairs per polyline
		markers   int
		legend    []string // nil: no legend expected
		empty     string   // expected empty message, if any
	}{
		{name: "one series", series: []Series{{Name: "a", Points: pts(1, 3, 2, 5, 4)}},
			polylines: 1, pairs: []int{5}, markers: 5},
		{name: "three series legend",
			series:    []Series{{Name: "alpha", Points: pts(1, 2)}, {Name: "beta", Points: pts(2, 1)}, {Points: pts(0, 0)}},
			polylines: 3, pairs: []int{2, 2, 2}, markers: 6, legend: []string{"alpha", "beta", "Series 3"}},
		{name: "single point", series: []Series{{Points: []Point{{X: 7, Y: 3}}}},
			polylines: 1, pairs: []int{1}, markers: 1},
		{name: "all equal", series: []Series{{Points: pts(5, 5, 5, 5)}},
			polylines: 1, pairs: []int{4}, markers: 4},
		{name: "NaN and Inf skipped", series: []Series{{Points: []Point{{X: 0, Y: 1}, {X: 1, Y: nan}, {X: inf, Y: 2}, {X: 3, Y: -inf}, {X: 4, Y: 2}}}},
			polylines: 1, pairs: []int{2}, markers: 2},
		{name: "negative values", series: []Series{{Points: pts(-5, -1, -10, 3)}},
			polylines: 1, pairs: []int{4}, markers: 4},
		{name: "dense series marks only labelled points", series: []Series{{Points: many}},
			polylines: 1, markers: 1},
		{name: "series without points is omitted but keeps its legend entry",
			series:    []Series{{Name: "empty"}, {Name: "full", Points: pts(1, 2)}},
			polylines: 1, pairs: []int{2}, markers: 2, legend: []string{"empty", "full"}},
		{name: "no series", empty: "No data"},
		{name: "no points", series: []Series{{Name: "x"}}, empty: "No data"},
		{name: "only NaN", opts: Options{Empty: "nothing yet"}, series: []Series{{Points: pts(nan, nan)}}, empty: "nothing yet"},
		{name: "fixed axes", opts: Options{Y: Axis{Min: Fixed(0), Max: Fixed(1)}, X: Axis{Min: Fixed(-10)}},
			series: []Series{{Points: pts(0.2, 0.5, 3)}}, polylines: 1, pairs: []int{3}, markers: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Line(tc.opts, tc.series...)
			root := checkSVG(t, h)
			if tc.empty != "" {
				e := root.find("text", "plot-empty")
				if len(e) != 1 || e[0].text != tc.empty {
					t.Fatalf("empty message = %q, want %q", texts(e), tc.empty)
				}
				if n := len(root.find("polyline", "")); n != 0 {
					t.Errorf("%d polylines in empty chart", n)
				}
				return
			}
			if e := root.find("", "plot-empty"); len(e) != 0 {
				t.Errorf("unexpected empty message")
			}
			lines := root.find("polyline", "plot-line")
			if len(lines) != tc.polylines {
				t.Fatalf("%d polylines, want %d", len(lines), tc.polylines)
			}
			for i, want := range tc.pairs {
				if got := pairs(lines[i]); got != want {
					t.Errorf("polyline %d has %d points, want %d", i, got, want)
				}
			}
			if got := len(root.find("circle", "plot-marker")); got != tc.markers {
				t.Errorf("%d markers, want %d", got, tc.markers)
			}
			names := texts(root.find("text", "plot-legend-name"))
			if strings.Join(names, "|") != strings.Join(tc.legend, "|") {
				t.Errorf("legend = %q, want %q", names, tc.legend)
			}
			if len(root.find("path", "plot-grid")) != 1 {
				t.Errorf("no grid")
			}
			if len(root.find("text", "")) == 0 {
				t.Errorf("no tick labels")
			}
			for _, s := range []string{"NaN", "Inf"} {
				if strings.Contains(string(h), s) {
					t.Errorf("output contains %s", s)
				}
			}
			checkInside(t, root)
		})
	}
}

// checkInside verifies that markers and polyline points lie in the viewBox.
func checkInside(t *testing.T, root *node) {
	t.Helper()
	vb := strings.Fields(root.attrs["viewBox"])
	w, _ := strconv.ParseFloat(vb[2], 64)
	h, _ := strconv.ParseFloat(vb[3], 64)
	in := func(x, y string) {
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		if err1 != nil || err2 != nil || fx < 0 || fx > w || fy < 0 || fy > h {
			t.Errorf("point (%s,%s) outside viewBox %vx%v", x, y, w, h)
		}
	}
	for _, c := range root.find("circle", "") {
		in(c.attrs["cx"], c.attrs["cy"])
	}
	for _, p := range root.find("polyline", "") {
		for _, xy := range strings.Fields(p.attrs["points"]) {
			x, y, _ := strings.Cut(xy, ",")
			in(x, y)
		}
	}
}

func TestLineColoursAndClasses(t *testing.T) {
	var series []Series
	for i := 0; i < 10; i++ {
		series = append(series, Series{Name: "s" + strconv.Itoa(i), Points: pts(float64(i), float64(i+1))})
	}
	root := checkSVG(t, Line(Options{Title: "T", X: Axis{Label: "block"}, Y: Axis{Label: "score"}}, series...))
	groups := root.find("g", "plot-series")
	if len(groups) != 10 {
		t.Fatalf("%d series groups", len(groups))
	}
	for i, g := range groups {
		if want := palette[i%len(palette)]; g.attrs["stroke"] != want {
			t.Errorf("series %d stroke %q, want %q", i, g.attrs["stroke"], want)
		}
		if !hasClass(g, "plot-series-"+strconv.Itoa(i)) {
			t.Errorf("series %d lacks its numbered class", i)
		}
	}
	if got := root.find("text", "plot-title"); len(got) != 1 || got[0].text != "T" {
		t.Errorf("title = %q", texts(got))
	}
	if got := texts(root.find("text", "plot-axis-label")); strings.Join(got, "|") != "score|block" {
		t.Errorf("axis captions = %q", got)
	}
}

func TestLegendOverflow(t *testing.T) {
	var series []Series
	for i := 0; i < 60; i++ {
		series = append(series, Series{Name: "miner-" + strconv.Itoa(i), Points: pts(1, 2)})
	}
	root := checkSVG(t, Line(Options{}, series...))
	items := root.find("g", "plot-legend-item")
	more := root.find("text", "plot-legend-more")
	if len(items) == 0 || len(items) >= 60 || len(more) != 1 {
		t.Fatalf("%d legend items, %d more labels", len(items), len(more))
	}
	if want := "+" + strconv.Itoa(60-len(items)) + " more"; more[0].text != want {
		t.Errorf("more label %q, want %q", more[0].text, want)
	}
	ys := map[string]bool{}
	for _, it := range items {
		ys[it.child("rect").attrs["y"]] = true
	}
	if len(ys) > legendMaxRows {
		t.Errorf("legend uses %d rows", len(ys))
	}
}

func TestBars(t *testing.T) {
	cats := []string{"alpha", "beta", "gamma"}
	tests := []struct {
		name   string
		cats   []string
		series []Series
		bars   int
		values int
		legend int
		empty  bool
	}{
		{name: "one series", cats: cats, series: []Series{{Points: pts(1, 2, 3)}}, bars: 3, values: 3},
		{name: "grouped", cats: cats, series: []Series{{Name: "a", Points: pts(1, 2, 3)}, {Name: "b", Points: pts(3, 2, 1)}}, bars: 6, values: 6, legend: 2},
		{name: "negative", cats: cats, series: []Series{{Points: pts(-1, 2, -3)}}, bars: 3, values: 3},
		{name: "NaN and missing", cats: cats, series: []Series{{Points: pts(1, math.NaN())}}, bars: 1, values: 1},
		{name: "more points than categories", cats: cats[:1], series: []Series{{Points: pts(1, 2, 3, 4)}}, bars: 4, values: 4},
		{name: "all zero", cats: cats, series: []Series{{Points: pts(0, 0, 0)}}, bars: 3, values: 3},
		{name: "no series", cats: cats, empty: true},
		{name: "only NaN", cats: cats, series: []Series{{Points: pts(math.NaN())}}, empty: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := checkSVG(t, Bars(Options{}, tc.cats, tc.series...))
			if tc.empty {
				if len(root.find("text", "plot-empty")) != 1 || len(root.find("rect", "plot-bar")) != 0 {
					t.Fatal("want an empty chart")
				}
				return
			}
			bars := root.find("rect", "plot-bar")
			if len(bars) != tc.bars {
				t.Fatalf("%d bars, want %d", len(bars), tc.bars)
			}
			if got := len(root.find("text", "plot-value")); got != tc.values {
				t.Errorf("%d value labels, want %d", got, tc.values)
			}
			if got := len(root.find("g", "plot-legend-item")); got != tc.legend {
				t.Errorf("%d legend items, want %d", got, tc.legend)
			}
			for _, b := range bars {
				if b.child("title") == nil {
					t.Errorf("bar without tooltip")
				}
				if w, _ := strconv.ParseFloat(b.attrs["width"], 64); w <= 0 {
					t.Errorf("bar width %q", b.attrs["width"])
				}
			}
			if got := len(root.find("text", "plot-category")); got != len(tc.cats) {
				t.Errorf("%d category labels, want %d", got, len(tc.cats))
			}
		})
	}
}

func TestBarsGeometry(t *testing.T) {
	root := checkSVG(t, Bars(Options{}, []string{"up", "down"}, Series{Name: "v", Points: []Point{{Y: 4, Label: "four"}, {Y: -2}}}))
	zero := root.find("path", "plot-zero")
	if len(zero) != 1 {
		t.Fatal("no zero line")
	}
	_, zy, _ := strings.Cut(strings.SplitN(zero[0].attrs["d"], "H", 2)[0], " ")
	z, _ := strconv.ParseFloat(zy, 64)
	bars := root.find("rect", "plot-bar")
	f := func(b *node, a string) float64 { v, _ := strconv.ParseFloat(b.attrs[a], 64); return v }
	if up := bars[0]; math.Abs(f(up, "y")+f(up, "height")-z) > 0.2 {
		t.Errorf("positive bar does not end at zero line %v: %v", z, up.attrs)
	}
	if down := bars[1]; math.Abs(f(down, "y")-z) > 0.2 {
		t.Errorf("negative bar does not start at zero line %v: %v", z, down.attrs)
	}
	if h0, h1 := f(bars[0], "height"), f(bars[1], "height"); math.Abs(h0-2*h1) > 0.3 {
		t.Errorf("bar heights %v and %v not proportional to 4 and -2", h0, h1)
	}
	if got := bars[0].child("title").text; got != "four" {
		t.Errorf("tooltip %q, want the point label", got)
	}
	if got := bars[1].child("title").text; got != "v, down: -2" {
		t.Errorf("tooltip %q", got)
	}
	if got := texts(root.find("text", "plot-value")); strings.Join(got, "|") != "4|-2" {
		t.Errorf("value labels %q", got)
	}
}

func TestBands(t *testing.T) {
	long := "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"
	bands := []Band{
		{Start: 0, End: 100, Owner: "alice"},
		{Start: 100, End: 150, Owner: "bob"},
		{Start: 150, End: 300, Owner: "alice", Href: "/miners/alice"},
		{Start: 300, End: 301, Owner: long},
		{Start: 301, End: 301, Owner: "zero-width"},
		{Start: math.NaN(), End: 400, Owner: "nan"},
		{Start: 310, End: 305, Owner: "reversed"},
		{Start: 301, End: 400, Owner: ""},
	}
	root := checkSVG(t, Bands(Options{Title: "Leaders", X: Axis{Label: "block"}}, bands))
	rects := root.find("rect", "plot-band")
	if len(rects) != 5 {
		t.Fatalf("%d segments, want 5", len(rects))
	}
	wantFill := []string{palette[0], palette[1], palette[0], palette[2], palette[3]}
	for i, r := range rects {
		if r.attrs["fill"] != wantFill[i] {
			t.Errorf("segment %d fill %q, want %q", i, r.attrs["fill"], wantFill[i])
		}
	}
	legend := texts(root.find("text", "plot-legend-name"))
	wantLegend := []string{"alice", "bob", truncate(long, legendNameW, fsNormal), "(none)"}
	if strings.Join(legend, "|") != strings.Join(wantLegend, "|") {
		t.Errorf("legend %q, want %q", legend, wantLegend)
	}
	labels := texts(root.find("text", "plot-band-label"))
	if strings.Join(labels, "|") != "alice|bob|alice|(none)" {
		t.Errorf("segment labels %q (the 1-block segment must have none)", labels)
	}
	items := root.find("g", "plot-band-item")
	if got := items[0].child("title").text; got != "alice: 0–100" {
		t.Errorf("tooltip %q", got)
	}
	links := root.find("a", "")
	if len(links) != 1 || links[0].attrs["href"] != "/miners/alice" {
		t.Errorf("links %v", links)
	}
	// Tight axis: the first and last tick lie within the data range.
	if ticks := texts(root.find("g", "plot-axis-x")[0].kids); len(ticks) == 0 || ticks[0] != "0" {
		t.Errorf("x ticks %q", ticks)
	}

	// Long owners get shortened labels in wide segments.
	root = checkSVG(t, Bands(Options{}, []Band{{Start: 0, End: 4, Owner: long}, {Start: 4, End: 11, Owner: "x"}}))
	if l := texts(root.find("text", "plot-band-label")); len(l) != 2 || !strings.HasSuffix(l[0], "…") || l[1] != "x" {
		t.Errorf("labels %q", l)
	}

	for _, empty := range [][]Band{nil, {{Start: 1, End: 1}}, {{Start: math.Inf(-1), End: 0}}} {
		root := checkSVG(t, Bands(Options{}, empty))
		if len(root.find("text", "plot-empty")) != 1 {
			t.Errorf("bands %v: want an empty chart", empty)
		}
	}
}

func TestBandsColourStable(t *testing.T) {
	// Colours depend only on the order of first appearance.
	var bands []Band
	for i := 0; i < 30; i++ {
		bands = append(bands, Band{Start: float64(i), End: float64(i + 1), Owner: "o" + strconv.Itoa(i%11)})
	}
	root := checkSVG(t, Bands(Options{Height: 200}, bands))
	for i, r := range root.find("rect", "plot-band") {
		if want := palette[(i%11)%len(palette)]; r.attrs["fill"] != want {
			t.Errorf("segment %d fill %q, want %q", i, r.attrs["fill"], want)
		}
	}
	if vb := root.attrs["viewBox"]; vb != "0 0 640 200" {
		t.Errorf("viewBox %q", vb)
	}
}

func TestEscaping(t *testing.T) {
	format := func(float64) string { return nasty }
	o := Options{Title: nasty, Empty: nasty, X: Axis{Label: nasty, Format: format}, Y: Axis{Label: nasty, Format: format}}
	s := Series{Name: nasty, Points: []Point{{X: 1, Y: 1, Label: nasty}, {X: 2, Y: 3, Label: nasty}}}
	charts := map[string]template.HTML{
		"line":        Line(o, s, s),
		"bars":        Bars(o, []string{nasty, nasty}, s, s),
		"bands":       Bands(o, []Band{{Start: 0, End: 1000, Owner: nasty}}),
		"empty line":  Line(o),
		"empty bars":  Bars(o, nil),
		"empty bands": Bands(o, nil),
	}
	for name, h := range charts {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(string(h), "<script") || strings.Contains(string(h), "alert(1)</") {
				t.Fatalf("unescaped label:\n%s", h)
			}
			root := checkSVG(t, h)
			if root.attrs["aria-label"] != nasty || root.child("title").text != nasty {
				t.Errorf("title not preserved: %q", root.attrs["aria-label"])
			}
			found := 0
			root.walk(func(n *node) {
				if n != root.child("title") && n.text == nasty {
					found++
				}
			})
			if found == 0 {
				t.Errorf("escaped label text not found in the document")
			}
		})
	}
}

func TestEscapeInvalidText(t *testing.T) {
	label := "a\x00b\x01c\xffd\uFFFEe\tf\r\ng\x7f"
	h := Line(Options{Title: label}, Series{Name: label, Points: []Point{{X: 1, Y: 2, Label: label}}})
	root := checkSVG(t, h)
	if got, want := root.attrs["aria-label"], "abc\uFFFDde f  g"; got != want {
		t.Errorf("cleaned text %q, want %q", got, want)
	}
}

func TestHref(t *testing.T) {
	tests := []struct {
		href string
		keep bool
	}{
		{"/miners/5F3s?tab=scores&x=1", true},
		{"miners/5", true},
		{"?block=12", true},
		{"#top", true},
		{"https://example.org/a?b=c", true},
		{"HTTP://example.org/", true},
		{"//example.org/x", true},
		{"javascript:alert(1)", false},
		{"JaVaScRiPt:alert(1)", false},
		{" javascript:alert(1)", false},
		{"java\tscript:alert(1)", false},
		{"javascript&colon;alert(1)", true}, // a relative path once escaped: harmless
		{"data:text/html,<script>alert(1)</script>", false},
		{"vbscript:msgbox", false},
		{"mailto:a@example.org", false},
		{"file:///etc/passwd", false},
		{"\\\\evil.example/x", false},
		{"http://exa mple.org/", false},
		{"\x01javascript:alert(1)", false},
		{"%zz", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.href, func(t *testing.T) {
			if got := safeHref(tc.href) != ""; got != tc.keep {
				t.Fatalf("safeHref(%q) kept=%v, want %v", tc.href, got, tc.keep)
			}
			charts := []template.HTML{
				Line(Options{}, Series{Points: []Point{{X: 1, Y: 1, Href: tc.href}}}),
				Bars(Options{}, []string{"c"}, Series{Points: []Point{{Y: 1, Href: tc.href}}}),
				Bands(Options{}, []Band{{Start: 0, End: 1, Owner: "o", Href: tc.href}}),
			}
			for i, h := range charts {
				root := checkSVG(t, h)
				links := root.find("a", "")
				if !tc.keep {
					if len(links) != 0 {
						t.Errorf("chart %d: link %q kept", i, links[0].attrs["href"])
					}
					if strings.Contains(strings.ToLower(string(h)), "javascript:") {
						t.Errorf("chart %d contains javascript:", i)
					}
					continue
				}
				if len(links) != 1 || links[0].attrs["href"] != tc.href {
					t.Errorf("chart %d: links %v, want one to %q", i, links, tc.href)
				} else if len(links[0].kids) == 0 {
					t.Errorf("chart %d: empty link", i)
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	render := func() []byte {
		var b bytes.Buffer
		s1 := Series{Name: "a", Points: []Point{{X: 1, Y: 0.1}, {X: 2, Y: 0.7, Label: "x"}, {X: 3, Y: 0.3}}}
		s2 := Series{Name: "b", Points: pts(0.5, 0.2, 0.9)}
		b.WriteString(string(Line(Options{Title: "t"}, s1, s2)))
		b.WriteString(string(Bars(Options{}, []string{"p", "q", "r"}, s1, s2)))
		var bands []Band
		for i := 0; i < 40; i++ {
			bands = append(bands, Band{Start: float64(i * 10), End: float64(i*10 + 10), Owner: strconv.Itoa(i * 7 % 13)})
		}
		b.WriteString(string(Bands(Options{}, bands)))
		return b.Bytes()
	}
	first := render()
	for i := 0; i < 5; i++ {
		if !bytes.Equal(first, render()) {
			t.Fatal("output differs between runs")
		}
	}
}

func TestSizes(t *testing.T) {
	s := Series{Points: pts(1, 2, 3)}
	tests := []struct {
		o    Options
		want string
	}{
		{Options{}, "0 0 640 240"},
		{Options{Width: 800, Height: 300}, "0 0 800 300"},
		{Options{Width: -5, Height: -5}, "0 0 640 240"},
	}
	for _, tc := range tests {
		if got := mustParse(t, Line(tc.o, s)).attrs["viewBox"]; got != tc.want {
			t.Errorf("%+v: viewBox %q, want %q", tc.o, got, tc.want)
		}
	}
	// Tiny sizes still give a usable plot area and valid output.
	for _, h := range []template.HTML{
		Line(Options{Width: 1, Height: 1, Title: "t", X: Axis{Label: "x"}, Y: Axis{Label: "y"}}, s, s),
		Bars(Options{Width: 1, Height: 1}, []string{"a"}, s),
		Bands(Options{Width: 1, Height: 1}, []Band{{Start: 0, End: 1}}),
	} {
		checkInside(t, checkSVG(t, h))
	}
}

func TestExtremeValues(t *testing.T) {
	big := math.MaxFloat64
	for _, ys := range [][]float64{
		{-big, big},
		{big, big},
		{1e-320, 2e-320},
		{1, 1 + 1e-15},
		{1e20, 1e20 + 1e5},
		{-1e-9, 1e-9},
	} {
		h := Line(Options{}, Series{Points: pts(ys...)})
		root := checkSVG(t, h)
		checkInside(t, root)
		if len(h) > 20000 {
			t.Errorf("%v: output unexpectedly large (%d bytes)", ys, len(h))
		}
		checkSVG(t, Bars(Options{}, []string{"a", "b"}, Series{Points: pts(ys...)}))
		checkSVG(t, Bands(Options{}, []Band{{Start: ys[0], End: ys[1], Owner: "x"}}))
	}
}

func TestLineLarge(t *testing.T) {
	p := make([]Point, 10000)
	for i := range p {
		p[i] = Point{X: float64(i), Y: math.Sin(float64(i)/300) * 1000}
	}
	h := Line(Options{}, Series{Points: p})
	root := checkSVG(t, h)
	lines := root.find("polyline", "")
	if len(lines) != 1 || pairs(lines[0]) == 0 || pairs(lines[0]) > 10000 {
		t.Fatalf("bad polyline")
	}
	if len(root.find("circle", "")) != 0 {
		t.Errorf("dense series should have no markers")
	}
	if len(h) > 60_000 {
		t.Errorf("output is %d bytes", len(h))
	}
}

func TestLineThinning(t *testing.T) {
	p := make([]Point, 10000)
	for i := range p {
		p[i] = Point{X: float64(i), Y: float64(i%7) - 3}
	}
	p[4321].Y = 1000 // a one-point spike must survive thinning
	p[7777].Y = -500
	root := checkSVG(t, Line(Options{}, Series{Points: p}))
	line := root.find("polyline", "")[0]
	var xs, ys []float64
	for _, xy := range strings.Fields(line.attrs["points"]) {
		x, y, _ := strings.Cut(xy, ",")
		fx, _ := strconv.ParseFloat(x, 64)
		fy, _ := strconv.ParseFloat(y, 64)
		xs, ys = append(xs, fx), append(ys, fy)
	}
	if n := len(xs); n < 500 || n > 4*2*640 {
		t.Errorf("%d vertices after thinning", n)
	}
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			t.Fatalf("vertices out of order at %d: %v < %v", i, xs[i], xs[i-1])
		}
	}
	// Exactly the two spikes lie away from the noise band.
	sorted := slices.Clone(ys)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	var far []float64
	for _, y := range ys {
		if math.Abs(y-median) > 10 {
			far = append(far, y)
		}
	}
	if len(far) != 2 || far[0] >= median || far[1] <= median {
		t.Errorf("spikes not preserved: far vertices %v (median %v)", far, median)
	}
	// Sparse data is never thinned.
	root = checkSVG(t, Line(Options{}, Series{Points: pts(1, 5, 2, 8, 3, 9, 4)}))
	if n := pairs(root.find("polyline", "")[0]); n != 7 {
		t.Errorf("sparse series has %d vertices, want 7", n)
	}
}

func TestNumbers(t *testing.T) {
	coords := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {1.25, "1.3"}, {-0.04, "0"}, {-0.06, "-0.1"}, {123.456, "123.5"},
		{99.96, "100"}, {-12.3, "-12.3"}, {1e12, "1000000000"}, {math.NaN(), "0"},
	}
	for _, tc := range coords {
		if got := string(appendCoord(nil, tc.v)); got != tc.want {
			t.Errorf("appendCoord(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	sig := []struct {
		v    float64
		n    int
		want string
	}{
		{0, 4, "0"}, {1234.5678, 6, "1234.57"}, {0.1 + 0.2, 6, "0.3"}, {-2, 6, "-2"},
		{4512300, 6, "4512300"}, {0.000123456, 3, "0.000123"}, {1e20, 3, "1e+20"}, {-0.0000001, 3, "-1e-07"},
		{-0.00001, 1, "-0.00001"}, {5.678, 4, "5.678"},
	}
	for _, tc := range sig {
		if got := fmtSig(tc.v, tc.n); got != tc.want {
			t.Errorf("fmtSig(%v, %d) = %q, want %q", tc.v, tc.n, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		w    float64
		want string
	}{
		{"abc", 100, "abc"},
		{"abcdef", textWidth("abc…", fsNormal), "abc…"},
		{"héllo wörld", textWidth("héll…", fsNormal) + 1, "héll…"},
		{"5GrwvaEF5zXb", textWidth("5Grw…", fsNormal), "5Grw…"},
		{"abc", 1, ""},
	}
	for _, tc := range tests {
		if got := truncate(tc.s, tc.w, fsNormal); got != tc.want {
			t.Errorf("truncate(%q, %v) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}

func ExampleLine() {
	page := template.Must(template.New("page").Parse(`<figure>{{.}}</figure>`))
	chart := Line(Options{Title: "Score by block", X: Axis{Label: "block"}, Y: Axis{Min: Fixed(0), Max: Fixed(1)}},
		Series{Name: "5F3s…", Points: []Point{{X: 100, Y: 0.2}, {X: 101, Y: 0.6, Label: "block 101: 0.6", Href: "/blocks/101"}}},
	)
	var b strings.Builder
	_ = page.Execute(&b, chart)
	fmt.Println(strings.HasPrefix(b.String(), "<figure><svg"))
	// Output: true
}

func BenchmarkLine10k(b *testing.B) {
	p := make([]Point, 10000)
	for i := range p {
		p[i] = Point{X: float64(i), Y: math.Sin(float64(i)/300) * 1000}
	}
	s := Series{Name: "score", Points: p}
	b.ReportAllocs()
	for b.Loop() {
		_ = Line(Options{Title: "bench"}, s)
	}
}

func BenchmarkBands1k(b *testing.B) {
	bands := make([]Band, 1000)
	for i := range bands {
		bands[i] = Band{Start: float64(i * 10), End: float64(i*10 + 10), Owner: strconv.Itoa(i % 37)}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Bands(Options{}, bands)
	}
}
