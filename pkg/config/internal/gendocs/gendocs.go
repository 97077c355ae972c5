// Command gendocs writes the files that the configuration key table
// generates: the configuration reference, the JSON Schema of queuebox.yml
// and the queuebox part of the Helm chart's values schema. `make docs`
// runs it from the repository root (through go generate in pkg/config);
// its test fails when a committed file differs from what it would write.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/alternayte/queuebox/pkg/config"
)

// The generated files, relative to the repository root.
const (
	referenceFile    = "docs/configuration-reference.md"
	schemaFile       = "docs/queuebox.schema.json"
	helmSchemaFile   = "deploy/helm/queuebox/values.schema.json"
	helmSchemaDefKey = "queuebox"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	files, err := generate(*root)
	if err == nil {
		err = write(*root, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// generate returns the content of every generated file by its path. It
// reads the Helm values schema, whose other parts are written by hand.
func generate(root string) (map[string][]byte, error) {
	helm, err := os.ReadFile(filepath.Join(root, helmSchemaFile))
	if err != nil {
		return nil, err
	}
	helm, err = helmSchema(helm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", helmSchemaFile, err)
	}
	return map[string][]byte{
		referenceFile:  config.Reference(),
		schemaFile:     config.JSONSchema(),
		helmSchemaFile: helm,
	}, nil
}

// helmSchema replaces definitions.queuebox of the chart's values schema
// with the schema of queuebox.yml; the chart's config value refers to it.
func helmSchema(data []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	defs, _ := doc["definitions"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
		doc["definitions"] = defs
	}
	defs[helmSchemaDefKey] = config.ConfigSchema()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func write(root string, files map[string][]byte) error {
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
