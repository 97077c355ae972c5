package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// These tests set process variables with t.Setenv, which Go forbids in a
// parallel test: envconfig reads only the real environment.

func TestLoadBootstrapDefaults(t *testing.T) {
	t.Setenv("QUEUEBOX_CONFIG_FILE", "")
	t.Setenv("QUEUEBOX_LOG_LEVEL", "")
	t.Setenv("QUEUEBOX_LOG_FORMAT", "")
	b, err := LoadBootstrap()
	require.NoError(t, err)
	require.Equal(t, Bootstrap{ConfigFile: DefaultConfigFile, LogLevel: "info", LogFormat: "json"}, b)
}

func TestLoadBootstrapReadsVariables(t *testing.T) {
	t.Setenv("QUEUEBOX_CONFIG_FILE", "/srv/queuebox.yml")
	t.Setenv("QUEUEBOX_LOG_LEVEL", "DEBUG")
	t.Setenv("QUEUEBOX_LOG_FORMAT", "text")
	b, err := LoadBootstrap()
	require.NoError(t, err)
	require.Equal(t, Bootstrap{ConfigFile: "/srv/queuebox.yml", LogLevel: "debug", LogFormat: "text"}, b)

	t.Setenv("QUEUEBOX_LOG_LEVEL", "verbose")
	_, err = LoadBootstrap()
	require.ErrorContains(t, err, `QUEUEBOX_LOG_LEVEL must be debug, info, warn or error, got "verbose"`)

	t.Setenv("QUEUEBOX_LOG_LEVEL", "info")
	t.Setenv("QUEUEBOX_LOG_FORMAT", "xml")
	_, err = LoadBootstrap()
	require.ErrorContains(t, err, `QUEUEBOX_LOG_FORMAT must be json or text, got "xml"`)
}
