package cli

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// composeReceiver is where the Compose stack's demo receiver answers; a
// --config file written for that stack names it, and queuebox dev points
// it at its own receiver, as it points database.url at its own cluster.
const composeReceiver = "http://receiver:8080"

// devConfig returns the configuration file of queuebox dev. Without
// --config it is the base and the demo routing; with it, the named file
// merged over the base (maps merge key by key, the file's values and
// lists win). Either way the settings dev owns win over both: the
// database of the private cluster, the data port of --http-port and the
// capture block that reads the cluster's publication.
func devConfig(f devFlags, pgPort int, stateDir string) ([]byte, error) {
	base, err := parseTree([]byte(devBase), "the dev defaults")
	if err != nil {
		return nil, err
	}
	setPath(base, []string{"admin", "auth", "token"}, f.adminToken)
	over := []byte(devDemo(f.receiverPort))
	name := "the dev demo"
	if f.config != "" {
		if over, err = os.ReadFile(f.config); err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		receiver := fmt.Sprintf("http://127.0.0.1:%d", f.receiverPort)
		over, name = []byte(strings.ReplaceAll(string(over), composeReceiver, receiver)), f.config
	}
	file, err := parseTree(over, name)
	if err != nil {
		return nil, err
	}
	cfg := mergeTree(base, file)
	setPath(cfg, []string{"server", "httpPort"}, f.httpPort)
	for k, v := range map[string]any{"type": "postgresql", "url": fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/queuebox", pgPort),
		"username": "postgres", "password": ""} {
		setPath(cfg, []string{"database", k}, v)
	}
	setPath(cfg, []string{"outbox", "capture"}, map[string]any{"enabled": true, "mode": "postgres-logical",
		"slot": "queuebox_dev", "publication": devPublication, "stateDirectory": stateDir, "reconciliationIntervalMs": 5000})
	return yaml.Marshal(cfg)
}

// parseTree parses one YAML document into nested maps; an empty one is an
// empty map.
func parseTree(data []byte, name string) (map[string]any, error) {
	tree := map[string]any{}
	if err := yaml.Unmarshal(data, &tree); err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	return tree, nil
}

// mergeTree returns base with over laid on it: where both hold a map the
// maps merge, anywhere else the value of over wins. Neither is changed.
func mergeTree(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			v = mergeTree(bm, om)
		}
		out[k] = v
	}
	return out
}

// setPath sets the value at a path of keys, creating the maps on the way
// (a non-map on the way is replaced).
func setPath(tree map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := tree[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			tree[k] = next
		}
		tree = next
	}
	tree[path[len(path)-1]] = v
}
