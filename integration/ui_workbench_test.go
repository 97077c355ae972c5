package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
)

const (
	uiAdminToken  = "ui-adm1n-t0ken-0123456789"
	uiViewerToken = "ui-v1ewer-t0ken-0123456789"
	// uiBulkRows is above the 500 rows that one replay request moves, so
	// the bulk replay runs as a job and the jobs page shows it.
	uiBulkRows = 600
)

// uiServer starts queuebox with the admin routes, the admin and viewer
// bearer tokens, every topic routed to rc, and dead rows to work on: one
// order.created row to fix by hand, uiBulkRows invoice.paid rows to
// replay in bulk, and a sent row no dead filter shows. extra are more
// variables, name then value.
func uiServer(t *testing.T, rc *brokertest.HTTPReceiver, extra ...string) (*process, database) {
	t.Helper()
	db := newDatabase(t)
	env := with(destinationEnv(db.env(), rc.URL),
		"QUEUEBOX_ADMIN_ENABLED", "true",
		"QUEUEBOX_ADMIN_AUTH_TYPE", "bearer", "QUEUEBOX_ADMIN_AUTH_TOKEN", uiAdminToken,
		"QUEUEBOX_ADMIN_VIEWER_TYPE", "bearer", "QUEUEBOX_ADMIN_VIEWER_TOKEN", uiViewerToken)
	env = with(env, extra...)
	p := startServing(t, "queuebox", env)
	psqlExec(t, db, fmt.Sprintf(`
		INSERT INTO outbox (id, topic, key, payload, headers, state, attempt, last_error) VALUES
			('3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10', 'order.created', 'o-1', '{"order":1,"total":"12,50"}',
			 '{"X-Tenant":"acme"}', 'dead', 5, 'HTTP 422 Unprocessable Entity: total is not a number');
		INSERT INTO outbox (topic, payload, state, attempt) VALUES ('order.created', '{"order":0}', 'sent', 1);
		INSERT INTO outbox (topic, key, payload, state, attempt, last_error)
			SELECT 'invoice.paid', 'inv-' || n, json_build_object('invoice', n), 'dead', 5, 'HTTP 503'
			FROM generate_series(1, %d) AS n;`, uiBulkRows))
	return p, db
}

// signIn opens the UI and signs in with a bearer token, then waits for
// the overview to show the counts.
func signIn(t *testing.T, ctx context.Context, p *process, token string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/")),
		chromedp.WaitVisible(chromedp.CSS("#signin")),
		chromedp.SendKeys(chromedp.CSS("#f-secret"), token),
		chromedp.Click(chromedp.CSS("#signin button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#overview section")),
	))
}

// uiSession is one browser signed in to one queuebox process.
type uiSession struct {
	p   *process
	db  database
	rc  *brokertest.HTTPReceiver
	ctx context.Context
	dir string // where shoot saves the screenshots
}

// uiStart starts the server of uiServer and a browser signed in to it
// with token.
func uiStart(t *testing.T, token string) uiSession {
	t.Helper()
	s := uiSession{rc: brokertest.NewHTTPReceiver(t, nil)}
	s.p, s.db = uiServer(t, s.rc)
	s.ctx, s.dir = newBrowser(t), screenshots(t)
	signIn(t, s.ctx, s.p, token)
	return s
}

// waitText waits until the element's text contains want.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	js := fmt.Sprintf(`new Promise((resolve) => { const check = () => {
		const el = document.querySelector(%q);
		if (el && el.textContent.includes(%q)) resolve(true); else setTimeout(check, 50); }; check(); })`, sel, want)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "waiting for %q in %s", want, sel)
}

// TestAdminUIOperator walks the operator's night in a real browser
// against the built binary: filter the dead rows, open one, fix its
// payload in the editor (which refuses invalid JSON) and resend it, so the
// receiver gets the fixed payload; then count a bulk replay with a dry
// run, confirm it, follow its job, and see every row delivered.
func TestAdminUIOperator(t *testing.T) {
	t.Parallel()
	s := uiStart(t, uiAdminToken)
	p, rc, ctx, dir := s.p, s.rc, s.ctx, s.dir
	waitText(t, ctx, "#overview", "invoice.paid")
	shoot(t, ctx, dir, "01-overview")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#nav a[href="#/messages"]`)),
		chromedp.Click(chromedp.CSS("#filter-panel summary")),
		chromedp.WaitVisible(chromedp.CSS("#filters")),
		chromedp.Click(chromedp.CSS(`#filters input[value="dead"]`)),
		chromedp.SendKeys(chromedp.CSS("#f-topic"), "order.*"),
		chromedp.Click(chromedp.CSS("#filters button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#results table")),
	))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#results tbody tr')].map((r) => r.textContent)`))
	require.NoError(t, err)
	require.Len(t, rows, 1, "the filter shows the dead order row only")
	require.Contains(t, rows[0], uiOrderID[:8])
	require.Contains(t, rows[0], "total is not a number")
	shoot(t, ctx, dir, "02-messages")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#results tbody a")),
		chromedp.WaitVisible(chromedp.CSS("#edit-payload")),
	))
	waitText(t, ctx, "#payload", `"total": "12,50"`)
	waitText(t, ctx, `[data-field="destination"]`, "webhook")
	shoot(t, ctx, dir, "03-message")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Clear(chromedp.CSS("#edit-payload")),
		chromedp.SendKeys(chromedp.CSS("#edit-payload"), `{"order":1,"total":12.5`),
		chromedp.WaitVisible(chromedp.CSS("#resend[disabled]")),
	))
	waitText(t, ctx, "#edit-payload-error", "Invalid JSON")
	shoot(t, ctx, dir, "04-invalid-json")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#edit-payload"), `}`),
		chromedp.WaitVisible(chromedp.CSS("#resend:not([disabled])")),
		chromedp.Click(chromedp.CSS("#resend")),
	))
	waitText(t, ctx, "main .status", "Resent")
	require.Eventually(t, func() bool { return deliveredOrder(rc, 1) != "" }, time.Minute, 20*time.Millisecond)
	require.JSONEq(t, `{"order":1,"total":12.5}`, deliveredOrder(rc, 1), "the receiver gets the edited payload")

	// Keyset paging: Next shows other rows, Previous the first page again.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/#/messages?table=outbox&state=dead&limit=250")),
		chromedp.WaitVisible(chromedp.CSS("#results table")),
	))
	first := firstRow(t, ctx, "")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next"))))
	second := firstRow(t, ctx, first)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#prev"))))
	require.Equal(t, first, firstRow(t, ctx, second))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#nav a[href="#/replay"]`)),
		chromedp.WaitVisible(chromedp.CSS("#replay-form")),
		chromedp.SendKeys(chromedp.CSS("#r-topic"), "invoice.paid"),
		chromedp.Click(chromedp.CSS("#dry-run")),
		chromedp.WaitVisible(chromedp.CSS("#replay-confirm")),
	))
	waitText(t, ctx, "#replay-confirm", fmt.Sprintf("Replay %d rows", uiBulkRows))
	shoot(t, ctx, dir, "05-replay-dry-run")
	require.Zero(t, countDelivered(rc, `"invoice"`), "the dry run moves nothing")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#replay-confirm"))))
	waitText(t, ctx, "main .status", "Replay")
	require.Eventually(t, func() bool { return countDelivered(rc, `"invoice"`) >= uiBulkRows }, 3*time.Minute, 50*time.Millisecond)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#nav a[href="#/jobs"]`)),
		chromedp.WaitVisible(chromedp.CSS("#jobs table")),
	))
	waitText(t, ctx, "#jobs tbody", fmt.Sprintf("%d / %d", uiBulkRows, uiBulkRows))
	shoot(t, ctx, dir, "06-jobs")
	checkLayout(t, ctx, "the jobs page")

	phone(t, ctx, true)
	for _, page := range []struct{ hash, ready, name string }{
		{"#/overview", "#overview section", "07-phone-overview"},
		{"#/messages?table=outbox&state=sent&topic=order.*", "#results table", "08-phone-messages"},
		{"#/message/3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10?table=outbox", "#payload", "09-phone-message"},
	} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p.url("/admin/ui/"+page.hash)), chromedp.WaitVisible(chromedp.CSS(page.ready))))
		shoot(t, ctx, dir, page.name)
		checkLayout(t, ctx, page.name)
	}
}

// TestAdminUIViewer: the viewer credential reads every page but the UI
// shows it no write control, and a write forged from the page with that
// credential gets 403 and moves nothing.
func TestAdminUIViewer(t *testing.T) {
	t.Parallel()
	s := uiStart(t, uiViewerToken)
	p, db, ctx, dir := s.p, s.db, s.ctx, s.dir
	waitText(t, ctx, "#who", "viewer")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/#/message/3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10?table=outbox")),
		chromedp.WaitVisible(chromedp.CSS("#payload")),
	))
	shoot(t, ctx, dir, "01-viewer-message")
	requireNoWriteControl(t, ctx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/#/replay")),
		chromedp.WaitVisible(chromedp.CSS("main p.panel")),
	))
	shoot(t, ctx, dir, "02-viewer-replay")
	requireNoWriteControl(t, ctx)

	forge := `(async () => {
		const c = JSON.parse(sessionStorage.getItem('queuebox.admin.credential'));
		const send = (path, body) => fetch(path, {method: 'POST', headers: {Authorization: 'Bearer ' + c.secret,
			'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then((r) => r.status);
		return [await send('../messages/3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10/resend?table=outbox', {payload: {forged: true}}),
			await send('../replay', {topic: 'invoice.paid'})];
	})()`
	codes, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](forge, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Equal(t, []int{http.StatusForbidden, http.StatusForbidden}, codes)
	require.Equal(t, [][]string{{"dead", fmt.Sprint(uiBulkRows + 1)}},
		psqlRows(t, db, `SELECT state, count(*) FROM outbox WHERE state <> 'sent' GROUP BY state`), "the forged writes moved nothing")

	// A pending row whose destination a replica paused shows the pause in
	// the list and on its page.
	_, err = db.connect(t).Exec(context.Background(), `
		INSERT INTO outbox (id, topic, payload, scheduled_at)
		VALUES ('5b0c9a2e-1d3f-4e5a-8b6c-7d8e9f0a1b2c', 'order.created', '{}', now() + interval '30 minutes');
		INSERT INTO queuebox_destination_pauses (destination, replica, reason, detail, until_at)
		VALUES ('webhook', 'deliver-1/7/abc123', 'circuit_open', '5 consecutive failed attempts', now() + interval '30 minutes')`)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/#/messages?table=outbox&state=pending")),
		chromedp.WaitVisible(chromedp.CSS("#results table")),
	))
	waitText(t, ctx, "#results tbody", "deferred: circuit_open")
	shoot(t, ctx, dir, "03-viewer-deferred")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/#/message/5b0c9a2e-1d3f-4e5a-8b6c-7d8e9f0a1b2c?table=outbox")),
		chromedp.WaitVisible(chromedp.CSS("#payload")),
	))
	waitText(t, ctx, `[data-field="deferral"]`, "5 consecutive failed attempts")
}

// firstRow waits until the list's first row has an id other than not,
// and returns it.
func firstRow(t *testing.T, ctx context.Context, not string) string {
	t.Helper()
	js := fmt.Sprintf(`new Promise((resolve) => { const check = () => {
		const a = document.querySelector('#results tbody a');
		if (a && a.textContent !== %q) resolve(a.textContent); else setTimeout(check, 50); }; check(); })`, not)
	id, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	return id
}

// requireNoWriteControl fails when the page shows a control that writes.
func requireNoWriteControl(t *testing.T, ctx context.Context) {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`document.querySelectorAll('#resend, #discard, #discard-confirm, #edit-payload, #edit-headers, #replay-form, #dry-run, #replay-confirm, button.danger').length`))
	require.NoError(t, err)
	require.Zero(t, n, "a viewer sees no write control")
}

// deliveredOrder returns the body of the first request whose JSON body
// has "order": n, or "".
func deliveredOrder(rc *brokertest.HTTPReceiver, n float64) string {
	for _, r := range rc.Requests() {
		var body map[string]any
		if json.Unmarshal([]byte(r.Body), &body) == nil && body["order"] == n {
			return r.Body
		}
	}
	return ""
}

func countDelivered(rc *brokertest.HTTPReceiver, part string) int {
	n := 0
	for _, r := range rc.Requests() {
		if strings.Contains(r.Body, part) {
			n++
		}
	}
	return n
}
