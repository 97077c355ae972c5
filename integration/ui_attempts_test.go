package integration

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestAdminUIAttemptsTimeline: the page of an outbox row shows the
// attempts of its message from the delivery ledger as a timeline, newest
// first, each with its attempt number, destination, outcome, status,
// duration and the start of its answer; at a phone's width the timeline
// fits the screen. The viewer may see it.
func TestAdminUIAttemptsTimeline(t *testing.T) {
	t.Parallel()
	s := uiStart(t, uiViewerToken)
	ctx := s.ctx
	const id = "a77e0000-0000-4000-8000-000000000001"
	answer := `{"error":"upstream ledger service unavailable","retryable":true,"trace":"` + strings.Repeat("0123456789abcdef", 20) + `"}`
	psqlExec(t, s.db, `
		INSERT INTO outbox (id, topic, payload, state, attempt, destination) VALUES
			('`+id+`', 'order.created', '{"n":1}', 'sent', 2, 'webhook');
		INSERT INTO outbox_attempts (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome,
			failure_class, status, answer) VALUES
			('`+id+`', '`+id+`', 'webhook', 0, now() - interval '3 minutes', 30012, 'failed', 'timeout', NULL,
			 'Publish to webhook failed: http destination webhook: no response: context deadline exceeded (timeout 30s)'),
			('`+id+`', '`+id+`', 'webhook', 1, now() - interval '2 minutes', 412, 'failed', 'http_5xx', '503', '`+answer+`'),
			('`+id+`', '`+id+`', 'webhook', 2, now() - interval '1 minute', 38, 'sent', NULL, '200', NULL);`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.p.url("/admin/ui/#/message/"+id+"?table=outbox")),
		chromedp.WaitVisible(chromedp.CSS("#attempts .timeline")),
	))
	entries, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#attempts .timeline > li')].map((li) => li.dataset.outcome + ' | ' + li.textContent)`))
	require.NoError(t, err)
	require.Len(t, entries, 3)
	require.True(t, strings.HasPrefix(entries[0], "sent | "), entries[0])
	require.Contains(t, entries[0], "attempt 2")
	require.Contains(t, entries[0], "200")
	require.Contains(t, entries[0], "38 ms")
	require.True(t, strings.HasPrefix(entries[1], "failed | "), entries[1])
	require.Contains(t, entries[1], "http_5xx")
	require.Contains(t, entries[1], "503")
	require.Contains(t, entries[1], "upstream ledger service unavailable")
	require.Contains(t, entries[2], "timeout")
	require.Contains(t, entries[2], "30.0 s")
	shoot(t, ctx, s.dir, "13-message-attempts")
	checkLayout(t, ctx, "the attempts of a message")
	phone(t, ctx, true)
	shoot(t, ctx, s.dir, "14-phone-message-attempts")
	checkLayout(t, ctx, "the attempts of a message on a phone")
}
