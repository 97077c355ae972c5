package integration

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
)

// TestPresetSourcesThroughTheIngestBinary posts signed webhooks to a
// stripe and a standard-webhooks source of the built queuebox-ingest:
// each is stored once with the provider's idempotency key and event type,
// its repeat is a duplicate, and a forged one gets 401 and stores
// nothing. The stripe source rotates its secret: the previous one still
// passes. The Standard Webhooks request is signed by the official Go
// library.
func TestPresetSourcesThroughTheIngestBinary(t *testing.T) {
	t.Parallel()
	db := newDatabase(t)
	const stripeOld, stripeNew = "whsec_stripe_old_0123", "whsec_stripe_new_4567"
	ingest := startServing(t, "ingest", with(db.env(),
		"QUEUEBOX_SOURCES_STRIPE_TYPE", "http",
		"QUEUEBOX_SOURCES_STRIPE_PATH", "/stripe",
		"QUEUEBOX_SOURCES_STRIPE_AUTH_TYPE", "stripe",
		"QUEUEBOX_SOURCES_STRIPE_AUTH_SECRET", stripeNew,
		"QUEUEBOX_SOURCES_STRIPE_AUTH_PREVIOUSSECRETS_0", stripeOld,
		"QUEUEBOX_SOURCES_STD_TYPE", "http",
		"QUEUEBOX_SOURCES_STD_PATH", "/std",
		"QUEUEBOX_SOURCES_STD_AUTH_TYPE", "standard-webhooks",
		"QUEUEBOX_SOURCES_STD_AUTH_SECRET", signingCurrent,
		"QUEUEBOX_SOURCES_STD_AUTH_TOLERANCESECONDS", "120"))

	stripeBody := `{"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","object":"event","type":"invoice.paid","data":{"object":{}}}`
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(stripeOld))
	mac.Write([]byte(ts + "." + stripeBody))
	stripeSig := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))

	wh, err := standardwebhooks.NewWebhook(signingCurrent)
	require.NoError(t, err)
	stdBody := `{"type":"order.created","data":{"id":7}}`
	now := time.Now()
	stdSig, err := wh.Sign("msg_2Lh9KRb0pzN4LePd3XiA4hqMZ0O", now, []byte(stdBody))
	require.NoError(t, err)
	stdHeaders := []string{"webhook-id", "msg_2Lh9KRb0pzN4LePd3XiA4hqMZ0O",
		"webhook-timestamp", strconv.FormatInt(now.Unix(), 10), "webhook-signature", stdSig}

	for i, want := range []int{http.StatusAccepted, http.StatusOK} {
		code, body, _ := post(t, ingest.url("/inbox/stripe"), stripeBody, "Stripe-Signature", stripeSig)
		require.Equal(t, want, code, "stripe post %d: %s", i, body)
		code, body, _ = post(t, ingest.url("/inbox/std"), stdBody, stdHeaders...)
		require.Equal(t, want, code, "standard-webhooks post %d: %s", i, body)
	}
	code, body, _ := post(t, ingest.url("/inbox/stripe"), stripeBody, "Stripe-Signature", "t="+ts+",v1="+hex.EncodeToString(make([]byte, 32)))
	require.Equal(t, http.StatusUnauthorized, code)
	require.JSONEq(t, `{"error":"Invalid signature"}`, body)
	code, body, _ = post(t, ingest.url("/inbox/std"), `{"type":"forged"}`, stdHeaders...)
	require.Equal(t, http.StatusUnauthorized, code)
	require.JSONEq(t, `{"error":"Invalid signature"}`, body)

	rows := psqlRows(t, db, `SELECT source, idempotency_key, event_type, headers ? 'stripe-signature', headers ? 'webhook-signature'
		FROM inbox ORDER BY source`)
	require.Equal(t, [][]string{
		{"std", "msg_2Lh9KRb0pzN4LePd3XiA4hqMZ0O", "order.created", "f", "f"},
		{"stripe", "evt_1NG8Du2eZvKYlo2CUI79vXWy", "invoice.paid", "f", "f"},
	}, rows)
	var n int
	require.NoError(t, db.connect(t).QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&n))
	require.Equal(t, 2, n)
}
