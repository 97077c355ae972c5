package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConfigCheckThroughTheBinary: queuebox config check on the example
// configuration prints it with the password masked and exits 0; with
// variables that break two keys it names both, each with its variable,
// and exits 1. It starts nothing, so it needs no database.
func TestConfigCheckThroughTheBinary(t *testing.T) {
	t.Parallel()
	const file = "../examples/queuebox.yml"
	const password = "config-check-db-password"

	p := start(t, "queuebox", map[string]string{"DB_PASSWORD": password}, "config", "check", file)
	require.Equal(t, 0, p.wait(t, 60*time.Second), p.out.String())
	out := p.out.String()
	require.Contains(t, out, "webhook-api:")
	require.Contains(t, out, "topicPattern: order.*")
	require.NotContains(t, out, password)

	broken := map[string]string{"DB_PASSWORD": password, "QUEUEBOX_OUTBOX_BATCHSIZE": "0", "QUEUEBOX_INBOX_BASEPATH": "inbox"}
	p = start(t, "queuebox", broken, "config", "check", file)
	require.Equal(t, 1, p.wait(t, 60*time.Second), p.out.String())
	out = p.out.String()
	require.Contains(t, out, "2 problems")
	require.Contains(t, out, "outbox.batchSize (QUEUEBOX_OUTBOX_BATCHSIZE): must be above 0")
	require.Contains(t, out, `inbox.basePath (QUEUEBOX_INBOX_BASEPATH): must start with /`)
	require.False(t, strings.Contains(out, password))
}
