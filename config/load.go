package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LoadOptions names the inputs of the layers above the defaults.
type LoadOptions struct {
	// Path is the YAML config file; "" means none.
	Path string
	// Environ holds "KEY=VALUE" pairs, as from os.Environ(). Only names
	// starting with ARENA_ are considered; any of those that names no key
	// is an error.
	Environ []string
	// Overrides maps key paths ("chain.url", "devnet.block_time") to
	// values, typically from command-line flags. They win over everything.
	Overrides map[string]string
}

// Load returns Default() overlaid with the file, the ARENA_* environment and
// the overrides, in that order. It reports every parse problem it finds
// (unknown keys, malformed values), joined, each on one line naming its
// source and key. Load does not call Validate; callers do.
func Load(opts LoadOptions) (*Config, error) {
	cfg := Default()
	if err := load(configSchema(), reflect.ValueOf(&cfg).Elem(), opts); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// load applies the layers to root, a settable struct value described by s.
// It is generic over the struct so the layering can be tested on its own.
func load(s *schema, root reflect.Value, opts LoadOptions) error {
	var errs []error
	if opts.Path != "" {
		errs = append(errs, applyFile(s, root, opts.Path)...)
	}
	errs = append(errs, applyEnv(s, root, opts.Environ)...)
	errs = append(errs, applyOverrides(s, root, opts.Overrides)...)
	return errors.Join(errs...)
}

// applyFile reads one YAML document and sets each leaf it names.
func applyFile(s *schema, root reflect.Value, path string) []error {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is already in our message
		}
		return []error{fmt.Errorf("config %s: %w", path, err)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file, or only comments
		}
		return []error{yamlSyntaxError(path, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return []error{yamlSyntaxError(path, err)}
	default:
		return []error{fmt.Errorf("config %s: line %d: a second YAML document starts here; put all settings in one document", path, extra.Line)}
	}
	f := &fileLayer{s: s, root: root, path: path}
	node := &doc
	if node.Kind == yaml.DocumentNode {
		if len(node.Content) == 0 {
			return nil
		}
		node = node.Content[0]
	}
	node = f.deref(node)
	switch {
	case node == nil || isNull(node):
		return nil
	case node.Kind != yaml.MappingNode:
		f.errorf(node.Line, "the file must be a mapping of settings (%s)", strings.Join(s.childKeys(""), ", "))
	default:
		f.mapping(node, "")
	}
	return f.errs
}

func yamlSyntaxError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	return fmt.Errorf("config %s: %s", path, msg)
}

// fileLayer walks a YAML node tree against the schema, collecting errors.
type fileLayer struct {
	s    *schema
	root reflect.Value
	path string
	errs []error
}

func (f *fileLayer) errorf(line int, format string, args ...any) {
	f.errs = append(f.errs, fmt.Errorf("config %s: line %d: %s", f.path, line, fmt.Sprintf(format, args...)))
}

// deref follows aliases (*anchor) to the node they name.
func (f *fileLayer) deref(n *yaml.Node) *yaml.Node {
	for range 64 {
		if n == nil || n.Kind != yaml.AliasNode {
			return n
		}
		n = n.Alias
	}
	return nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func (f *fileLayer) mapping(node *yaml.Node, section string) {
	seen := map[string]int{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := f.deref(node.Content[i]), f.deref(node.Content[i+1])
		if k == nil || k.Kind != yaml.ScalarNode {
			f.errorf(node.Content[i].Line, "keys must be plain names")
			continue
		}
		name := k.Value
		path := joinPath(section, name)
		if name == "<<" {
			f.errorf(k.Line, "merge keys (<<) are not supported; write the settings out")
			continue
		}
		if first, dup := seen[name]; dup {
			f.errorf(k.Line, "duplicate key %q (first set on line %d)", path, first)
			continue
		}
		seen[name] = k.Line
		if v == nil {
			f.errorf(k.Line, "%s: alias nests too deeply", path)
			continue
		}

		if f.s.sections[path] {
			switch {
			case isNull(v):
			case v.Kind != yaml.MappingNode:
				f.errorf(v.Line, "%s: expected a mapping of settings (%s), not %s",
					path, strings.Join(f.s.childKeys(path), ", "), nodeKind(v))
			default:
				f.mapping(v, path)
			}
			continue
		}
		l := f.s.byPath[path]
		if l == nil {
			f.errorf(k.Line, "unknown key %q%s", path, hint(suggest(name, f.s.childKeys(section)), section))
			continue
		}
		if l.envOnly() {
			f.errorf(k.Line, "%s may not be set in a config file; use %s", path, f.s.alternatives(l))
			continue
		}
		if isNull(v) {
			continue
		}
		if v.Kind != yaml.ScalarNode {
			f.errorf(v.Line, "%s: expected a single value, not %s", path, nodeKind(v))
			continue
		}
		if err := setString(f.root.FieldByIndex(l.index), v.Value); err != nil {
			f.errorf(v.Line, "%s %q: %v", path, v.Value, err)
		}
	}
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "this node"
}

// applyEnv sets every leaf named by an ARENA_* variable. As with os.Getenv,
// the first of duplicate entries wins.
func applyEnv(s *schema, root reflect.Value, environ []string) []error {
	var errs []error
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) || seen[name] {
			continue
		}
		seen[name] = true
		l := s.byEnv[name]
		if l == nil {
			errs = append(errs, fmt.Errorf("environment %s: unknown setting%s", name, hint(suggest(name, s.envNames()), "")))
			continue
		}
		if err := setString(root.FieldByIndex(l.index), value); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", name, value, err))
		}
	}
	return errs
}

// applyOverrides sets each key path in overrides, in sorted order so errors
// come out the same way every time.
func applyOverrides(s *schema, root reflect.Value, overrides map[string]string) []error {
	var errs []error
	for _, path := range slices.Sorted(maps.Keys(overrides)) {
		value := overrides[path]
		l := s.byPath[path]
		if l == nil {
			errs = append(errs, fmt.Errorf("flag %s: unknown setting%s", path, hint(suggest(path, s.paths()), "")))
			continue
		}
		if l.envOnly() {
			errs = append(errs, fmt.Errorf("flag %s: may not be set by a flag (flags show in process listings); use %s", path, s.alternatives(l)))
			continue
		}
		if err := setString(root.FieldByIndex(l.index), value); err != nil {
			errs = append(errs, fmt.Errorf("flag %s=%q: %v", path, value, err))
		}
	}
	return errs
}

// alternatives says how an env-only key can be supplied: through a sibling
// "<key>_file" setting when there is one, or its environment variable.
func (s *schema) alternatives(l *leaf) string {
	if _, ok := s.byPath[l.path+"_file"]; ok {
		return l.path + "_file or " + l.env
	}
	return l.env
}

func (s *schema) envNames() []string {
	out := make([]string, len(s.leaves))
	for i, l := range s.leaves {
		out[i] = l.env
	}
	return out
}

func (s *schema) paths() []string {
	out := make([]string, len(s.leaves))
	for i, l := range s.leaves {
		out[i] = l.path
	}
	return out
}

func joinPath(section, name string) string {
	if section == "" {
		return name
	}
	return section + "." + name
}

// hint formats a "did you mean" suffix; section qualifies a bare key name.
func hint(candidate, section string) string {
	if candidate == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", joinPath(section, candidate))
}
