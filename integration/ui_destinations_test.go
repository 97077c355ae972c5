package integration

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

// uiHistory writes an hour of attempts to the ledger as deliver would
// have: billing sends a few rows every minute and fails now and then,
// webhook sent steadily until 20 minutes ago.
const uiHistory = `
	INSERT INTO outbox_attempts (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome, failure_class, status)
	SELECT id, id, 'billing', 0, now() - make_interval(mins => m), 40, 'sent', NULL, '200'
	FROM generate_series(0, 59) AS m, generate_series(1, 1 + (m * 7) % 9) AS k, gen_random_uuid() AS id;
	INSERT INTO outbox_attempts (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome, failure_class, status)
	SELECT id, id, 'billing', 0, now() - make_interval(mins => m), 30012, 'failed', 'timeout', NULL
	FROM generate_series(3, 59, 11) AS m, gen_random_uuid() AS id;
	INSERT INTO outbox_attempts (outbox_id, message_id, destination, attempt, started_at, duration_ms, outcome, failure_class, status)
	SELECT id, id, 'webhook', 0, now() - make_interval(mins => m), 50, 'sent', NULL, '200'
	FROM generate_series(20, 59) AS m, generate_series(1, 3) AS k, gen_random_uuid() AS id;`

// uiDeadID is the row that the failing webhook kills in
// TestAdminUIDestinations.
const uiDeadID = "d0de0000-0000-4000-8000-0000000000a1"

// TestAdminUIDestinations: the receiver of webhook answers 500, so a row
// of max_attempts 2 dies on its third publish and the breaker opens (for
// ten minutes, longer than the test); billing is healthy, with an hour
// of attempts in the ledger. The Destinations page shows a panel per
// destination with the breaker's state, the failures of the last 5
// minutes and a chart whose text alternative sums the hour; the
// Overview's compact table shows the same and links to both pages; the
// Undelivered page counts the rows per destination and per class, lists
// them with short, linked ids, filters by destination from its counts and
// pages by cursor. Each page fits a laptop's and a phone's width.
func TestAdminUIDestinations(t *testing.T) {
	t.Parallel()
	s := uiSession{rc: brokertest.NewHTTPReceiver(t, brokertest.Status(http.StatusInternalServerError))}
	healthy := brokertest.NewHTTPReceiver(t, nil)
	s.p, s.db = uiServer(t, s.rc,
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS", "10",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD", "3",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_FLOWCONTROL_CIRCUITBREAKER_OPENMS", "600000",
		"QUEUEBOX_DESTINATIONS_BILLING_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_BILLING_BASEURL", healthy.URL,
		"QUEUEBOX_DESTINATIONS_BILLING_FLOWCONTROL_MAXINFLIGHT", "8")
	psqlExec(t, s.db, uiHistory)
	psqlExec(t, s.db, `INSERT INTO outbox (id, topic, payload, max_attempts) VALUES ('`+uiDeadID+`', 'order.shipped', '{}', 2)`)
	require.Eventually(t, func() bool {
		return len(psqlRows(t, s.db, `SELECT 1 FROM outbox WHERE id = '`+uiDeadID+`' AND state = 'dead'`)) == 1
	}, time.Minute, 20*time.Millisecond, "three failed publishes kill the row and open the breaker")
	// Two rows wait behind the open breaker: the page shows them pending.
	psqlExec(t, s.db, `INSERT INTO outbox (topic, payload) VALUES ('order.shipped', '{}'), ('order.shipped', '{}')`)
	s.ctx, s.dir = newBrowser(t), screenshots(t)
	signIn(t, s.ctx, s.p, uiViewerToken)
	ctx := s.ctx

	t.Run("destinations", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.p.url("/admin/ui/#/destinations"))))
		waitText(t, ctx, `#destinations section[data-name="webhook"] dd[data-fact="Breaker"]`, "open")
		waitText(t, ctx, `#destinations section[data-name="webhook"] dd[data-fact="Pending"]`, "2")
		facts := evalMap(t, ctx, `(() => {
			const w = document.querySelector('#destinations section[data-name="webhook"]');
			const b = document.querySelector('#destinations section[data-name="billing"]');
			const fact = (s, k) => s.querySelector('dd[data-fact="' + k + '"]').textContent;
			return {
				names: [...document.querySelectorAll('#destinations section h2')].map((e) => e.textContent).join(','),
				breaker: fact(w, 'Breaker'), recent: fact(w, 'Sent / failed, 5 min'), deferred: fact(w, 'Deferred'),
				billingBreaker: fact(b, 'Breaker'),
				label: w.querySelector('svg.chart').getAttribute('aria-label'),
				title: w.querySelector('svg.chart > title').textContent,
				failedBars: String(w.querySelectorAll('svg.chart rect.failed').length),
				billingBars: String(b.querySelectorAll('svg.chart rect.sent').length),
				billingLabel: b.querySelector('svg.chart').getAttribute('aria-label'),
				note: document.querySelector('#flow-note').hidden ? '' : 'shown',
			};
		})()`)
		require.Equal(t, "billing,webhook", facts["names"])
		require.Contains(t, facts["breaker"], "until", "an open breaker says until when")
		require.Equal(t, "0 / 3", facts["recent"], "the three failed publishes of the last 5 minutes")
		require.Contains(t, facts["deferred"], "circuit_open")
		require.Equal(t, "closed", facts["billingBreaker"])
		require.Contains(t, facts["label"], "120 sent, 3 failed", "the text alternative sums the hour")
		require.Equal(t, facts["label"], facts["title"])
		require.Equal(t, "1", facts["failedBars"], "the failures fall in one minute")
		// Sixty minutes, but the page's clock may have moved on a minute
		// since they were written, joining the oldest two.
		require.Contains(t, []string{"59", "60"}, facts["billingBars"], "billing sent in every minute of the hour")
		require.Contains(t, facts["billingLabel"], "failed; the busiest minute")
		require.Empty(t, facts["note"], "queuebox runs deliver: no note")
		shootBoth(t, ctx, s.dir, "destinations")
	})

	t.Run("overview", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(s.p.url("/admin/ui/#/overview")),
			chromedp.WaitVisible(chromedp.CSS("#overview-destinations table"))))
		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#overview-destinations tbody tr')]
			.map((tr) => [...tr.cells].map((td) => td.textContent).join(' | '))`))
		require.NoError(t, err)
		require.Len(t, rows, 2)
		require.Regexp(t, `^webhook \| open \| 2 \| [\dms ]+ \| 0 / 3$`, rows[1])
		require.Regexp(t, `^billing \| closed \| 0 \| — \| \d+ / \d+$`, rows[0])
		links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#overview-destinations .links a')].map((a) => a.getAttribute('href'))`))
		require.NoError(t, err)
		require.Equal(t, []string{"#/destinations", "#/undelivered"}, links)
		shootBoth(t, ctx, s.dir, "overview")
	})

	t.Run("undelivered", func(t *testing.T) {
		openList(t, ctx, s.p, "#/undelivered")
		counts := evalMap(t, ctx, `(() => {
			const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : ''; };
			const a = document.querySelector('#results tbody td[data-label="Id"] a');
			return {
				webhook: text('#by-destination li[data-destination="webhook"]'),
				unrouted: text('#by-destination li[data-destination="(unrouted)"]'),
				http: text('#by-class li[data-class="http_5xx"]'),
				unclassified: text('#by-class li[data-class="unclassified"]'),
				rows: String(document.querySelectorAll('#results tbody tr').length),
				next: document.querySelector('#next').disabled ? 'disabled' : 'enabled',
				idText: a.textContent, idTitle: a.title, idHref: a.getAttribute('href'),
			};
		})()`)
		require.Equal(t, "webhook1 dead0 retrying", counts["webhook"])
		require.Equal(t, "(unrouted)601 dead0 retrying", counts["unrouted"], "uiServer's dead rows were never routed")
		require.Equal(t, "http_5xx1", counts["http"])
		require.Equal(t, "unclassified601", counts["unclassified"])
		require.Equal(t, "50", counts["rows"])
		require.Equal(t, "enabled", counts["next"])
		require.Len(t, counts["idText"], len(counts["idTitle"][:8])+len("…"), "a short id")
		require.Contains(t, counts["idHref"], "#/message/"+counts["idTitle"])
		checkShortFilters(t, ctx, "undelivered")
		shootBoth(t, ctx, s.dir, "undelivered")

		require.NoError(t, chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`#by-destination li[data-destination="webhook"] a`)),
			chromedp.WaitVisible(chromedp.CSS("#results table"))))
		waitText(t, ctx, "#filter-summary", "destination webhook")
		row := evalMap(t, ctx, `(() => {
			const tr = document.querySelector('#results tbody tr');
			const cell = (k) => tr.querySelector('td[data-label="' + k + '"]').textContent;
			return {rows: String(document.querySelectorAll('#results tbody tr').length), title: tr.querySelector('a').title,
				cls: cell('Class'), status: cell('Status'), state: cell('State')};
		})()`)
		require.Equal(t, map[string]string{"rows": "1", "title": uiDeadID, "cls": "http_5xx", "status": "500", "state": "dead"}, row)
		shoot(t, ctx, s.dir, "undelivered-webhook")

		// Paging: Next follows the cursor, Previous comes back.
		openList(t, ctx, s.p, "#/undelivered?limit=300")
		first := evalMap(t, ctx, `({id: document.querySelector('#results tbody a').title})`)["id"]
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next"))))
		waitText(t, ctx, "#prev:not([disabled]) ", "Previous")
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#results tbody tr"))))
		second := evalMap(t, ctx, `({id: document.querySelector('#results tbody a').title,
			rows: String(document.querySelectorAll('#results tbody tr').length)})`)
		require.NotEqual(t, first, second["id"])
		require.Equal(t, "300", second["rows"])
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#prev"))))
		waitText(t, ctx, "#prev[disabled]", "Previous")
	})
}

// evalMap evaluates js, an expression whose value is an object of
// strings.
func evalMap(t *testing.T, ctx context.Context, js string) map[string]string {
	t.Helper()
	m, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](js))
	require.NoError(t, err)
	return m
}

// shootBoth saves the page at a laptop's and at a phone's width, and
// checks its layout at each; it leaves the tab at the laptop's width.
func shootBoth(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	checkLayout(t, ctx, name+" at 1280 px")
	shoot(t, ctx, dir, "laptop-"+name)
	phone(t, ctx, true)
	checkLayout(t, ctx, name+" at 390 px")
	shoot(t, ctx, dir, "phone-"+name)
	// A long list makes the whole page too tall to read as one picture:
	// keep the first screen too.
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "phone-"+name+"-first-screen.png"), png, 0o644))
	phone(t, ctx, false)
}
