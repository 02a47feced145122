package plot

import "math"

// frame is the viewBox size and the plot area inside it (y0 is the top).
type frame struct {
	w, h           float64
	x0, y0, x1, y1 float64
}

const (
	headerTitle    = 28 // space taken by a visible title
	headerNoTitle  = 8
	legendRowH     = 16
	legendMaxRows  = 3
	legendNameW    = 160 // longest legend name before truncation
	legendMoreW    = 64  // room kept for "+N more"
	yLabelMaxW     = 120 // longest Y tick label before truncation
	xAxisH         = 22  // X tick labels below the plot area
	axisCaptionH   = 16
	tickLabelSpace = 8 // minimal gap between X tick labels
)

func headerHeight(o *Options) float64 {
	if visible(o.Title) {
		return headerTitle
	}
	return headerNoTitle
}

func xAxisHeight(a Axis) float64 {
	if a.Label != "" {
		return xAxisH + axisCaptionH
	}
	return xAxisH
}

type legendItem struct{ name, colour string }

// legend is a laid-out legend: items flow left to right and wrap, up to
// legendMaxRows rows; items that do not fit are summarised as "+N more".
type legend struct {
	items []legendItem
	names []string
	x     []float64
	row   []int
	rows  int
	more  int
	moreX float64
}

func layoutLegend(items []legendItem, w float64) legend {
	var l legend
	if len(items) == 0 {
		return l
	}
	x, row := 8.0, 0
	for i, it := range items {
		name := truncate(it.name, legendNameW, fsNormal)
		iw := 14 + textWidth(name, fsNormal) + 14
		limit := w - 8
		if row == legendMaxRows-1 && i < len(items)-1 {
			limit -= legendMoreW
		}
		if x+iw > limit && x > 8 {
			if row == legendMaxRows-1 {
				l.more = len(items) - i
				break
			}
			row++
			x = 8
		}
		l.items = append(l.items, it)
		l.names = append(l.names, name)
		l.x = append(l.x, x)
		l.row = append(l.row, row)
		x += iw
	}
	l.rows = row + 1
	l.moreX = x
	return l
}

func (l *legend) height() float64 { return float64(l.rows) * legendRowH }

func (l *legend) draw(c *canvas, top float64) {
	if len(l.items) == 0 {
		return
	}
	c.raw(`<g class="plot-legend">`)
	for i, it := range l.items {
		y := top + float64(l.row[i])*legendRowH
		c.raw(`<g class="plot-legend-item"><rect`)
		c.numAttr("x", l.x[i])
		c.numAttr("y", y)
		c.raw(` width="10" height="10"`)
		c.attr("fill", it.colour)
		c.raw("/>")
		c.textEl("plot-legend-name", l.x[i]+14, y+9, "", l.names[i], it.name)
		c.raw("</g>")
	}
	if l.more > 0 {
		y := top + float64(l.rows-1)*legendRowH
		c.raw(`<text class="plot-legend-more"`)
		c.numAttr("x", l.moreX)
		c.numAttr("y", y+9)
		c.raw(` fill="#666">+`)
		c.num(float64(l.more))
		c.raw(" more</text>")
	}
	c.raw("</g>")
}

// formatTicks formats tick labels, truncating very long ones.
func formatTicks(ticks []float64, f func(float64) string, maxW float64) []string {
	out := make([]string, len(ticks))
	for i, t := range ticks {
		out[i] = truncate(f(t), maxW, fsNormal)
	}
	return out
}

// yAxisWidth is the left margin needed for Y tick labels and caption.
func yAxisWidth(labels []string, caption string) float64 {
	m := 0.0
	for _, l := range labels {
		m = math.Max(m, textWidth(l, fsNormal))
	}
	w := m + 12
	if caption != "" {
		w += axisCaptionH
	}
	return math.Max(w, 28)
}

// drawGrid draws horizontal grid lines at the Y ticks and, when xs is not
// nil, vertical ones at the X ticks.
func drawGrid(c *canvas, f frame, xs, ys *scale) {
	c.raw(`<path class="plot-grid" fill="none" stroke="#e3e3e3" stroke-width="1" d="`)
	for _, t := range ys.ticks {
		y := ys.pos(t, f.y1, f.y0)
		c.raw("M")
		c.num(f.x0)
		c.raw(" ")
		c.num(y)
		c.raw("H")
		c.num(f.x1)
	}
	if xs != nil {
		for _, t := range xs.ticks {
			x := xs.pos(t, f.x0, f.x1)
			c.raw("M")
			c.num(x)
			c.raw(" ")
			c.num(f.y0)
			c.raw("V")
			c.num(f.y1)
		}
	}
	c.raw(`"/>`)
}

// drawAxisLines draws the left and bottom axis lines.
func drawAxisLines(c *canvas, f frame) {
	c.raw(`<path class="plot-axis-line" fill="none" stroke="#999" stroke-width="1" d="M`)
	c.num(f.x0)
	c.raw(" ")
	c.num(f.y0)
	c.raw("V")
	c.num(f.y1)
	c.raw("H")
	c.num(f.x1)
	c.raw(`"/>`)
}

// drawYAxis draws the Y tick labels and the rotated caption.
func drawYAxis(c *canvas, f frame, ys *scale, labels []string, caption string) {
	c.raw(`<g class="plot-axis plot-axis-y" text-anchor="end" fill="#555">`)
	for i, t := range ys.ticks {
		c.raw("<text")
		c.numAttr("x", f.x0-6)
		c.numAttr("y", ys.pos(t, f.y1, f.y0)+4)
		c.raw(">")
		c.text(labels[i])
		c.raw("</text>")
	}
	c.raw("</g>")
	if caption != "" {
		s := truncate(caption, f.y1-f.y0, fsNormal)
		c.raw(`<text class="plot-axis-label plot-axis-label-y" transform="rotate(-90)" text-anchor="middle"`)
		c.numAttr("x", -(f.y0+f.y1)/2)
		c.raw(` y="12">`)
		if s != caption {
			c.title(caption)
		}
		c.text(s)
		c.raw("</text>")
	}
}

// drawXLabels draws labels centred at positions xs below the plot area,
// skipping labels so that they do not overlap, and the X caption.
func drawXLabels(c *canvas, f frame, xs []float64, labels []string, caption string) {
	every := 1
	if len(xs) > 1 {
		maxW := 0.0
		for _, l := range labels {
			maxW = math.Max(maxW, textWidth(l, fsNormal))
		}
		gap := math.Abs(xs[len(xs)-1]-xs[0]) / float64(len(xs)-1)
		if gap > 0 && maxW+tickLabelSpace > gap {
			every = int(math.Ceil((maxW + tickLabelSpace) / gap))
		}
	}
	c.raw(`<g class="plot-axis plot-axis-x" text-anchor="middle" fill="#555">`)
	for i := 0; i < len(xs); i += every {
		hw := textWidth(labels[i], fsNormal) / 2
		x := math.Max(math.Min(xs[i], f.w-2-hw), 2+hw)
		c.raw("<text")
		c.numAttr("x", x)
		c.numAttr("y", f.y1+15)
		c.raw(">")
		c.text(labels[i])
		c.raw("</text>")
	}
	c.raw("</g>")
	if caption != "" {
		s := truncate(caption, f.w-16, fsNormal)
		c.textEl("plot-axis-label plot-axis-label-x", (f.x0+f.x1)/2, f.y1+xAxisH+11, "middle", s, caption)
	}
}

// tickPositions maps ticks onto the X range of the frame.
func tickPositions(f frame, xs *scale) []float64 {
	out := make([]float64, len(xs.ticks))
	for i, t := range xs.ticks {
		out[i] = xs.pos(t, f.x0, f.x1)
	}
	return out
}

// xyLayout places the plot area of a Line or Bars chart below the title
// and legend and computes the Y scale and its labels. The viewBox grows
// when it is too small for a usable plot area.
func xyLayout(o *Options, w, h int, leg *legend, ye extent) (frame, scale, []string) {
	f := frame{w: float64(w), h: float64(h)}
	f.y0 = headerHeight(o) + leg.height() + 6
	f.y1 = f.h - xAxisHeight(o.X)
	if f.y1-f.y0 < 40 {
		f.y1 = f.y0 + 40
		f.h = math.Ceil(f.y1 + xAxisHeight(o.X))
	}
	ys := axisScale(o.Y, ye, tickCount(f.y1-f.y0, 40), false)
	yl := formatTicks(ys.ticks, ys.tickFormat(o.Y), yLabelMaxW)
	f.x0 = yAxisWidth(yl, o.Y.Label)
	f.x1 = f.w - 16
	if f.x1-f.x0 < 40 {
		f.x1 = f.x0 + 40
		f.w = math.Ceil(f.x1 + 16)
	}
	return f, ys, yl
}
