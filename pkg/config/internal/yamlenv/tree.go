package yamlenv

import (
	"errors"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The loader merges its sources in an untyped tree before it decodes the
// result into the root type. A tree keeps the keys as the user wrote them,
// so the case-insensitive match happens once, in the decoder, against the
// schema.
//
// A node is one of *Map, *seqNode, *scalarNode or nil (absent).
type node any

// Map is a YAML mapping that keeps the order of its keys: the root of a
// tree. It is not safe for concurrent use.
type Map struct {
	keys []string
	vals map[string]node
}

// seqNode is a YAML sequence. fromEnv marks a list that the variables
// created, so a second variable adds to it instead of replacing it again.
type seqNode struct {
	items   []node
	fromEnv bool
}

// scalarNode is a YAML scalar or a variable value, always as text. null
// marks an explicit YAML null (`key:` or `key: ~`).
type scalarNode struct {
	text string
	null bool
}

// NewMap returns an empty mapping.
func NewMap() *Map { return &Map{vals: map[string]node{}} }

// find returns the first key that equals name in any letter case.
func (m *Map) find(name string) (string, bool) {
	if _, ok := m.vals[name]; ok {
		return name, true
	}
	for _, k := range m.keys {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	return "", false
}

// set stores val under key, appending the key when it is new.
func (m *Map) set(key string, val node) {
	if _, ok := m.vals[key]; !ok {
		m.keys = append(m.keys, key)
	}
	m.vals[key] = val
}

// ErrNotMapping is the error of ParseYAML for a document whose top level
// is not a mapping.
var ErrNotMapping = errors.New("the top level is not a mapping")

// ParseYAML turns a YAML document into a tree. An empty document gives an
// empty mapping; a document whose root is not a mapping is ErrNotMapping.
// The second result lists the keys written twice in one mapping.
func (s *Schema) ParseYAML(data []byte) (*Map, []error, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return NewMap(), nil, nil
		}
		root = root.Content[0]
	}
	if root.Kind == 0 {
		return NewMap(), nil, nil
	}
	b := &treeBuilder{schema: s}
	tree := b.build(root, Path{})
	m, ok := tree.(*Map)
	if !ok {
		if sc, isScalar := tree.(*scalarNode); isScalar && sc.null {
			return NewMap(), b.errs, nil
		}
		return nil, nil, ErrNotMapping
	}
	return m, b.errs, nil
}

// treeBuilder converts yaml.Node values and records duplicate keys.
type treeBuilder struct {
	schema *Schema
	errs   []error
}

func (b *treeBuilder) build(n *yaml.Node, path Path) node {
	switch n.Kind {
	case yaml.AliasNode:
		return b.build(n.Alias, path)
	case yaml.MappingNode:
		return b.buildMap(n, path)
	case yaml.SequenceNode:
		s := &seqNode{}
		for i, item := range n.Content {
			s.items = append(s.items, b.build(item, path.Index(i)))
		}
		return s
	case yaml.ScalarNode:
		return &scalarNode{text: n.Value, null: n.Tag == "!!null"}
	default:
		return nil
	}
}

// buildMap converts a mapping. A YAML merge key (<<) copies the keys of the
// referenced mappings that the mapping does not set itself.
func (b *treeBuilder) buildMap(n *yaml.Node, path Path) *Map {
	m := NewMap()
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if _, dup := m.vals[k.Value]; dup {
			b.errs = append(b.errs, b.schema.Error(path.Key(k.Value), "the key is written twice"))
		}
		m.set(k.Value, b.build(v, path.Key(k.Value)))
	}
	for _, src := range merges {
		b.mergeInto(m, src, path)
	}
	return m
}

func (b *treeBuilder) mergeInto(m *Map, src *yaml.Node, path Path) {
	if src.Kind == yaml.AliasNode {
		src = src.Alias
	}
	if src.Kind == yaml.SequenceNode {
		for _, item := range src.Content {
			b.mergeInto(m, item, path)
		}
		return
	}
	other, ok := b.build(src, path).(*Map)
	if !ok {
		return
	}
	for _, k := range other.keys {
		if _, exists := m.vals[k]; !exists {
			m.set(k, other.vals[k])
		}
	}
}
