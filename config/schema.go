package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// envPrefix starts every environment variable that config reads.
const envPrefix = "ARENA_"

// Key describes one leaf setting.
type Key struct {
	Path string // dotted key path as in YAML, e.g. "chain.url"
	Env  string // environment variable, e.g. "ARENA_CHAIN_URL"
	Type string // string, bool, int, uint16, uint64, float64, duration or secret
	Help string // one line of help, ending with the default when there is one
}

// Keys lists every leaf key of Config in declaration order. It is derived by
// reflection from the struct's yaml and help tags, and each key's default is
// taken from Default().
func Keys() []Key {
	s := configSchema()
	def := reflect.ValueOf(Default())
	keys := make([]Key, 0, len(s.leaves))
	for _, l := range s.leaves {
		help := l.help
		if d := formatValue(def.FieldByIndex(l.index)); d != "" {
			help += " (default " + d + ")"
		}
		keys = append(keys, Key{Path: l.path, Env: l.env, Type: l.typeName(), Help: help})
	}
	return keys
}

// leaf is one settable field of a config struct.
type leaf struct {
	path  string       // "chain.url"
	env   string       // "ARENA_CHAIN_URL"
	index []int        // field index path from the root struct
	typ   reflect.Type // field type
	help  string       // help tag
}

// envOnly reports whether the leaf may be set only from the environment.
// Every Secret is: files get committed and flags show in process listings.
func (l leaf) envOnly() bool { return l.typ == secretType }

func (l leaf) typeName() string {
	switch l.typ {
	case durationType:
		return "duration"
	case secretType:
		return "secret"
	}
	return l.typ.Kind().String()
}

// schema is the reflected key layout of a config struct.
type schema struct {
	root     reflect.Type
	leaves   []leaf
	byPath   map[string]*leaf
	byEnv    map[string]*leaf
	sections map[string]bool // paths of nested structs ("chain"); "" is the root
}

var (
	durationType = reflect.TypeFor[Duration]()
	secretType   = reflect.TypeFor[Secret]()
	byteSizeType = reflect.TypeFor[ByteSize]()

	configSchemaOnce sync.Once
	configSchemaVal  *schema
)

func configSchema() *schema {
	configSchemaOnce.Do(func() {
		s, err := newSchema(reflect.TypeFor[Config]())
		if err != nil {
			panic("config: " + err.Error()) // a programming error in the struct tags
		}
		configSchemaVal = s
	})
	return configSchemaVal
}

// newSchema walks a struct type. Nested structs other than Duration are
// sections; everything else must be a leaf of a supported kind with a yaml
// tag. Two keys that map to the same environment variable are an error.
func newSchema(t reflect.Type) (*schema, error) {
	s := &schema{
		root:     t,
		byPath:   map[string]*leaf{},
		byEnv:    map[string]*leaf{},
		sections: map[string]bool{"": true},
	}
	if err := s.walk(t, "", nil); err != nil {
		return nil, err
	}
	for i := range s.leaves {
		l := &s.leaves[i]
		if prev, dup := s.byEnv[l.env]; dup {
			return nil, fmt.Errorf("keys %s and %s both map to %s", prev.path, l.path, l.env)
		}
		s.byPath[l.path] = l
		s.byEnv[l.env] = l
	}
	return s, nil
}

func (s *schema) walk(t reflect.Type, prefix string, index []int) error {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			return fmt.Errorf("field %s.%s has no yaml key", t.Name(), f.Name)
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		idx := append(append([]int(nil), index...), i)
		if f.Type.Kind() == reflect.Struct && f.Type != durationType {
			s.sections[path] = true
			if err := s.walk(f.Type, path, idx); err != nil {
				return err
			}
			continue
		}
		if !settable(f.Type) {
			return fmt.Errorf("key %s: unsupported type %s", path, f.Type)
		}
		s.leaves = append(s.leaves, leaf{
			path:  path,
			env:   envPrefix + strings.ToUpper(strings.ReplaceAll(path, ".", "_")),
			index: idx,
			typ:   f.Type,
			help:  f.Tag.Get("help"),
		})
	}
	return nil
}

// childKeys lists the keys directly under a section, for error hints.
func (s *schema) childKeys(section string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		rest := p
		if section != "" {
			var ok bool
			rest, ok = strings.CutPrefix(p, section+".")
			if !ok {
				return
			}
		}
		name, _, _ := strings.Cut(rest, ".")
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, l := range s.leaves {
		add(l.path)
	}
	return out
}

func settable(t reflect.Type) bool {
	if t == durationType || t == secretType {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// setString parses text into the leaf field v. It is the one parser shared
// by the YAML, environment and flag layers. The error says what was
// expected, without the value; callers add the source, key and value.
func setString(v reflect.Value, text string) error {
	switch v.Type() {
	case durationType:
		d, err := parseDuration(text)
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(Duration{d}))
		return nil
	case secretType:
		v.SetString(text)
		return nil
	case byteSizeType:
		b, err := parseByteSize(text)
		if err != nil {
			return err
		}
		v.SetUint(uint64(b))
		return nil
	}
	switch k := v.Kind(); k {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return errors.New("not a boolean (use true or false)")
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, v.Type().Bits())
		if err != nil {
			return numError(err, "an integer", k)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(text, 10, v.Type().Bits())
		if err != nil {
			return numError(err, "a "+k.String(), k)
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, v.Type().Bits())
		if err != nil {
			return numError(err, "a number", k)
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("unsupported type %s", v.Type())
	}
	return nil
}

func numError(err error, what string, k reflect.Kind) error {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("out of range for %s", k)
	}
	return fmt.Errorf("not %s", what)
}

// formatValue is the inverse of setString, for showing defaults.
func formatValue(v reflect.Value) string {
	switch v.Type() {
	case durationType:
		return v.Interface().(Duration).String()
	case secretType:
		return v.Interface().(Secret).String()
	case byteSizeType:
		return formatByteSize(v.Interface().(ByteSize))
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())
	}
	return fmt.Sprint(v.Interface())
}

// suggest returns the candidate closest to name when it is close enough to
// be a likely typo, or "".
func suggest(name string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(1, len(name)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, counting an
// adjacent transposition ("ulr" for "url") as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
