package integration

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGitHubPresetDeduplicatesARelabelledCopy: GitHub signs the body but
// not X-GitHub-Delivery or X-GitHub-Event, so whoever captured one
// delivery could post it again under a new id and another event type.
// The github preset keys the row by the digest of the signed body: the
// copy is a duplicate, and the stored event type stays the first one.
func TestGitHubPresetDeduplicatesARelabelledCopy(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	const secret = "github-webhook-secret-0123"
	p := startServing(t, "ingest", with(db.env(), "QUEUEBOX_SOURCES_GITHUB_TYPE", "http",
		"QUEUEBOX_SOURCES_GITHUB_PATH", "/github", "QUEUEBOX_SOURCES_GITHUB_AUTH_TYPE", "github",
		"QUEUEBOX_SOURCES_GITHUB_AUTH_SECRET", secret))
	body := `{"action":"opened","number":7}`
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	sig := "sha256=" + hex.EncodeToString(mac.Sum(nil))

	code, answer, _ := post(t, p.url("/inbox/github"), body, "X-Hub-Signature-256", sig,
		"X-GitHub-Delivery", "d-1", "X-GitHub-Event", "pull_request")
	require.Equal(t, http.StatusAccepted, code, answer)
	code, answer, _ = post(t, p.url("/inbox/github"), body, "X-Hub-Signature-256", sig,
		"X-GitHub-Delivery", "d-forged", "X-GitHub-Event", "push")
	require.Equal(t, http.StatusOK, code, "the re-labelled copy is a duplicate: %s", answer)

	var rows int
	var eventType, key string
	require.NoError(t, db.connect(t).QueryRow(context.Background(),
		`SELECT count(*), min(event_type), min(idempotency_key) FROM inbox`).Scan(&rows, &eventType, &key))
	require.Equal(t, 1, rows)
	require.Equal(t, "pull_request", eventType)
	sum := sha256.Sum256([]byte(body))
	require.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), key)
}
