package integration

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAdminRoutesOnEveryBinary: with admin.enabled, every role binary and
// queuebox serve both admin routes on their data port: the transform
// test needs no transform in the configuration, and the replay resolves
// its destination filter with the routes of the configuration.
func TestAdminRoutesOnEveryBinary(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	env := with(destinationEnv(db.env(), "http://127.0.0.1:9"),
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer",
		"QUEUEBOX_ADMIN_AUTH_TOKEN", "adm1n-t0ken-0123456789")
	test := `{"expression":"{ \"total\": $sum(items.(price * qty)) }","payload":{"items":[{"price":10,"qty":2},{"price":5,"qty":3}]}}`
	for _, name := range []string{"ingest", "relay", "deliver", "capture", "queuebox"} {
		p := startServing(t, name, env)
		code, body, _ := post(t, p.url("/admin/transform/test"), test, "Authorization", "Bearer adm1n-t0ken-0123456789")
		require.Equal(t, http.StatusOK, code, "%s: %s", name, body)
		require.Contains(t, body, `"result":{"total":35}`, name)

		code, body, _ = post(t, p.url("/admin/replay"), `{"destination":"webhook"}`, "Authorization", "Bearer adm1n-t0ken-0123456789")
		require.Equal(t, http.StatusOK, code, "%s: %s", name, body)
		require.JSONEq(t, `{"moved":0}`, body, name)

		code, _, _ = post(t, p.url("/admin/replay"), `{"topic":"x"}`)
		require.Equal(t, http.StatusUnauthorized, code, "%s checks admin.auth", name)
	}
}
