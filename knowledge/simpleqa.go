package knowledge

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// RecordError is one web_simpleqa line the importer skipped.
type RecordError struct {
	File string
	Line int
	Err  error
}

func (e RecordError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e RecordError) Unwrap() error { return e.Err }

// ImportReport counts what ImportSimpleQA read and kept.
type ImportReport struct {
	Records    int
	Imported   int
	Duplicates int // a question already imported
	Errors     []RecordError
}

// maxRecordBytes bounds one line; web_simpleqa records embed the whole
// target product.
const maxRecordBytes = 16 << 20

// reWhWord finds the interrogative words a fact question uses; shopping
// requests phrased as questions ("Can you find a mug?") have none.
var reWhWord = regexp.MustCompile(`(?i)\b(what|which|who|whom|whose|where|when|how)\b`)

// SplitQuestion splits a knowledge query into the question that asks for
// the fact and the request after it: the question ends at the first
// question mark whose sentence has an interrogative word (a request may
// itself end in one: "Can you get me a mug by that company?"), and the
// request must not be empty. ok is false for any other query.
func SplitQuestion(query string) (question, request string, ok bool) {
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			continue
		}
		start := strings.LastIndexAny(query[:i], ".!?\n") + 1
		if !reWhWord.MatchString(query[start:i]) {
			continue
		}
		if request = strings.TrimSpace(query[i+1:]); request == "" {
			return "", "", false
		}
		return strings.TrimSpace(query[:i+1]), request, true
	}
	return "", "", false
}

// Question is the part of a web_simpleqa query that asks for the fact
// (SplitQuestion's question), or the query up to its last question mark,
// or the whole query if it has none.
func Question(query string) string {
	query = strings.TrimSpace(query)
	if q, _, ok := SplitQuestion(query); ok {
		return q
	}
	if i := strings.LastIndex(query, "?"); i >= 0 {
		return strings.TrimSpace(query[:i+1])
	}
	return query
}

// SimpleQAPage is the page answering one web_simpleqa question: its title
// leads with the answer, and its snippet states question and answer.
func SimpleQAPage(question, answer string) Page {
	sum := sha256.Sum256([]byte(question))
	return Page{
		URL:     baseURL + "qa/" + hex.EncodeToString(sum[:8]),
		Title:   answer + " - " + clipWords(question, 90),
		Snippet: fmt.Sprintf("%s The answer is %s.", question, answer),
	}
}

// clipWords shortens s to at most n bytes at a word boundary.
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	return s[:cut] + "…"
}

// ImportSimpleQA reads ShoppingBench's web_simpleqa task lines
// ({"query", "Knowledge_Attribute", "reward"}) and returns one page per
// distinct question, stating its answer. A malformed line is reported
// with its number and skipped; only a read failure is an error.
func ImportSimpleQA(r io.Reader, name string) ([]Page, ImportReport, error) {
	var rep ImportReport
	var pages []Page
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRecordBytes)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		rep.Records++
		p, err := decodeSimpleQA(raw)
		if err != nil {
			rep.Errors = append(rep.Errors, RecordError{File: name, Line: line, Err: err})
			continue
		}
		if seen[p.URL] {
			rep.Duplicates++
			continue
		}
		seen[p.URL] = true
		pages = append(pages, p)
	}
	rep.Imported = len(pages)
	if err := sc.Err(); err != nil {
		return pages, rep, fmt.Errorf("%s: after line %d: %w", name, line, err)
	}
	return pages, rep, nil
}

// LoadSimpleQA imports a web_simpleqa file.
func LoadSimpleQA(path string) ([]Page, ImportReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ImportReport{}, err
	}
	defer f.Close()
	return ImportSimpleQA(f, path)
}

func decodeSimpleQA(raw []byte) (Page, error) {
	var rec struct {
		Query  *string         `json:"query"`
		Answer json.RawMessage `json:"Knowledge_Attribute"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return Page{}, fmt.Errorf("malformed JSON: %w", err)
	}
	if rec.Query == nil || strings.TrimSpace(*rec.Query) == "" {
		return Page{}, errors.New(`missing "query"`)
	}
	answer, err := AttributeText(rec.Answer)
	if err != nil {
		return Page{}, err
	}
	return SimpleQAPage(Question(*rec.Query), answer), nil
}

// AttributeText reads a Knowledge_Attribute value: a non-empty string, or
// a number taken by its literal text (ShoppingBench's evaluator applies
// str() to it).
func AttributeText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", errors.New(`missing "Knowledge_Attribute"`)
	case raw[0] == '"':
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("field Knowledge_Attribute: %w", err)
		}
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", fmt.Errorf("field Knowledge_Attribute: %w", err)
		}
		s = n.String()
	default:
		return "", errors.New("field Knowledge_Attribute must be a string or a number")
	}
	if s = strings.TrimSpace(s); s == "" {
		return "", errors.New("field Knowledge_Attribute is empty")
	}
	return s, nil
}
