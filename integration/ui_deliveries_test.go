package integration

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestAdminUIDeliveriesOfAFanOut: the Messages page filters one
// destination's deliveries and links a delivery to the row the
// application wrote; that row's page lists every delivery of the message
// with its own destination and state.
func TestAdminUIDeliveriesOfAFanOut(t *testing.T) {
	t.Parallel()
	s := uiStart(t, uiViewerToken)
	ctx := s.ctx
	const origin = "5a1e0000-0000-4000-8000-000000000001"
	psqlExec(t, s.db, `
		INSERT INTO outbox (id, topic, key, payload, state, attempt, destination) VALUES
			('`+origin+`', 'payment.made', 'acct-7', '{"n":1}', 'sent', 1, 'ledger');
		INSERT INTO outbox (id, topic, key, payload, state, attempt, last_error, destination, origin_id, sequence)
			SELECT '5a1e0000-0000-4000-8000-000000000002', topic, key, payload, 'dead', 1, 'HTTP 503', 'billing', id, sequence
			FROM outbox WHERE id = '`+origin+`';`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.p.url("/admin/ui/#/messages?table=outbox&state=dead&destination=billing")),
		chromedp.WaitVisible(chromedp.CSS("#results table")),
	))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#results tbody tr')].map((r) => r.textContent)`))
	require.NoError(t, err)
	require.Len(t, rows, 1, "billing's dead delivery only, none of the 600 webhook rows")
	require.Contains(t, rows[0], "billing")
	require.Contains(t, rows[0], "HTTP 503")
	shoot(t, ctx, s.dir, "10-messages-destination")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#results tbody a.origin")),
		chromedp.WaitVisible(chromedp.CSS("#deliveries table")),
	))
	waitText(t, ctx, `[data-field="id"]`, origin)
	deliveries, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#deliveries tbody tr')].map((r) => r.textContent)`))
	require.NoError(t, err)
	require.Len(t, deliveries, 2)
	require.Contains(t, deliveries[0], "ledger")
	require.Contains(t, deliveries[0], "sent")
	require.Contains(t, deliveries[0], "(this row)")
	require.Contains(t, deliveries[1], "billing")
	require.Contains(t, deliveries[1], "dead")
	require.Contains(t, deliveries[1], "HTTP 503")
	shoot(t, ctx, s.dir, "11-message-deliveries")
	checkLayout(t, ctx, "the deliveries of a message")
	phone(t, ctx, true)
	shoot(t, ctx, s.dir, "12-phone-message-deliveries")
	checkLayout(t, ctx, "the deliveries of a message on a phone")
}
