package config

import (
	"fmt"
	"strings"

	"github.com/kelseyhightower/envconfig"
)

// Bootstrap holds the process settings that share the QUEUEBOX_ prefix but
// are not configuration keys: they are read before the configuration and
// never count as "a configuration variable is set".
//
// These are flat, fixed names with defaults, which is exactly envconfig's
// model, so envconfig reads them. The configuration itself needs map keys,
// list indexes, "__" escapes and a file underneath, which envconfig cannot
// express; Load handles it.
type Bootstrap struct {
	// ConfigFile names the YAML file (QUEUEBOX_CONFIG_FILE).
	ConfigFile string `envconfig:"CONFIG_FILE" default:"/etc/queuebox/queuebox.yml"`
	// LogLevel is debug, info, warn or error (QUEUEBOX_LOG_LEVEL).
	LogLevel string `envconfig:"LOG_LEVEL" default:"info"`
	// LogFormat is json or text (QUEUEBOX_LOG_FORMAT).
	LogFormat string `envconfig:"LOG_FORMAT" default:"json"`
}

// LoadBootstrap reads the Bootstrap variables from the process environment
// and checks the log settings. A variable set to an empty value takes the
// default, as Load does for QUEUEBOX_CONFIG_FILE. Level and format match in
// any letter case and come back in lower case.
func LoadBootstrap() (Bootstrap, error) {
	var b Bootstrap
	if err := envconfig.Process(strings.TrimSuffix(EnvPrefix, "_"), &b); err != nil {
		return b, fmt.Errorf("read the process settings: %w", err)
	}
	b.ConfigFile = orDefault(b.ConfigFile, DefaultConfigFile)
	b.LogLevel = strings.ToLower(orDefault(b.LogLevel, "info"))
	b.LogFormat = strings.ToLower(orDefault(b.LogFormat, "json"))
	switch b.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return b, fmt.Errorf("%sLOG_LEVEL must be debug, info, warn or error, got %q", EnvPrefix, b.LogLevel)
	}
	switch b.LogFormat {
	case "json", "text":
	default:
		return b, fmt.Errorf("%sLOG_FORMAT must be json or text, got %q", EnvPrefix, b.LogFormat)
	}
	return b, nil
}

func orDefault(v, def string) string {
	if v = strings.TrimSpace(v); v == "" {
		return def
	}
	return v
}
