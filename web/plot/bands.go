package plot

import (
	"html/template"
	"math"
	"strconv"
)

// Bands draws a timeline: a single row along the X axis in which each band
// [Start, End) is a segment coloured by its owner. Each distinct owner gets
// one colour, assigned in order of first appearance from the Okabe–Ito
// palette (colours repeat after eight owners). Owner names are written
// inside segments wide enough to hold at least a few characters, each
// segment has a tooltip with its owner and range, and a legend lists the
// owners in order of first appearance.
//
// Bands with a NaN or infinite end, or with End <= Start, are skipped.
// Unless fixed by o.X.Min/Max, the axis spans exactly the bands. A zero
// o.Height gives a compact chart with a row 36 units high. When no band can
// be drawn, the chart shows o.Empty.
func Bands(o Options, bands []Band) template.HTML {
	w, h := o.size(0)
	var xe extent
	var owners []string
	index := map[string]int{}
	for _, b := range bands {
		if !validBand(b) {
			continue
		}
		xe.add(b.Start)
		xe.add(b.End)
		if _, ok := index[b.Owner]; !ok {
			index[b.Owner] = len(owners)
			owners = append(owners, b.Owner)
		}
	}
	if xe.n == 0 {
		if h == 0 {
			h = 120
		}
		return emptyChart(&o, "bands", "Timeline", w, h)
	}

	items := make([]legendItem, len(owners))
	for i, ow := range owners {
		items[i] = legendItem{ownerName(ow), colour(i)}
	}
	f := frame{w: float64(w), x0: 12, x1: float64(w) - 12}
	leg := layoutLegend(items, f.w)
	f.y0 = headerHeight(&o) + leg.height() + 6
	axisH := xAxisHeight(o.X)
	rowH := 36.0
	if h != 0 {
		rowH = math.Max(float64(h)-f.y0-axisH, 12)
	}
	f.y1 = f.y0 + rowH
	f.h = math.Max(float64(h), math.Ceil(f.y1+axisH))

	xs := axisScale(o.X, xe, tickCount(f.x1-f.x0, 90), true)
	xl := formatTicks(xs.ticks, xs.tickFormat(o.X), 160)
	fx := valueFormat(o.X)

	c := &canvas{b: make([]byte, 0, 4096+256*len(bands))}
	c.begin(&o, "bands", "Timeline", int(f.w), int(f.h))
	c.raw(`<rect class="plot-band-bg" fill="#f2f2f2"`)
	c.numAttr("x", f.x0)
	c.numAttr("y", f.y0)
	c.numAttr("width", f.x1-f.x0)
	c.numAttr("height", rowH)
	c.raw("/>")

	mx := xs.mapper(f.x0, f.x1)
	for _, b := range bands {
		if !validBand(b) {
			continue
		}
		x0, x1 := mx(b.Start), mx(b.End)
		if !(x1 > x0) {
			continue // outside a fixed axis range
		}
		oi := index[b.Owner]
		name := ownerName(b.Owner)
		link := c.openLink(b.Href)
		c.raw(`<g class="plot-band-item">`)
		c.title(name + ": " + fx(b.Start) + "–" + fx(b.End))
		c.raw(`<rect class="plot-band plot-owner-`)
		c.b = strconv.AppendInt(c.b, int64(oi), 10)
		c.raw(`"`)
		c.numAttr("x", x0)
		c.numAttr("y", f.y0)
		c.numAttr("width", x1-x0)
		c.numAttr("height", rowH)
		c.attr("fill", colour(oi))
		c.raw("/>")
		if label := truncate(name, x1-x0-8, fsNormal); label == name || (label != "" && len([]rune(label)) >= 4) {
			c.raw(`<text class="plot-band-label" text-anchor="middle"`)
			c.numAttr("x", (x0+x1)/2)
			c.numAttr("y", f.y0+rowH/2+4)
			c.attr("fill", ink(oi))
			c.raw(">")
			c.text(label)
			c.raw("</text>")
		}
		c.raw("</g>")
		c.closeLink(link)
	}

	pos := tickPositions(f, &xs)
	c.raw(`<path class="plot-axis-line" fill="none" stroke="#999" stroke-width="1" d="M`)
	c.num(f.x0)
	c.raw(" ")
	c.num(f.y1)
	c.raw("H")
	c.num(f.x1)
	for _, x := range pos {
		c.raw("M")
		c.num(x)
		c.raw(" ")
		c.num(f.y1)
		c.raw("v4")
	}
	c.raw(`"/>`)
	drawXLabels(c, f, pos, xl, o.X.Label)
	leg.draw(c, headerHeight(&o))
	return c.end()
}

func validBand(b Band) bool {
	return finite(b.Start) && finite(b.End) && b.End > b.Start
}

func ownerName(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
