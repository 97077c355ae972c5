package deploy

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/stretchr/testify/require"
)

// configPath is where the tests place the file under test, as a container
// would see it.
const configPath = "/etc/queuebox/queuebox.yml"

// loadConfig loads one configuration text the way a QueueBox container
// does: the file at /etc/queuebox/queuebox.yml, the given variables, and
// any file: secret from secrets (path to content). It fails the test on an
// error or a warning (an unknown key or a variable that names no key).
func loadConfig(t *testing.T, text string, secrets map[string]string, env ...string) *config.Config {
	t.Helper()
	files := map[string]string{configPath: text}
	for path, content := range secrets {
		files[path] = content
	}
	cfg, err := config.Load(config.Options{
		Environ: append([]string{"QUEUEBOX_CONFIG_FILE=" + configPath}, env...),
		ReadFile: func(path string) ([]byte, error) {
			if c, ok := files[path]; ok {
				return []byte(c), nil
			}
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		},
		NoPackaged: true,
	})
	require.NoError(t, err, config.FormatError(err))
	require.Empty(t, cfg.Warnings())
	return cfg
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, rel))
	require.NoError(t, err)
	return string(data)
}

// composeEnv is what both Compose stacks set on every QueueBox container.
var composeEnv = []string{
	"QUEUEBOX_DATABASE_URL=jdbc:postgresql://postgres:5432/queuebox",
	"QUEUEBOX_DATABASE_USERNAME=queuebox",
	"QUEUEBOX_DATABASE_PASSWORD=queuebox",
}

// The start-point configuration loads as the root Compose stack runs it,
// routes order.* to the demo receiver as the first tutorial reads, and
// ends with the sources block that the second tutorial appends to.
func TestExampleConfigurationAndTheTutorialAppend(t *testing.T) {
	t.Parallel()
	text := readRepoFile(t, "examples/queuebox.yml")
	cfg := loadConfig(t, text, nil, composeEnv...)
	require.Empty(t, cfg.Sources)
	require.Equal(t, "http://receiver:8080", cfg.Destinations["webhook-api"].BaseURL)
	require.Equal(t, "order.*", cfg.Routes[0].TopicPattern)

	// The append of "Receive a webhook", byte for byte.
	appended := text + "  orders:\n    type: http\n    path: /orders\n    idempotencyKeyPath: $.id\n    consumption: pull\n"
	cfg = loadConfig(t, appended, nil, composeEnv...)
	require.Len(t, cfg.Sources, 1)
	require.Equal(t, "/orders", cfg.Sources["orders"].Path)
	require.Equal(t, config.ConsumptionPull, cfg.Sources["orders"].Consumption)
}

// The per-role stack's configuration loads for every role, and with the
// capture role's one extra variable.
func TestComposeRolesConfigurationLoads(t *testing.T) {
	t.Parallel()
	text := readRepoFile(t, "compose/queuebox.yml")
	cfg := loadConfig(t, text, nil, composeEnv...)
	require.False(t, cfg.Outbox.Capture.Enabled, "one owner: only the capture service turns it on")
	require.True(t, cfg.Outbox.Capture.Wakes(), "deliver listens for the capture wake-ups")
	cfg = loadConfig(t, text, nil, append(composeEnv, "QUEUEBOX_OUTBOX_CAPTURE_ENABLED=true")...)
	require.True(t, cfg.Outbox.Capture.Enabled)
	require.Equal(t, "/var/lib/queuebox/capture", cfg.Outbox.Capture.StateDirectory)
}
