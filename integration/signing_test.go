package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/nats/natstest"
)

// The keys of the rotation in the signing tests: the destination signs
// with both, and a receiver that knows either accepts every attempt.
const (
	signingCurrent  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	signingPrevious = "whsec_cHJldmlvdXMta2V5LW9mLXRoZS1yb3RhdGlvbi0wMQ=="
	signedRowID     = "6a1f0c3e-2b4d-4e5f-8a9b-0c1d2e3f4a5b"
)

// verifyStandard checks one recorded request with the official Go library.
func verifyStandard(secret string, r brokertest.HTTPRequest) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	return wh.Verify([]byte(r.Body), r.Header)
}

// TestSignedDeliveriesVerifyWithTheOfficialLibraries runs queuebox-deliver
// with a signing block (the current key from a file:, a previous one from
// a variable) and a destination transform. The receiver verifies every
// attempt with the official Go library before it answers: the first
// attempt gets 503, the retry 200, and a replay delivers the row once
// more. All three carry the row id as webhook-id, the retry a later
// timestamp and another signature, and each verifies with either key, in
// Go and with the npm package under Node. No key reaches the log or
// last_error.
func TestSignedDeliveriesVerifyWithTheOfficialLibraries(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	rc := brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
		if err := verifyStandard(signingCurrent, r); err != nil {
			return brokertest.Answer{Status: http.StatusBadRequest, Body: err.Error()}
		}
		if r.Seq == 0 {
			return brokertest.Answer{Status: http.StatusServiceUnavailable}
		}
		return brokertest.Answer{Status: http.StatusOK}
	})
	keyFile := filepath.Join(t.TempDir(), "signing-key")
	require.NoError(t, os.WriteFile(keyFile, []byte(signingCurrent+"\n"), 0o600))
	data, mgmt := freePort(t), freePort(t)
	p := start(t, "deliver", with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_SERVER_HTTPPORT", itoa(data), "QUEUEBOX_SERVER_MANAGEMENTPORT", itoa(mgmt),
		"QUEUEBOX_ADMIN_ENABLED", "true", "QUEUEBOX_ADMIN_AUTH_TYPE", "bearer", "QUEUEBOX_ADMIN_AUTH_TOKEN", "adm1n-t0ken-0123456789",
		// At least a second between the attempts, so the retry's
		// timestamp differs.
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "1100",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_TRANSFORM_EXPRESSION", `{"order": n, "signed": true}`,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_SCHEME", "standard-webhooks",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_SECRET", "file:"+keyFile,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_PREVIOUSSECRETS_0", signingPrevious))
	p.port = mgmt
	p.waitHTTP(t, "/health/ready", http.StatusOK)

	// A relayed row whose sender tried to set the signing headers.
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (id, topic, payload, headers) VALUES
		($1, 'order.created', '{"n":7}', '{"x-inbox-id":"in-1","webhook-id":"forged","Webhook-Signature":"v1,forged"}')`, signedRowID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return outboxState(t, db, signedRowID) == "sent" }, 60*time.Second, 20*time.Millisecond)

	code, body, _ := post(t, p.url("/admin/replay"), `{"ids":["`+signedRowID+`"]}`, "Authorization", "Bearer adm1n-t0ken-0123456789")
	require.Equal(t, http.StatusOK, code, body)
	require.Eventually(t, func() bool { return rc.Len() >= 3 && outboxState(t, db, signedRowID) == "sent" }, 60*time.Second, 20*time.Millisecond)

	reqs := rc.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, []int{503, 200, 200}, []int{reqs[0].Status, reqs[1].Status, reqs[2].Status}, "the receiver verified every attempt")
	for i, r := range reqs {
		require.Equal(t, signedRowID, r.Header.Get("webhook-id"), "attempt %d", i)
		require.Len(t, r.Header.Values("webhook-signature"), 1)
		require.Len(t, strings.Fields(r.Header.Get("webhook-signature")), 2, "one entry per key")
		require.JSONEq(t, `{"order":7,"signed":true}`, r.Body, "the body after the destination transform")
		for _, key := range []string{signingCurrent, signingPrevious} {
			require.NoError(t, verifyStandard(key, r), "attempt %d", i)
		}
	}
	first, _ := strconv.ParseInt(reqs[0].Header.Get("webhook-timestamp"), 10, 64)
	retry, _ := strconv.ParseInt(reqs[1].Header.Get("webhook-timestamp"), 10, 64)
	require.Greater(t, retry, first, "the retry carries its own timestamp")
	require.NotEqual(t, reqs[0].Header.Get("webhook-signature"), reqs[1].Header.Get("webhook-signature"))

	verifyWithNode(t, []string{signingCurrent, signingPrevious}, reqs)
	for _, key := range []string{signingCurrent, signingPrevious} {
		require.NotContains(t, p.out.String(), strings.TrimPrefix(key, "whsec_"), "no key in the log")
	}
}

// verifyWithNode checks the requests with the official npm package: npm
// ci from the committed lockfile, then node runs verify.mjs.
func verifyWithNode(t *testing.T, secrets []string, reqs []brokertest.HTTPRequest) {
	t.Helper()
	dir := filepath.Join("testdata", "standardwebhooks-node")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = dir
	out, err := install.CombinedOutput()
	require.NoError(t, err, "npm ci: %s", out)

	type request struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	in := struct {
		Secrets  []string  `json:"secrets"`
		Requests []request `json:"requests"`
	}{Secrets: secrets}
	for _, r := range reqs {
		h := map[string]string{}
		for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[name] = r.Header.Get(name)
		}
		in.Requests = append(in.Requests, request{Headers: h, Body: r.Body})
	}
	payload, err := json.Marshal(in)
	require.NoError(t, err)
	node := exec.CommandContext(ctx, "node", "verify.mjs")
	node.Dir = dir
	node.Stdin = bytes.NewReader(payload)
	out, err = node.CombinedOutput()
	require.NoError(t, err, "node verify.mjs:\n%s", out)
	require.Contains(t, string(out), strconv.Itoa(len(reqs)*len(secrets))+" passed, 0 failed", string(out))
}

// TestSignedNATSDestination: a signing block on a NATS destination puts
// the same three headers on the message, and the official Go library
// verifies them over the message data with either key.
func TestSignedNATSDestination(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	s := newNATSStream(t, natstest.URL())
	startServing(t, "deliver", natsDestinationEnv(db.env(), s.prefix+".{{ topic }}",
		"QUEUEBOX_DESTINATIONS_EVENTS_SIGNING_SECRET", signingCurrent,
		"QUEUEBOX_DESTINATIONS_EVENTS_SIGNING_PREVIOUSSECRETS_0", signingPrevious))
	_, err := db.connect(t).Exec(context.Background(), `INSERT INTO outbox (id, topic, payload) VALUES ($1, 'order.created', '{"n":7}')`, signedRowID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return outboxState(t, db, signedRowID) == "sent" }, 30*time.Second, 20*time.Millisecond)
	msgs := natstest.Messages(t, s.stream)
	require.Len(t, msgs, 1)
	h := http.Header{}
	for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		h.Set(name, msgs[0].Header.Get(name))
	}
	require.Equal(t, signedRowID, h.Get("webhook-id"))
	for _, key := range []string{signingCurrent, signingPrevious} {
		require.NoError(t, verifyStandard(key, brokertest.HTTPRequest{Header: h, Body: string(msgs[0].Data)}))
	}
}
