package plot

import "math"

// Point is one data point.
type Point struct {
	X, Y float64
	// Label, when set, is shown as a tooltip (an SVG <title>) on the point's
	// marker or bar.
	Label string
	// Href, when set, wraps the point's marker or bar in a link. Only
	// relative URLs and http(s) URLs are kept; others are dropped.
	Href string
}

// Series is a named sequence of points.
type Series struct {
	Name   string
	Points []Point
}

// Axis configures one axis.
type Axis struct {
	// Label is the axis caption.
	Label string
	// Min and Max fix the ends of the axis; nil means automatic (the data
	// range widened to "nice" tick values). See [Fixed].
	Min, Max *float64
	// Format formats the axis tick labels, and also the values this axis
	// contributes to generated text: bar value labels and tooltips (Y axis
	// of [Bars]) and segment tooltips (X axis of [Bands]). Nil selects a
	// compact default: tick labels with the decimals the tick step needs
	// (with an M, G or T suffix for steps of 100000 and more), values with
	// up to six significant digits.
	// [Bars] ignores X.Format (categories are strings) and [Bands] ignores
	// the Y axis.
	Format func(float64) string
}

// Options are shared by all charts. The zero value is usable.
type Options struct {
	// Title is drawn at the top and used as the accessible name; when empty
	// a generic name ("Line chart", ...) is used for accessibility only.
	Title string
	// Width and Height are the viewBox size. Zero means 640×240 (for
	// [Bands], a zero Height means just enough for one row).
	Width, Height int
	X, Y          Axis
	// Empty is the message shown when there is nothing to plot
	// (default "No data").
	Empty string
}

// Band is a segment [Start, End) of the X axis owned by Owner, for example a
// leader's reign over a range of blocks.
type Band struct {
	Start, End float64
	Owner      string
	// Href, when set, links the segment (relative or http(s) URLs only).
	Href string
}

// Fixed returns a pointer to v, for [Axis.Min] and [Axis.Max]:
//
//	plot.Axis{Min: plot.Fixed(0), Max: plot.Fixed(1)}
func Fixed(v float64) *float64 { return &v }

const (
	defaultWidth  = 640
	defaultHeight = 240
	minWidth      = 120
	minHeight     = 60
	maxSize       = 20000
)

// palette is the Okabe–Ito colour-blind-safe palette, ordered so that the
// first colours are the most distinct on a white background.
var palette = [...]string{
	"#0072B2", // blue
	"#E69F00", // orange
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#D55E00", // vermillion
	"#F0E442", // yellow
	"#000000", // black
}

// paletteInk is the text colour with the better contrast on each palette
// colour.
var paletteInk = [...]string{"#fff", "#000", "#000", "#000", "#000", "#000", "#000", "#fff"}

func colour(i int) string { return palette[i%len(palette)] }
func ink(i int) string    { return paletteInk[i%len(paletteInk)] }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// size returns the viewBox size, applying defaults and bounds. A zero
// height is returned as zero when defH is zero.
func (o *Options) size(defH int) (w, h int) {
	w, h = o.Width, o.Height
	if w <= 0 {
		w = defaultWidth
	}
	w = min(max(w, minWidth), maxSize)
	if h <= 0 {
		h = defH
	}
	if h != 0 {
		h = min(max(h, minHeight), maxSize)
	}
	return w, h
}

func (o *Options) emptyText() string {
	if o.Empty == "" {
		return "No data"
	}
	return o.Empty
}

// extent tracks the range of finite values.
type extent struct {
	min, max float64
	n        int
}

func (e *extent) add(v float64) {
	if !finite(v) {
		return
	}
	if e.n == 0 || v < e.min {
		e.min = v
	}
	if e.n == 0 || v > e.max {
		e.max = v
	}
	e.n++
}
