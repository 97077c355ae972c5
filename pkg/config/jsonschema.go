package config

import (
	"encoding/json"
	"strconv"
	"strings"
)

// SchemaID is the $id of the JSON Schema of queuebox.yml.
const SchemaID = "https://github.com/alternayte/queuebox/docs/queuebox.schema.json"

// placeholder accepts a text that holds a ${NAME} placeholder where
// another type is expected: the loader expands it before converting.
var placeholder = map[string]any{"type": "string", "pattern": `\$\{[^}]+\}`}

// JSONSchema renders the JSON Schema (draft 2020-12) of queuebox.yml from
// Keys: every key in its documented spelling, with its type, default,
// bounds and values. It is stricter than the loader in one way: an
// unknown key, or a known key in another letter case, is refused, where
// the loader only warns or accepts it.
func JSONSchema() []byte {
	root := ConfigSchema()
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "queuebox.yml"
	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err) // maps of strings, numbers and slices always marshal
	}
	return append(out, '\n')
}

// ConfigSchema returns the schema of queuebox.yml as a map without $schema
// and $id, for embedding into another schema (the Helm chart's values).
// Its keywords mean the same in draft-07 and draft 2020-12.
func ConfigSchema() map[string]any {
	root := object()
	for _, k := range Keys() {
		insert(root, k.segs, keySchema(k))
	}
	return root
}

func object() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{}}
}

// insert places the schema of a leaf at path, creating the objects, maps
// and lists on the way.
func insert(node map[string]any, path []string, leaf map[string]any) {
	seg := path[0]
	if len(path) == 1 {
		node["properties"].(map[string]any)[seg] = leaf
		return
	}
	var child map[string]any
	switch next := path[1]; {
	case next == nameSegment || next == indexSegment:
		child = container(node, seg, next)
		path = path[1:]
	default:
		child = property(node, seg)
	}
	insert(child, path[1:], leaf)
}

// property returns the object schema of key seg of node, creating it.
func property(node map[string]any, seg string) map[string]any {
	props := node["properties"].(map[string]any)
	if c, ok := props[seg].(map[string]any); ok {
		return c
	}
	c := object()
	props[seg] = c
	return c
}

// container returns the entry schema of the map (<name>) or list (<n>)
// at key seg of node, creating both.
func container(node map[string]any, seg, kind string) map[string]any {
	props := node["properties"].(map[string]any)
	c, ok := props[seg].(map[string]any)
	if !ok {
		entry := object()
		if kind == nameSegment {
			c = map[string]any{"type": []any{"object", "null"}, "additionalProperties": entry}
		} else {
			c = map[string]any{"type": []any{"array", "null"}, "items": entry}
		}
		props[seg] = c
	}
	if kind == nameSegment {
		return c["additionalProperties"].(map[string]any)
	}
	return c["items"].(map[string]any)
}

// keySchema is the schema of one leaf key.
func keySchema(k Key) map[string]any {
	desc := "Variable " + k.Var + "."
	if len(k.Kinds) > 0 {
		desc += " Kinds: " + strings.Join(k.Kinds, ", ") + "."
	}
	if r := k.RuleText(); r != "" {
		desc += " " + upperFirst(r) + "."
	}
	if k.DefaultText != "" {
		desc += " Default: " + k.DefaultText + "."
	}
	s := map[string]any{"description": desc}
	var typed map[string]any
	switch k.Type {
	case "integer":
		typed = map[string]any{"type": "integer"}
		if k.Min != nil {
			typed["minimum"] = *k.Min
		}
		if k.Max != nil {
			typed["maximum"] = *k.Max
		}
		if n, err := strconv.ParseInt(k.Default, 10, 64); err == nil {
			s["default"] = n
		}
	case "boolean":
		typed = map[string]any{"type": "boolean"}
		if b, err := strconv.ParseBool(k.Default); err == nil {
			s["default"] = b
		}
	case "duration":
		typed = map[string]any{"type": "string", "pattern": `^[0-9]+[smhd]$`}
	case "list of strings":
		return merge(s, map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "string"}})
	case "list of secrets":
		return merge(s, map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "string"}})
	case "map of strings":
		return merge(s, map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "string"}})
	case "secret":
		// An explicit null empties a secret.
		return merge(s, map[string]any{"type": []any{"string", "null"}})
	default:
		typed = map[string]any{"type": "string"}
		if len(k.Enum) > 0 {
			typed["enum"] = k.Enum
		}
	}
	if k.Type != "integer" && k.Type != "boolean" && k.Default != "" {
		s["default"] = k.Default
	}
	if typed["type"] == "string" && typed["enum"] == nil && typed["pattern"] == nil {
		return merge(s, typed)
	}
	s["anyOf"] = []any{typed, placeholder}
	return s
}

func merge(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
