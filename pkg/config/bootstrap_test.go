package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBootstrapFrom(t *testing.T) {
	t.Parallel()
	defaults := Bootstrap{ConfigFile: DefaultConfigFile, LogLevel: "info", LogFormat: "json"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Bootstrap
		err  string
	}{
		{"unset", nil, defaults, ""},
		{"empty takes the default", map[string]string{"QUEUEBOX_CONFIG_FILE": "", "QUEUEBOX_LOG_LEVEL": " ", "QUEUEBOX_LOG_FORMAT": ""}, defaults, ""},
		{"set, any case", map[string]string{"QUEUEBOX_CONFIG_FILE": "/srv/queuebox.yml", "QUEUEBOX_LOG_LEVEL": "DEBUG", "QUEUEBOX_LOG_FORMAT": "text"},
			Bootstrap{ConfigFile: "/srv/queuebox.yml", LogLevel: "debug", LogFormat: "text"}, ""},
		// envconfig fell back to the names without the prefix; another
		// program's LOG_LEVEL must neither set nor break QueueBox's.
		{"names without the prefix are not ours", map[string]string{"CONFIG_FILE": "/elsewhere.yml", "LOG_LEVEL": "verbose", "LOG_FORMAT": "xml"}, defaults, ""},
		{"bad level", map[string]string{"QUEUEBOX_LOG_LEVEL": "verbose"}, Bootstrap{}, `QUEUEBOX_LOG_LEVEL must be debug, info, warn or error, got "verbose"`},
		{"bad format", map[string]string{"QUEUEBOX_LOG_FORMAT": "xml"}, Bootstrap{}, `QUEUEBOX_LOG_FORMAT must be json or text, got "xml"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := bootstrapFrom(tc.env)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestLoadBootstrapReadsTheProcess sets process variables with t.Setenv,
// which Go forbids in a parallel test. QUEUEBOX_LOG_LEVEL is unset, so only
// a reader that falls back to LOG_LEVEL (envconfig did) would see "verbose".
func TestLoadBootstrapReadsTheProcess(t *testing.T) {
	t.Setenv("QUEUEBOX_CONFIG_FILE", "/srv/queuebox.yml")
	t.Setenv("QUEUEBOX_LOG_FORMAT", "TEXT")
	t.Setenv("QUEUEBOX_LOG_LEVEL", "")
	require.NoError(t, os.Unsetenv("QUEUEBOX_LOG_LEVEL"))
	t.Setenv("LOG_LEVEL", "verbose")
	b, err := LoadBootstrap()
	require.NoError(t, err)
	require.Equal(t, Bootstrap{ConfigFile: "/srv/queuebox.yml", LogLevel: "info", LogFormat: "text"}, b)
}
