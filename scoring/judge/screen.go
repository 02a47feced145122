package judge

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The injection screen: a think that addresses the judge (asks for a
// score, declares gates passed, tells it to ignore its instructions,
// forges a verdict or a fence) is not reasoning about the shop, and a
// model that reads it may obey it. A trajectory with such a think earns
// the lowest rung from both judges, with a FindingInjection naming the
// steps, so an injection can never raise a score: the evidence bound
// keeps the llm judge at or below the grounding verdict, and the screen
// takes even that away. The words are matched after folding what a
// model would read as ASCII (fullwidth forms, Cyrillic and Greek
// look-alikes, invisible characters), so a disguise does not pass.

// Kinds of trigger words (entry.trig).
const (
	trigNone   = iota
	trigJudge  // names the judge or its schema: an injection on its own
	trigIgnore // "ignore", "disregard": with what to ignore
	trigScore  // "score", "rate", "grade": with a judge's number (0 to 1, or n/m) after it
	trigGate   // "gate", "gates": with "pass" after it
	trigInstr  // "instructions", "prompt": with "previous", "new", "system" before it
	trigMode   // "developer": with "mode" after it
)

// triggerKind classifies a lowercase token.
func triggerKind(w string) uint8 {
	switch w {
	case "judge", "judges", "grader", "graders", "grading", "grades", "evaluator", "rubric", "verdict",
		"jailbreak", "untrusted", "referred_to_results", "cited_datum", "nonce":
		return trigJudge
	case "ignore", "disregard", "override":
		return trigIgnore
	case "score", "scores", "scored", "rate", "grade", "graded":
		return trigScore
	case "gate", "gates":
		return trigGate
	case "instructions", "instruction", "prompt":
		return trigInstr
	case "developer":
		return trigMode
	}
	return trigNone
}

// addressesJudge reports whether the tokens of a think (lowercase, in
// order) address the judge.
func addressesJudge(ws []string) bool {
	near := func(from, n int, ok func(string) bool) bool {
		for k := from; k < len(ws) && k < from+n; k++ {
			if ok(ws[k]) {
				return true
			}
		}
		return false
	}
	// A judge's number: a score in [0, 1] or a fraction ("100/100");
	// not a product's grade ("grade 304") or rating ("score 4.8").
	judgeNumber := func(w string) bool {
		if w == "" || !isDigit(w[0]) {
			return false
		}
		if strings.Contains(w, "/") {
			return true
		}
		f, err := strconv.ParseFloat(w, 64)
		return err == nil && f <= 1
	}
	for i, w := range ws {
		switch triggerKind(w) {
		case trigJudge:
			return true
		case trigIgnore:
			if near(i+1, 4, func(x string) bool {
				switch x {
				case "previous", "prior", "above", "all", "earlier", "instructions", "rubric", "rules", "system":
					return true
				}
				return false
			}) {
				return true
			}
		case trigScore:
			if near(i+1, 3, judgeNumber) {
				return true
			}
		case trigGate:
			if near(i+1, 3, func(x string) bool { return x == "pass" || x == "passed" || x == "passes" || x == "true" }) {
				return true
			}
		case trigInstr:
			if i > 0 && near(max(i-3, 0), i-max(i-3, 0), func(x string) bool {
				switch x {
				case "previous", "prior", "new", "system", "above", "all", "your", "these", "original":
					return true
				}
				return false
			}) {
				return true
			}
		case trigMode:
			if i+1 < len(ws) && ws[i+1] == "mode" {
				return true
			}
		}
	}
	return false
}

// screenThink reports whether a think addresses the judge, reading it
// as a model would: folded to ASCII first when it has other characters.
func screenThink(think string, buf []string) ([]string, bool) {
	if isASCII(think) {
		return buf, false // the caller screens ASCII thinks on its own tokens
	}
	buf = buf[:0]
	tokenize(foldConfusables(think), func(w string, _ int) { buf = append(buf, w) })
	return buf, addressesJudge(buf)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldConfusables maps what reads as ASCII to ASCII: fullwidth forms,
// Cyrillic and Greek letters shaped like Latin ones, and drops invisible
// characters inside words (zero-width, soft hyphen); a direction control
// separates, as the text it reorders reads apart.
func foldConfusables(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII
			b.WriteRune(r - 0xFEE0)
		case r == 0x3000: // ideographic space
			b.WriteByte(' ')
		case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r == 0xAD:
			// invisible inside a word: dropped, so the letters around it join
		case r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			b.WriteByte(' ') // a direction control starts a new run of text
		default:
			if a, ok := lookalike(r); ok {
				b.WriteByte(a)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// lookalike is the ASCII letter a Cyrillic or Greek letter is drawn like.
func lookalike(r rune) (byte, bool) {
	switch r {
	case 'а', 'α':
		return 'a', true
	case 'с', 'ϲ':
		return 'c', true
	case 'е', 'ε':
		return 'e', true
	case 'һ':
		return 'h', true
	case 'і', 'ι':
		return 'i', true
	case 'ј':
		return 'j', true
	case 'к', 'κ':
		return 'k', true
	case 'о', 'ο':
		return 'o', true
	case 'р', 'ρ':
		return 'p', true
	case 'ѕ':
		return 's', true
	case 'т', 'τ':
		return 't', true
	case 'у', 'υ':
		return 'y', true
	case 'х', 'χ':
		return 'x', true
	case 'ԁ':
		return 'd', true
	case 'ɡ':
		return 'g', true
	case 'ν':
		return 'v', true
	case 'А', 'Α':
		return 'A', true
	case 'В', 'Β':
		return 'B', true
	case 'С':
		return 'C', true
	case 'Е', 'Ε':
		return 'E', true
	case 'Н', 'Η':
		return 'H', true
	case 'І', 'Ι':
		return 'I', true
	case 'Ј':
		return 'J', true
	case 'К', 'Κ':
		return 'K', true
	case 'М', 'Μ':
		return 'M', true
	case 'О', 'Ο':
		return 'O', true
	case 'Р', 'Ρ':
		return 'P', true
	case 'Ѕ':
		return 'S', true
	case 'Т', 'Τ':
		return 'T', true
	case 'Х', 'Χ':
		return 'X', true
	case 'Υ':
		return 'Y', true
	case 'Ζ':
		return 'Z', true
	}
	return 0, false
}
