package config

import (
	"sort"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

// EnvPrefix starts every configuration variable.
const EnvPrefix = "QUEUEBOX_"

// Process settings that share the prefix but are not configuration keys.
// They never count as "a configuration variable is set".
var processVars = map[string]bool{
	EnvPrefix + "CONFIG_FILE": true,
	EnvPrefix + "LOG_LEVEL":   true,
	EnvPrefix + "LOG_FORMAT":  true,
	// The roles of the queuebox binary (queuebox run --roles).
	EnvPrefix + "ROLES": true,
}

// testVarPrefix marks the settings of the test harness.
const testVarPrefix = EnvPrefix + "TEST_"

// isConfigVar reports whether a variable name is a configuration variable.
func isConfigVar(name string) bool {
	return strings.HasPrefix(name, EnvPrefix) && !processVars[name] && !strings.HasPrefix(name, testVarPrefix)
}

// configVars returns the configuration variables sorted by name, so the
// merge is deterministic whatever order the environment has.
func configVars(env map[string]string) []yamlenv.Var {
	var out []yamlenv.Var
	for name, value := range env {
		if isConfigVar(name) {
			out = append(out, yamlenv.Var{Name: name, Value: value})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// EnvKeyToPath turns a variable name into the lower-case segments of its key
// path: the prefix goes, "__" becomes a literal "_", and every other "_"
// separates two levels. QUEUEBOX_DESTINATIONS_MY__API_BASEURL gives
// [destinations my_api baseurl]. A name without the QUEUEBOX_ prefix gives
// nil.
func EnvKeyToPath(name string) []string { return schema.Segments(name) }

// PathToEnvKey returns the variable that sets a YAML path. It accepts the
// dotted form with list indexes in brackets: "routes[0].topicPattern" gives
// QUEUEBOX_ROUTES_0_TOPICPATTERN and "destinations.my_api.baseUrl" gives
// QUEUEBOX_DESTINATIONS_MY__API_BASEURL.
func PathToEnvKey(path string) string { return schema.VarOfPath(path) }
