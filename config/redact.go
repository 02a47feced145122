package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Redacted returns a copy that is safe to print or log: every non-empty
// Secret is replaced by "[redacted]" (so even Reveal on the copy leaks
// nothing), and the password in any URL's userinfo is replaced by "xxxxx"
// (wss://user:pass@host -> wss://user:xxxxx@host).
func (c Config) Redacted() Config {
	v := reflect.ValueOf(&c).Elem()
	for _, l := range configSchema().leaves {
		f := v.FieldByIndex(l.index)
		switch {
		case l.typ == secretType:
			if f.String() != "" {
				f.SetString(redactedText)
			}
		case l.typ.Kind() == reflect.String:
			f.SetString(redactURL(f.String()))
		}
	}
	return c
}

// redactURL hides the password of a scheme://user:password@host URL. It
// works on the text rather than through net/url so that a URL net/url
// rejects, or would re-encode, still comes out redacted and otherwise
// unchanged. Strings that are not such URLs are returned as they are.
func redactURL(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return s
	}
	colon := strings.Index(rest[:at], ":")
	if colon < 0 {
		return s
	}
	return s[:i+3] + rest[:colon+1] + "xxxxx" + rest[at:]
}

// MarshalYAMLText renders the configuration as YAML with secrets redacted,
// in the same layout a config file uses. Environment-only keys
// (keystore.password) appear only when set, as "[redacted]", so the output
// of an unset password loads back as a config file unchanged.
func (c Config) MarshalYAMLText() ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(c.Redacted()); err != nil {
		return nil, fmt.Errorf("config: encode YAML: %w", err)
	}
	s := configSchema()
	for _, l := range s.leaves {
		if l.envOnly() && reflect.ValueOf(c).FieldByIndex(l.index).IsZero() {
			removeKey(&root, strings.Split(l.path, "."))
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("config: encode YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: encode YAML: %w", err)
	}
	return buf.Bytes(), nil
}

// removeKey deletes the entry at path from a mapping node tree.
func removeKey(n *yaml.Node, path []string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != path[0] {
			continue
		}
		if len(path) == 1 {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
		removeKey(n.Content[i+1], path[1:])
		return
	}
}

// plainConfig has Config's fields without its methods, so String and
// MarshalJSON can format a redacted copy without recursing.
type plainConfig Config

// String formats the redacted configuration, so fmt.Print(cfg) and logging
// a Config with %v never show a secret.
func (c Config) String() string {
	return fmt.Sprintf("%+v", plainConfig(c.Redacted()))
}

// GoString keeps %#v redacted too.
func (c Config) GoString() string {
	return strings.Replace(fmt.Sprintf("%#v", plainConfig(c.Redacted())), "config.plainConfig", "config.Config", 1)
}

// MarshalJSON encodes the redacted configuration with the same key names
// as YAML (nested objects, "chain": {"url": ...}), durations as strings.
func (c Config) MarshalJSON() ([]byte, error) {
	r := c.Redacted()
	v := reflect.ValueOf(r)
	out := map[string]any{}
	for _, l := range configSchema().leaves {
		m := out
		parts := strings.Split(l.path, ".")
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		f := v.FieldByIndex(l.index)
		var val any = f.Interface()
		if l.typ == durationType || l.typ == secretType {
			val = formatValue(f)
		}
		m[parts[len(parts)-1]] = val
	}
	return json.Marshal(out)
}
