package index

import (
	"unicode"
	"unicode/utf8"
)

// maxTermBytes bounds a single term. Longer runs of letters are usually
// URLs, hashes or glued-together junk; they are cut rather than dropped so a
// query made of the same junk still matches.
const maxTermBytes = 64

// stopword reports whether a lowercased term is one of Lucene's default English
// stop words. ShoppingBench's sandbox runs Lucene (pyserini), so queries such
// as "case for iphone" behave the same way here.
func stopword(t []byte) bool {
	switch len(t) {
	case 1:
		return t[0] == 'a'
	case 2:
		switch string(t) {
		case "an", "as", "at", "be", "by", "if", "in", "is", "it", "no", "of", "on", "or", "to":
			return true
		}
	case 3:
		switch string(t) {
		case "and", "are", "but", "for", "not", "the", "was":
			return true
		}
	case 4:
		switch string(t) {
		case "into", "such", "that", "then", "they", "this", "will", "with":
			return true
		}
	case 5:
		switch string(t) {
		case "their", "there", "these":
			return true
		}
	}
	return false
}

// foldPlural maps common English plurals to their singular so that "shoes"
// finds "shoe" and "batteries" finds "battery". It is deliberately weaker
// than a full stemmer: product vocabulary is full of brand names and model
// codes that aggressive stemming would mangle. Only pure ASCII-letter terms
// longer than three bytes are touched.
func foldPlural(t []byte) []byte {
	n := len(t)
	if n <= 3 || t[n-1] != 's' {
		return t
	}
	for _, c := range t {
		if c < 'a' || c > 'z' {
			return t
		}
	}
	switch {
	case n > 4 && hasSuffix(t, "ies") && !hasSuffix(t, "eies") && !hasSuffix(t, "aies"):
		t = append(t[:n-3], 'y')
		return t
	case hasSuffix(t, "sses"), hasSuffix(t, "xes"), hasSuffix(t, "ches"), hasSuffix(t, "shes"):
		return t[:n-2]
	case hasSuffix(t, "ss"), hasSuffix(t, "us"), hasSuffix(t, "is"), hasSuffix(t, "os"):
		return t
	}
	return t[:n-1]
}

func hasSuffix(t []byte, s string) bool {
	return len(t) >= len(s) && string(t[len(t)-len(s):]) == s
}

// tokenizer splits text into normalised terms. It reuses one buffer so that
// tokenising a document allocates nothing; the term handed to the callback is
// only valid during the call.
type tokenizer struct {
	buf []byte
}

// each calls fn for every term of text: maximal runs of letters, digits and
// combining marks, lowercased, stop words removed, plurals folded.
func (tk *tokenizer) each(text string, fn func(term []byte)) {
	tk.buf = tk.buf[:0]
	flush := func() {
		if len(tk.buf) == 0 {
			return
		}
		t := tk.buf
		if len(t) > maxTermBytes {
			t = trimToRune(t[:maxTermBytes])
		}
		if !stopword(t) {
			fn(foldPlural(t))
		}
		tk.buf = tk.buf[:0]
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				tk.buf = append(tk.buf, c)
			case c >= 'A' && c <= 'Z':
				tk.buf = append(tk.buf, c+('a'-'A'))
			default:
				flush()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			flush()
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			tk.buf = utf8.AppendRune(tk.buf, unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()
}

// trimToRune drops a trailing partial UTF-8 sequence left by a byte cut.
func trimToRune(b []byte) []byte {
	for len(b) > 0 {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size != 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// Terms returns the normalised terms of text in order, with repeats, exactly
// as the index sees them. Other packages use it to reason about what a query
// will match (for example, a problem generator checking that a target is
// findable).
func Terms(text string) []string {
	var tk tokenizer
	var out []string
	tk.each(text, func(t []byte) { out = append(out, string(t)) })
	return out
}
