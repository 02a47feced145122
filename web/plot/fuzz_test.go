package plot

import (
	"math"
	"testing"
)

func FuzzCharts(f *testing.F) {
	f.Add(nasty, "javascript:alert(1)", 1.0, 2.0, "owner")
	f.Add("plain", "/miners/1?x=<y>&z", -5.5, 1e300, "")
	f.Add("\x00\xff\uFFFE", "https://example.org", math.NaN(), math.Inf(1), "&amp;")
	f.Add("", " JAVASCRIPT:x", 0.0, 0.0, "<!--")
	f.Add("]]><![CDATA[", "data:,x", -1e-300, 5e-324, "</svg><script>")
	f.Fuzz(func(t *testing.T, label, href string, x, y float64, owner string) {
		o := Options{Title: label, Empty: label, X: Axis{Label: label}, Y: Axis{Label: owner}}
		s := Series{Name: label, Points: []Point{
			{X: x, Y: y, Label: label, Href: href},
			{X: y, Y: x, Label: owner, Href: href},
			{X: x + 1, Y: y * 2},
		}}
		s2 := Series{Name: owner, Points: []Point{{X: y, Y: y, Href: href}}}
		checkSVG(t, Line(o, s, s2))
		checkSVG(t, Line(o, s))
		checkSVG(t, Line(o))
		checkSVG(t, Bars(o, []string{label, owner}, s, s2))
		checkSVG(t, Bands(o, []Band{
			{Start: x, End: y, Owner: owner, Href: href},
			{Start: math.Min(x, y), End: math.Max(x, y) + 1, Owner: label, Href: href},
			{Start: 0, End: 1, Owner: owner},
		}))
	})
}
