package plot

import (
	"html/template"
	"math"
	"strconv"
)

// maxMarkers is the number of points in a series up to which every point
// gets a marker; denser series only mark points that have a Label or Href.
const maxMarkers = 250

// Line draws a line chart: one polyline per series through its points in
// the given order, with point markers, nice ticks (1, 2 or 5 × 10^k) and
// grid lines on both axes, and a legend when there is more than one series.
// Unless fixed, the X axis spans exactly the data and the Y axis is widened
// to whole ticks.
//
// Points with a NaN or infinite coordinate are skipped. Series with more
// than 250 points get markers only on points with a Label or Href, and
// dense polylines are thinned to the first, lowest, highest and last point
// of each half-unit column, which keeps their look (spikes included) while
// bounding the output size. Values
// outside a fixed axis Min/Max are drawn at the edge of the plot area.
// When no point can be drawn, the chart shows o.Empty.
func Line(o Options, series ...Series) template.HTML {
	w, h := o.size(defaultHeight)
	var xe, ye extent
	for _, s := range series {
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				xe.add(p.X)
				ye.add(p.Y)
			}
		}
	}
	if xe.n == 0 {
		return emptyChart(&o, "line", "Line chart", w, h)
	}

	var items []legendItem
	if len(series) > 1 {
		for i, s := range series {
			items = append(items, legendItem{seriesName(s, i), colour(i)})
		}
	}
	leg := layoutLegend(items, float64(w))
	f, ys, yl := xyLayout(&o, w, h, &leg, ye)
	xs := axisScale(o.X, xe, tickCount(f.x1-f.x0, 90), true)
	xl := formatTicks(xs.ticks, xs.tickFormat(o.X), 160)

	c := &canvas{b: make([]byte, 0, 4096+12*min(xe.n, 8*int(f.x1-f.x0)))}
	c.begin(&o, "line", "Line chart", int(f.w), int(f.h))
	drawGrid(c, f, &xs, &ys)
	drawYAxis(c, f, &ys, yl, o.Y.Label)
	drawXLabels(c, f, tickPositions(f, &xs), xl, o.X.Label)
	drawAxisLines(c, f)

	mx, my := xs.mapper(f.x0, f.x1), ys.mapper(f.y1, f.y0)
	for i, s := range series {
		n := 0
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		c.raw(`<g class="plot-series plot-series-`)
		c.b = strconv.AppendInt(c.b, int64(i), 10)
		c.raw(`"`)
		c.attr("fill", colour(i))
		c.attr("stroke", colour(i))
		c.raw(`><polyline class="plot-line" fill="none" stroke-width="1.5" stroke-linejoin="round" points="`)
		var pl polyline
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				pl.add(c, mx(p.X), my(p.Y))
			}
		}
		pl.flush(c)
		c.raw(`"/>`)
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			if n > maxMarkers && p.Label == "" && safeHref(p.Href) == "" {
				continue
			}
			link := c.openLink(p.Href)
			c.raw(`<circle class="plot-marker"`)
			c.numAttr("cx", mx(p.X))
			c.numAttr("cy", my(p.Y))
			c.raw(` r="2.5"`)
			if p.Label != "" {
				c.raw(">")
				c.title(p.Label)
				c.raw("</circle>")
			} else {
				c.raw("/>")
			}
			c.closeLink(link)
		}
		c.raw("</g>")
	}
	leg.draw(c, headerHeight(&o))
	return c.end()
}

func seriesName(s Series, i int) string {
	if s.Name == "" {
		return "Series " + strconv.Itoa(i+1)
	}
	return s.Name
}

// polyline writes the points of a polyline, thinning dense data without
// visible change: consecutive vertices falling in the same half-unit column
// are reduced to the first, lowest, highest and last of them (in their
// original order), and repeated vertices are written once.
type polyline struct {
	col                 int64
	n                   int // vertices in the current column
	first, lo, hi, last vertex
	seq                 int
	wrote               bool
	px, py              int64 // last written vertex, in tenths
}

type vertex struct {
	seq  int
	x, y float64
}

func (p *polyline) add(c *canvas, x, y float64) {
	col := int64(math.Floor(x * 2))
	if p.n > 0 && col != p.col {
		p.flush(c)
	}
	v := vertex{p.seq, x, y}
	p.seq++
	if p.n == 0 {
		p.col, p.first, p.lo, p.hi = col, v, v, v
	}
	if y < p.lo.y {
		p.lo = v
	}
	if y > p.hi.y {
		p.hi = v
	}
	p.last = v
	p.n++
}

// flush writes the current column's vertices.
func (p *polyline) flush(c *canvas) {
	if p.n == 0 {
		return
	}
	vs := [4]vertex{p.first, p.lo, p.hi, p.last}
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].seq < vs[j-1].seq; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
	for i, v := range vs {
		if i > 0 && v.seq == vs[i-1].seq {
			continue
		}
		tx, ty := int64(math.Round(v.x*10)), int64(math.Round(v.y*10))
		if p.wrote {
			if tx == p.px && ty == p.py {
				continue
			}
			c.b = append(c.b, ' ')
		}
		c.b = appendTenths(c.b, tx)
		c.b = append(c.b, ',')
		c.b = appendTenths(c.b, ty)
		p.px, p.py, p.wrote = tx, ty, true
	}
	p.n = 0
}
