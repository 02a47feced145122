package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"arena/validator/records"
)

// FuzzEpisodeEscaping: whatever a miner puts in its think, a product
// title or an error message (markup, script, attribute breakouts, very
// long lines, invalid UTF-8), the trajectory page shows it as text: the
// parsed page has no script element, no event-handler or style
// attribute, no link outside the console, and the think's text is in it.
func FuzzEpisodeEscaping(f *testing.F) {
	for _, seed := range []string{
		"<script>alert(1)</script>",
		`"><img src=x onerror=alert(1)>`,
		"</div></section><script src=//evil.example/x.js></script>",
		"<style>body{display:none}</style><b>bold</b>&amp;&lt;",
		"javascript:alert(1)",
		"{{.}} {{template \"head\"}}",
		strings.Repeat("A", 20000),
		"\xff\xfe invalid utf-8 \xc3",
		"<svg onload=alert(1)><a href=\"javascript:x\">x</a></svg>",
	} {
		f.Add(seed)
	}
	fa := buildArena(f, f.TempDir(), arenaOptions{Races: 1, Racers: 2, Problems: 2, Pool: 2, Miners: 2})
	c := newConsole(f, fa, Options{PublicRate: 1e9, PublicBurst: 1 << 30})
	rec, p := fa.v.rec, fa.public[0]
	n := 0
	f.Fuzz(func(t *testing.T, think string) {
		n++
		id := fmt.Sprintf("fuzz-%d", n)
		w := &bulkWriter{st: fa.v.st}
		w.episode(t, rec, records.Episode{Kind: records.Qualifying, Hotkey: "5Fuzz", ProblemType: p.Type, Cluster: p.Cluster, Block: 5,
			Trajectory: fixtureTrajectory(id, p, 1, think)}, fixtureVerdict(id, p.Type, 0.5))
		w.flush(t)
		for _, h := range []http.Handler{c.Operator(), c.Public()} {
			code, body, _ := get(t, h, "/episodes/"+id)
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			checkInert(t, body)
			text := pageText(t, body)
			// What the page must show is the stored think: JSON turns
			// invalid UTF-8 into U+FFFD, and the page trims nothing.
			// The HTML parser reads CR LF and CR as LF and NUL as U+FFFD.
			want := strings.NewReplacer("\r\n", "\n", "\r", "\n", "\x00", "\uFFFD").Replace(strings.ToValidUTF8(think, "\uFFFD"))
			if strings.TrimSpace(want) != "" && !strings.Contains(text, strings.TrimSpace(want)) {
				t.Fatalf("the page's text lacks the think %.80q", want)
			}
		}
	})
}

// checkInert fails if the page could run anything or load anything from
// elsewhere.
func checkInert(t *testing.T, body string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		tok := z.Token()
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		switch tok.Data {
		case "script", "style", "iframe", "object", "embed", "base", "form":
			t.Fatalf("the page has a <%s> element", tok.Data)
		}
		for _, a := range tok.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "on") || k == "style" || k == "srcdoc" {
				t.Fatalf("<%s> has attribute %s=%q", tok.Data, a.Key, a.Val)
			}
			if (k == "href" || k == "src") && !strings.HasPrefix(a.Val, "/") {
				t.Fatalf("<%s %s=%q> leaves the console", tok.Data, a.Key, a.Val)
			}
		}
	}
}

// pageText is the page's text content, as a reader sees it.
func pageText(t *testing.T, body string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}
