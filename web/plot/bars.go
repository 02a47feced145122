package plot

import (
	"html/template"
	"math"
	"strconv"
)

// Bars draws a grouped bar chart: one group per category along the X axis
// and, in each group, one bar per series, where series[s].Points[i].Y is the
// value of series s for categories[i] (Point.X is ignored). Bars start at
// zero, so negative values hang below the zero line. Each bar is labelled
// with its value when the label fits, and has a tooltip (Point.Label when
// set, otherwise the series, category and value).
//
// There are max(len(categories), longest series) groups; missing
// categories have no label. NaN or infinite values and missing points draw
// no bar. A legend is drawn when there is more than one series. When no bar
// can be drawn, the chart shows o.Empty.
func Bars(o Options, categories []string, series ...Series) template.HTML {
	w, h := o.size(defaultHeight)
	groups := len(categories)
	var ye extent
	for _, s := range series {
		groups = max(groups, len(s.Points))
		for _, p := range s.Points {
			ye.add(p.Y)
		}
	}
	if ye.n == 0 || groups == 0 {
		return emptyChart(&o, "bars", "Bar chart", w, h)
	}
	ye.add(0)

	var items []legendItem
	if len(series) > 1 {
		for i, s := range series {
			items = append(items, legendItem{seriesName(s, i), colour(i)})
		}
	}
	leg := layoutLegend(items, float64(w))
	f, ys, yl := xyLayout(&o, w, h, &leg, ye)

	c := &canvas{}
	c.begin(&o, "bars", "Bar chart", int(f.w), int(f.h))
	drawGrid(c, f, nil, &ys)
	drawYAxis(c, f, &ys, yl, o.Y.Label)

	gw := (f.x1 - f.x0) / float64(groups)
	drawCategories(c, f, gw, groups, categories, o.X.Label)

	zero := ys.pos(0, f.y1, f.y0)
	if zero > f.y0 && zero < f.y1 {
		c.raw(`<path class="plot-zero" fill="none" stroke="#999" stroke-width="1" d="M`)
		c.num(f.x0)
		c.raw(" ")
		c.num(zero)
		c.raw("H")
		c.num(f.x1)
		c.raw(`"/>`)
	}

	fv := valueFormat(o.Y)
	bw := gw * 0.8 / float64(len(series))
	pad := 0.0
	if bw > 4 {
		pad = 0.5
	}
	type valueLabel struct {
		x, y float64
		s    string
	}
	var values []valueLabel
	for si, s := range series {
		c.raw(`<g class="plot-series plot-series-`)
		c.b = strconv.AppendInt(c.b, int64(si), 10)
		c.raw(`"`)
		c.attr("fill", colour(si))
		c.raw(">")
		for i, p := range s.Points {
			if !finite(p.Y) {
				continue
			}
			cat := ""
			if i < len(categories) {
				cat = categories[i]
			}
			x := f.x0 + float64(i)*gw + gw*0.1 + float64(si)*bw
			y := ys.pos(p.Y, f.y1, f.y0)
			top, bottom := math.Min(y, zero), math.Max(y, zero)
			link := c.openLink(p.Href)
			c.raw(`<rect class="plot-bar"`)
			c.numAttr("x", x+pad)
			c.numAttr("y", top)
			c.numAttr("width", bw-2*pad)
			c.numAttr("height", bottom-top)
			c.raw(">")
			v := fv(p.Y)
			tip := p.Label
			if tip == "" {
				tip = v
				if cat != "" {
					tip = cat + ": " + v
				}
				if len(series) > 1 || s.Name != "" {
					tip = seriesName(s, si) + ", " + tip
				}
			}
			c.title(tip)
			c.raw("</rect>")
			c.closeLink(link)
			if textWidth(v, fsSmall) <= bw+2 {
				ly := math.Max(y-3, f.y0+8)
				if p.Y < 0 {
					ly = math.Min(y+10, f.y1-2)
				}
				values = append(values, valueLabel{x + bw/2, ly, v})
			}
		}
		c.raw("</g>")
	}
	if len(values) > 0 {
		c.raw(`<g class="plot-values" font-size="10" text-anchor="middle" fill="#333">`)
		for _, v := range values {
			c.textEl("plot-value", v.x, v.y, "", v.s, v.s)
		}
		c.raw("</g>")
	}
	drawAxisLines(c, f)
	leg.draw(c, headerHeight(&o))
	return c.end()
}

// drawCategories labels the bar groups, shortening labels to their group
// width or, when groups are very narrow, labelling only every k-th group.
func drawCategories(c *canvas, f frame, gw float64, groups int, categories []string, caption string) {
	const minW = 30
	every := 1
	if gw < minW {
		every = int(math.Ceil(minW / gw))
	}
	room := float64(every)*gw - 4
	c.raw(`<g class="plot-axis plot-axis-x" text-anchor="middle" fill="#555">`)
	for i := 0; i < groups && i < len(categories); i += every {
		full := categories[i]
		s := truncate(full, room, fsNormal)
		if s == "" {
			continue
		}
		c.textEl("plot-category", f.x0+(float64(i)+0.5)*gw, f.y1+15, "", s, full)
	}
	c.raw("</g>")
	if caption != "" {
		s := truncate(caption, f.w-16, fsNormal)
		c.textEl("plot-axis-label plot-axis-label-x", (f.x0+f.x1)/2, f.y1+xAxisH+11, "middle", s, caption)
	}
}
