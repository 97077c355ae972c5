package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// compileSchema compiles the generated JSON Schema with a maintained
// draft 2020-12 validator.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSONSchema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(SchemaID, doc))
	s, err := c.Compile(SchemaID)
	require.NoError(t, err)
	return s
}

// yamlInstance decodes a YAML document into the JSON value model the
// validator expects (merge keys resolved by yaml.v3).
func yamlInstance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	j, err := json.Marshal(v)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)
	return inst
}

// Every configuration file of the repository passes the schema: the
// examples, the stacks', the packaged one and the complete test file.
func TestSchemaAcceptsTheRepositoryConfigurations(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	files, err := filepath.Glob("../../examples/*/queuebox.yml")
	require.NoError(t, err)
	files = append(files, "../../examples/queuebox.yml", "../../compose/queuebox.yml", "../../deploy/local/queuebox.yml", "default.yml", "testdata/complete.yml")
	require.GreaterOrEqual(t, len(files), 8)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, s.Validate(yamlInstance(t, data)), f)
	}
}

// The schema refuses what the loader refuses for the same reason.
func TestSchemaRefuses(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	for name, doc := range map[string]string{
		"an unknown section":         "serverr: {}\n",
		"a port out of range":        "server: {httpPort: 70000}\n",
		"a database type":            "database: {type: oracle}\n",
		"a negative pool":            "database: {poolSize: 0}\n",
		"an unknown destination key": "destinations: {a: {baseUrl: http://x, retries: 3}}\n",
		"a route that is a map":      "routes: {topicPattern: a}\n",
		"an onError in lower case":   "routes: [{topicPattern: a, destination: b, transform: {expression: $, onError: fail}}]\n",
		"a duration without unit":    "retention: {outbox: {maxAge: 7}}\n",
	} {
		require.Error(t, s.Validate(yamlInstance(t, []byte(doc))), name)
	}
	require.NoError(t, s.Validate(yamlInstance(t, []byte("server: {httpPort: \"${PORT}\"}\n"))), "a placeholder stands for any type")
}
