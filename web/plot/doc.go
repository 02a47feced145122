// Package plot renders small, self-contained SVG charts on the server for
// the validator's web console.
//
// Every chart function returns a [template.HTML] holding exactly one <svg>
// element that can be dropped into an html/template page:
//
//	{{.Chart}} // where Chart = plot.Line(plot.Options{Title: "Score"}, series...)
//
// The output is designed for pages served under a strict
// Content-Security-Policy: it contains no script, no <style> element and no
// style="" attributes. Colours, strokes and fonts are set with SVG
// presentation attributes (fill, stroke, stroke-width, font-size,
// text-anchor, ...), which page CSS overrides, and every element of interest
// carries a class so pages can restyle it:
//
//	svg.plot            the root (also plot-line, plot-bars or plot-bands)
//	.plot-title         the visible title
//	.plot-grid          grid lines
//	.plot-axis          tick labels (plot-axis-x, plot-axis-y)
//	.plot-axis-line     the axis lines
//	.plot-axis-label    the axis captions
//	.plot-legend        the legend
//	.plot-series        a series group (also plot-series-N, N from 0)
//	.plot-line          a series polyline
//	.plot-marker        a point marker
//	.plot-bar           a bar; .plot-value its value label
//	.plot-category      a category label under a bar group
//	.plot-band          a timeline segment (also plot-owner-N, N the owner's
//	                    index in order of first appearance);
//	                    .plot-band-label its owner text
//	.plot-link          an <a> around a linked marker, bar or segment
//	.plot-empty         the message shown when there is no data
//
// The root element has xmlns, a viewBox, width="100%" and
// preserveAspectRatio, so it scales to the width of its container while
// keeping its aspect ratio; it has role="img", an aria-label and a <title>.
//
// All text (titles, series names, labels, categories, owners and formatted
// tick labels) is XML-escaped, and characters XML cannot carry are dropped,
// so the output is well-formed XML as well as safe HTML. Links (Point.Href,
// Band.Href) are kept only when they are relative or use http or https;
// anything else, such as javascript: or data: URLs, is dropped and the
// element is rendered without a link.
//
// Output is deterministic: the same input gives the same bytes. Series take
// colours from the Okabe–Ito colour-blind-safe palette by position; timeline
// owners get one colour each in order of first appearance. Values that are
// NaN or ±Inf are skipped. Numbers are written with at most one decimal for
// coordinates to keep the SVG small.
package plot
