package plot

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strings"
	"testing"
)

// node is a parsed XML element.
type node struct {
	name  string
	attrs map[string]string
	text  string // character data directly inside the element
	kids  []*node
}

// parseSVG parses h as XML and returns its root element.
func parseSVG(h template.HTML) (*node, error) {
	d := xml.NewDecoder(strings.NewReader(string(h)))
	var root *node
	var stack []*node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, attrs: map[string]string{}}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("second root element <%s>", n.name)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				if strings.TrimSpace(string(t)) != "" {
					return nil, fmt.Errorf("text outside root: %q", t)
				}
				continue
			}
			stack[len(stack)-1].text += string(t)
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

func mustParse(t testing.TB, h template.HTML) *node {
	t.Helper()
	n, err := parseSVG(h)
	if err != nil {
		t.Fatalf("output is not well-formed XML: %v\n%s", err, h)
	}
	return n
}

// walk calls f for n and all its descendants, depth first.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, k := range n.kids {
		k.walk(f)
	}
}

// find returns the descendants (and n itself) with the given element name
// (any if "") and class word (any if "").
func (n *node) find(name, class string) []*node {
	var out []*node
	n.walk(func(m *node) {
		if name != "" && m.name != name {
			return
		}
		if class != "" && !hasClass(m, class) {
			return
		}
		out = append(out, m)
	})
	return out
}

func hasClass(n *node, class string) bool {
	for _, c := range strings.Fields(n.attrs["class"]) {
		if c == class {
			return true
		}
	}
	return false
}

// child returns the first direct child named name.
func (n *node) child(name string) *node {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// texts returns the direct text of each node.
func texts(ns []*node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.text
	}
	return out
}

// checkSVG verifies the invariants every chart must satisfy and returns
// the parsed root: well-formed XML with a single <svg> root carrying the
// expected accessibility and sizing attributes, no script or style, no
// event handler attributes, and only safe links.
func checkSVG(t testing.TB, h template.HTML) *node {
	t.Helper()
	if strings.Contains(strings.ToLower(string(h)), "<script") {
		t.Fatalf("output contains <script:\n%s", h)
	}
	root := mustParse(t, h)
	if root.name != "svg" {
		t.Fatalf("root element is <%s>, want <svg>", root.name)
	}
	if got := root.attrs["xmlns"]; got != "http://www.w3.org/2000/svg" {
		t.Errorf("xmlns = %q", got)
	}
	for _, a := range []string{"viewBox", "preserveAspectRatio", "aria-label", "class"} {
		if root.attrs[a] == "" {
			t.Errorf("root has no %s attribute", a)
		}
	}
	if root.attrs["role"] != "img" {
		t.Errorf("role = %q, want img", root.attrs["role"])
	}
	if len(root.kids) == 0 || root.kids[0].name != "title" {
		t.Errorf("first child of <svg> is not <title>")
	} else if root.kids[0].text != root.attrs["aria-label"] {
		t.Errorf("<title> %q differs from aria-label %q", root.kids[0].text, root.attrs["aria-label"])
	}
	root.walk(func(n *node) {
		switch n.name {
		case "script", "style", "foreignObject", "iframe", "object", "embed":
			t.Errorf("forbidden element <%s>", n.name)
		}
		for k, v := range n.attrs {
			lk := strings.ToLower(k)
			if lk == "style" || strings.HasPrefix(lk, "on") {
				t.Errorf("forbidden attribute %s=%q on <%s>", k, v, n.name)
			}
			if lk == "href" {
				if !hrefOK(v) {
					t.Errorf("unsafe href %q", v)
				}
				if n.name != "a" {
					t.Errorf("href on <%s>", n.name)
				}
			}
		}
	})
	return root
}

// hrefOK is an independent check of what safeHref must guarantee.
func hrefOK(h string) bool {
	if strings.ContainsAny(h, " \t\n\r\\\x00") {
		return false
	}
	u, err := url.Parse(h)
	if err != nil {
		return false
	}
	s := strings.ToLower(u.Scheme)
	return s == "" || s == "http" || s == "https"
}

// pairs counts the coordinate pairs of a polyline.
func pairs(n *node) int { return len(strings.Fields(n.attrs["points"])) }
