package plot

import (
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// canvas accumulates SVG markup.
type canvas struct{ b []byte }

func (c *canvas) raw(s string) { c.b = append(c.b, s...) }

// text writes s escaped for XML/HTML text or attribute content.
func (c *canvas) text(s string) { c.b = appendEscaped(c.b, s) }

// num writes a coordinate with at most one decimal.
func (c *canvas) num(v float64) { c.b = appendCoord(c.b, v) }

// attr writes ` name="value"` with value escaped.
func (c *canvas) attr(name, value string) {
	c.b = append(c.b, ' ')
	c.b = append(c.b, name...)
	c.b = append(c.b, '=', '"')
	c.b = appendEscaped(c.b, value)
	c.b = append(c.b, '"')
}

// numAttr writes ` name="v"` for a coordinate.
func (c *canvas) numAttr(name string, v float64) {
	c.b = append(c.b, ' ')
	c.b = append(c.b, name...)
	c.b = append(c.b, '=', '"')
	c.b = appendCoord(c.b, v)
	c.b = append(c.b, '"')
}

// title writes a <title> child element, if s is not empty.
func (c *canvas) title(s string) {
	if s == "" {
		return
	}
	c.raw("<title>")
	c.text(s)
	c.raw("</title>")
}

// textEl writes <text class x y [text-anchor]>s</text>, with a <title>
// holding full when the displayed text was shortened.
func (c *canvas) textEl(class string, x, y float64, anchor, s, full string) {
	c.raw(`<text`)
	c.attr("class", class)
	c.numAttr("x", x)
	c.numAttr("y", y)
	if anchor != "" {
		c.attr("text-anchor", anchor)
	}
	c.raw(">")
	if full != s {
		c.title(full)
	}
	c.text(s)
	c.raw("</text>")
}

// openLink writes <a href> if href is safe and reports whether it did.
func (c *canvas) openLink(href string) bool {
	h := safeHref(href)
	if h == "" {
		return false
	}
	c.raw(`<a class="plot-link"`)
	c.attr("href", h)
	c.raw(">")
	return true
}

func (c *canvas) closeLink(open bool) {
	if open {
		c.raw("</a>")
	}
}

// begin writes the <svg> start tag, its <title> and the visible title.
func (c *canvas) begin(o *Options, kind, fallback string, w, h int) {
	name := o.Title
	if !visible(name) {
		name = fallback
	}
	c.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="plot plot-`)
	c.raw(kind)
	c.raw(`" viewBox="0 0 `)
	c.b = strconv.AppendInt(c.b, int64(w), 10)
	c.raw(" ")
	c.b = strconv.AppendInt(c.b, int64(h), 10)
	c.raw(`" width="100%" preserveAspectRatio="xMidYMid meet" role="img"`)
	c.attr("aria-label", name)
	c.raw(` font-family="sans-serif" font-size="11" fill="#333"><title>`)
	c.text(name)
	c.raw("</title>")
	if visible(o.Title) {
		t := truncate(o.Title, float64(w)-16, fsTitle)
		c.raw(`<text class="plot-title" x="8" y="17" font-size="13" font-weight="bold">`)
		c.text(t)
		c.raw("</text>")
	}
}

func (c *canvas) end() template.HTML {
	c.raw("</svg>")
	return template.HTML(c.b)
}

// emptyChart renders the Empty message in an otherwise blank chart.
func emptyChart(o *Options, kind, fallback string, w, h int) template.HTML {
	c := &canvas{}
	c.begin(o, kind, fallback, w, h)
	msg := o.emptyText()
	c.textEl("plot-empty", float64(w)/2, float64(h)/2+4, "middle", truncate(msg, float64(w)-16, fsNormal), msg)
	return c.end()
}

// visible reports whether s has something to show once cleaned.
func visible(s string) bool {
	return strings.TrimSpace(string(appendEscaped(nil, s))) != ""
}

// appendEscaped appends s escaped for both XML and HTML text and attribute
// values. Invalid UTF-8 becomes U+FFFD, tabs and line breaks become spaces,
// and characters that XML 1.0 does not allow are dropped.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		ch := s[i]
		if ch < utf8.RuneSelf {
			i++
			switch {
			case ch == '<':
				b = append(b, "&lt;"...)
			case ch == '>':
				b = append(b, "&gt;"...)
			case ch == '&':
				b = append(b, "&amp;"...)
			case ch == '"':
				b = append(b, "&#34;"...)
			case ch == '\'':
				b = append(b, "&#39;"...)
			case ch == '\t' || ch == '\n' || ch == '\r':
				b = append(b, ' ')
			case ch < 0x20 || ch == 0x7f:
				// not allowed (or not wise) in XML; drop
			default:
				b = append(b, ch)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, "\uFFFD"...)
		case r == 0xFFFE || r == 0xFFFF:
			// not XML characters; drop
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// appendCoord appends v rounded to one decimal, without trailing zeros.
func appendCoord(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		v = 0
	case v > 1e9:
		v = 1e9
	case v < -1e9:
		v = -1e9
	}
	return appendTenths(b, int64(math.Round(v*10)))
}

// appendTenths appends t/10 with at most one decimal.
func appendTenths(b []byte, t int64) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, t/10, 10)
	if r := t % 10; r != 0 {
		b = append(b, '.', byte('0'+r))
	}
	return b
}

// fmtSig formats v compactly with about sig significant digits.
func fmtSig(v float64, sig int) string {
	if v == 0 || !finite(v) {
		if v == 0 {
			return "0"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	if a >= 1e15 || a < 1e-6 {
		return strconv.FormatFloat(v, 'g', sig, 64)
	}
	d := sig - 1 - int(math.Floor(math.Log10(a)))
	d = min(max(d, 0), 9)
	return trimZeros(strconv.FormatFloat(v, 'f', d, 64))
}

// trimZeros removes trailing decimal zeros and a negative sign on zero.
func trimZeros(s string) string {
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if strings.Trim(s, "-0.") == "" {
		return "0"
	}
	return s
}

// safeHref returns h if it is a relative URL or an http(s) URL, and ""
// otherwise. URLs with whitespace, control characters or backslashes are
// rejected, because browsers strip or reinterpret them.
func safeHref(h string) string {
	if h == "" || !utf8.ValidString(h) {
		return ""
	}
	for _, r := range h {
		if r <= 0x20 || r == 0x7f || r == '\\' || (r >= 0x80 && r <= 0x9f) || r == 0xFFFE || r == 0xFFFF {
			return ""
		}
	}
	u, err := url.Parse(h)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https":
		return h
	}
	return ""
}

// Font sizes used for text-width estimates; fsTitle accounts for bold.
const (
	fsNormal = 11
	fsSmall  = 10
	fsTitle  = 13 * 1.1
)

// runeWidth estimates the advance of r in em, erring on the wide side for
// common sans-serif fonts (DejaVu Sans, Arial, Helvetica).
func runeWidth(r rune) float64 {
	switch {
	case r == '…':
		return ellipsisWidth
	case r == ' ':
		return 0.32
	case strings.ContainsRune("il.,:;'|!`", r):
		return 0.3
	case strings.ContainsRune("Ifjrt()[]{}\"-/", r):
		return 0.4
	case r == 'm' || r == 'w':
		return 0.92
	case r == 'M' || r == 'W':
		return 1.0
	case r >= 'A' && r <= 'Z':
		return 0.74
	case r >= '0' && r <= '9', r >= 'a' && r <= 'z':
		return 0.64
	case r < 0x80:
		return 0.7
	case r >= 0x1100 && (r <= 0x115F || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7A3 ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF00 && r <= 0xFF60 ||
		r >= 0x1F300 && r <= 0x1FAFF || r >= 0x20000):
		return 1.05 // wide (CJK, Hangul, emoji)
	default:
		return 0.72
	}
}

const ellipsisWidth = 1.0 // "…", in em

// textWidth estimates the rendered width of s at font size fs.
func textWidth(s string, fs float64) float64 {
	w := 0.0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w * fs
}

// truncate shortens s with an ellipsis so that it fits in width w at font
// size fs. It returns "" if not even one character and the ellipsis fit.
func truncate(s string, w, fs float64) string {
	if textWidth(s, fs) <= w {
		return s
	}
	budget := w/fs - ellipsisWidth
	acc := 0.0
	for i, r := range s {
		acc += runeWidth(r)
		if acc > budget+1e-9 {
			if i == 0 {
				return ""
			}
			return s[:i] + "…"
		}
	}
	return s // unreachable: s fits
}
