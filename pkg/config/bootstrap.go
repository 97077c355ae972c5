package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

// The process settings that Bootstrap holds, by variable.
const (
	logLevelVar  = EnvPrefix + "LOG_LEVEL"
	logFormatVar = EnvPrefix + "LOG_FORMAT"
)

// Bootstrap holds the process settings that share the QUEUEBOX_ prefix but
// are not configuration keys: they are read before the configuration and
// never count as "a configuration variable is set". They come from the
// same indexed environment that Load reads, under their QUEUEBOX_ names
// only.
type Bootstrap struct {
	// ConfigFile names the YAML file (QUEUEBOX_CONFIG_FILE).
	ConfigFile string
	// LogLevel is debug, info, warn or error (QUEUEBOX_LOG_LEVEL).
	LogLevel string
	// LogFormat is json or text (QUEUEBOX_LOG_FORMAT).
	LogFormat string
}

// LoadBootstrap reads the Bootstrap variables from the process environment
// and checks the log settings. A variable set to an empty value takes the
// default, as Load does for QUEUEBOX_CONFIG_FILE. Level and format match in
// any letter case and come back in lower case.
func LoadBootstrap() (Bootstrap, error) {
	return bootstrapFrom(yamlenv.Environ(os.Environ()))
}

// bootstrapFrom is LoadBootstrap over an indexed environment.
func bootstrapFrom(env map[string]string) (Bootstrap, error) {
	b := Bootstrap{
		ConfigFile: orDefault(env[configFileVar], DefaultConfigFile),
		LogLevel:   strings.ToLower(orDefault(env[logLevelVar], "info")),
		LogFormat:  strings.ToLower(orDefault(env[logFormatVar], "json")),
	}
	switch b.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return b, fmt.Errorf("%s must be debug, info, warn or error, got %q", logLevelVar, b.LogLevel)
	}
	switch b.LogFormat {
	case "json", "text":
	default:
		return b, fmt.Errorf("%s must be json or text, got %q", logFormatVar, b.LogFormat)
	}
	return b, nil
}

func orDefault(v, def string) string {
	if v = strings.TrimSpace(v); v == "" {
		return def
	}
	return v
}
