package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Import formats.
const (
	FormatShoppingBench = "shoppingbench"
	FormatORO           = "oro"
)

// RecordError is one record an importer skipped. Line is set for JSON Lines
// input (1-based), Index for a JSON array (0-based).
type RecordError struct {
	File  string
	Line  int
	Index int
	Err   error
}

func (e RecordError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s[%d]: %v", e.File, e.Index, e.Err)
}

func (e RecordError) Unwrap() error { return e.Err }

// ImportReport counts what an import read and kept.
type ImportReport struct {
	Records    int
	Imported   int
	Duplicates int // same content id as an earlier record
	Errors     []RecordError
}

// maxRecordBytes bounds one JSON line; ShoppingBench's knowledge tasks
// embed whole products, so lines can be long.
const maxRecordBytes = 16 << 20

// ImportShoppingBench reads ShoppingBench task JSON Lines (data/product.jsonl,
// shop.jsonl, voucher.jsonl, web_simpleqa.jsonl; any file whose lines have
// query and reward). The type follows from the record: a
// Knowledge_Attribute makes a knowledge task, a voucher a voucher task, a
// reward list a shop task, a reward object a product task. Malformed lines
// are reported with name and line number and the rest are kept; only a read
// failure is an error.
func ImportShoppingBench(r io.Reader, name string) ([]Problem, ImportReport, error) {
	c := newCollector()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRecordBytes)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		p, err := decodeShoppingBench(raw)
		c.take(p, err, fmt.Sprintf("%s:%d", name, line), RecordError{File: name, Line: line})
	}
	if err := sc.Err(); err != nil {
		return c.out, c.report(), fmt.Errorf("%s: after line %d: %w", name, line, err)
	}
	return c.out, c.report(), nil
}

// collector is what both importers do with a decoded record: stamp its
// source, finish it (id, targets), keep the first of duplicate ids and
// report the rest.
type collector struct {
	rep  ImportReport
	out  []Problem
	seen map[string]bool
}

func newCollector() *collector { return &collector{seen: map[string]bool{}} }

func (c *collector) take(p Problem, err error, source string, where RecordError) {
	c.rep.Records++
	if err == nil {
		p.Source = source
		err = p.Finish()
	}
	if err != nil {
		where.Err = err
		c.rep.Errors = append(c.rep.Errors, where)
		return
	}
	if c.seen[p.ID] {
		c.rep.Duplicates++
		return
	}
	c.seen[p.ID] = true
	c.out = append(c.out, p)
}

func (c *collector) report() ImportReport {
	c.rep.Imported = len(c.out)
	return c.rep
}

// shoppingBenchFields are the fields a ShoppingBench record defines.
var shoppingBenchFields = []string{"query", "reward", "voucher"}

func decodeShoppingBench(raw []byte) (Problem, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Problem{}, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, ok := m[knowledgeAttributeKey]; ok {
		return decodeKnowledge(m)
	}
	var p Problem
	if err := decodeCommon(m, &p); err != nil {
		return Problem{}, err
	}
	switch {
	case p.Voucher != nil:
		p.Type = TypeVoucher
	case p.Reward.List:
		p.Type = TypeShop
	default:
		p.Type = TypeProduct
	}
	if len(m) > 0 {
		p.Extra = m
	}
	return p, nil
}

// decodeCommon moves query, reward and voucher from m into p.
func decodeCommon(m map[string]json.RawMessage, p *Problem) error {
	for _, k := range []string{"query", "reward"} {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("missing %q", k)
		}
	}
	if err := json.Unmarshal(m["query"], &p.Query); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := json.Unmarshal(m["reward"], &p.Reward); err != nil {
		return err
	}
	if raw, ok := m["voucher"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		p.Voucher = new(Voucher)
		if err := json.Unmarshal(raw, p.Voucher); err != nil {
			return fmt.Errorf("voucher: %w", err)
		}
	}
	for _, k := range shoppingBenchFields {
		delete(m, k)
	}
	return nil
}

// oroIgnored are ORO fields dropped on import: the title embeddings belong
// to ORO's embedding judge and are recomputed, not required.
var oroIgnored = []string{"reward_title_embeddings"}

// ImportORO reads ORO's problem_suite_v3.json: a JSON array of
// {query, reward, voucher?, category, difficulty, title}. A malformed
// element is reported with its index and the others are kept; input that
// is not a JSON array is an error.
func ImportORO(r io.Reader, name string) ([]Problem, ImportReport, error) {
	var rep ImportReport
	var elems []json.RawMessage
	if err := json.NewDecoder(r).Decode(&elems); err != nil {
		return nil, rep, fmt.Errorf("%s: not a JSON array of problems: %w", name, err)
	}
	c := newCollector()
	for i, raw := range elems {
		p, err := decodeORO(raw)
		c.take(p, err, fmt.Sprintf("%s[%d]", name, i), RecordError{File: name, Index: i})
	}
	return c.out, c.report(), nil
}

func decodeORO(raw []byte) (Problem, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Problem{}, fmt.Errorf("malformed JSON: %w", err)
	}
	var p Problem
	if err := decodeCommon(m, &p); err != nil {
		return Problem{}, err
	}
	var category, difficulty string
	for k, dst := range map[string]*string{"category": &category, "difficulty": &difficulty, "title": &p.Title, "knowledge_attribute": &p.Knowledge} {
		if raw, ok := m[k]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return Problem{}, fmt.Errorf("%s: %w", k, err)
			}
			delete(m, k)
		}
	}
	t, err := ParseType(category)
	if err != nil {
		return Problem{}, fmt.Errorf("category: %w", err)
	}
	p.Type = t
	if p.Difficulty, err = ParseDifficulty(difficulty); err != nil {
		return Problem{}, err
	}
	for _, k := range oroIgnored {
		delete(m, k)
	}
	if len(m) > 0 {
		p.Extra = m
	}
	return p, nil
}

// ImportFile imports path in format (FormatShoppingBench or FormatORO).
func ImportFile(path, format string) ([]Problem, ImportReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ImportReport{}, err
	}
	defer f.Close()
	switch strings.ToLower(format) {
	case FormatShoppingBench:
		return ImportShoppingBench(f, path)
	case FormatORO:
		return ImportORO(f, path)
	}
	return nil, ImportReport{}, fmt.Errorf("unknown import format %q: want %s or %s", format, FormatShoppingBench, FormatORO)
}

// ShoppingBenchRecord is the problem as a ShoppingBench task line:
// query, reward, voucher (if any) and the fields kept in Extra; knowledge
// problems as web_simpleqa lines.
func ShoppingBenchRecord(p *Problem) ([]byte, error) {
	if p.Type == TypeKnowledge {
		return knowledgeRecord(p)
	}
	b, err := json.Marshal(struct {
		Query   string   `json:"query"`
		Reward  Reward   `json:"reward"`
		Voucher *Voucher `json:"voucher,omitempty"`
	}{p.Query, p.Reward, p.Voucher})
	if err != nil {
		return nil, err
	}
	return appendExtra(b, p.Extra)
}

// WriteShoppingBench writes problems as ShoppingBench JSON Lines.
func WriteShoppingBench(w io.Writer, problems []Problem) error {
	bw := bufio.NewWriter(w)
	for i := range problems {
		b, err := ShoppingBenchRecord(&problems[i])
		if err != nil {
			return fmt.Errorf("problem %s: %w", problems[i].ID, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ORORecord is the problem as an element of ORO's suite (without title
// embeddings). ORO has no knowledge problems; theirs carry
// knowledge_attribute, which ImportORO reads back.
func ORORecord(p *Problem) ([]byte, error) {
	if p.Type == "" {
		return nil, errors.New("problem without type")
	}
	b, err := json.Marshal(struct {
		Query      string   `json:"query"`
		Reward     Reward   `json:"reward"`
		Voucher    *Voucher `json:"voucher,omitempty"`
		Knowledge  string   `json:"knowledge_attribute,omitempty"`
		Category   string   `json:"category"`
		Difficulty string   `json:"difficulty"`
		Title      string   `json:"title"`
	}{p.Query, p.Reward, p.Voucher, p.Knowledge, strings.ToUpper(string(p.Type[:1])) + string(p.Type[1:]), string(p.Difficulty), p.Title})
	if err != nil {
		return nil, err
	}
	return appendExtra(b, p.Extra)
}

// WriteORO writes problems as ORO's JSON array.
func WriteORO(w io.Writer, problems []Problem) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("[\n")
	for i := range problems {
		b, err := ORORecord(&problems[i])
		if err != nil {
			return fmt.Errorf("problem %s: %w", problems[i].ID, err)
		}
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.Write(b)
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}

// WriteJSONL writes problems in arena's own format, one per line.
func WriteJSONL(w io.Writer, problems []Problem) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range problems {
		if err := enc.Encode(&problems[i]); err != nil {
			return fmt.Errorf("problem %s: %w", problems[i].ID, err)
		}
	}
	return bw.Flush()
}

// ReadJSONL reads arena's own problem lines (as WriteJSONL writes them).
// Bad lines are reported with name and line and skipped.
func ReadJSONL(r io.Reader, name string) ([]Problem, ImportReport, error) {
	var rep ImportReport
	var out []Problem
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
		var p Problem
		err := json.Unmarshal(raw, &p)
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			rep.Errors = append(rep.Errors, RecordError{File: name, Line: line, Err: err})
			continue
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return out, rep, fmt.Errorf("%s: after line %d: %w", name, line, err)
	}
	rep.Imported = len(out)
	return out, rep, nil
}
