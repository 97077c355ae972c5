package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uiOrderID is the dead order row of uiServer.
const uiOrderID = "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"

// uiMinColumnPx is the narrowest a column of a list may get at a laptop's
// width: room for a short id, a state badge or a date on two lines.
const uiMinColumnPx = 56

// layoutProblems lists what breaks the layout of the page as shown: a
// table wider than the box it sits in, a laptop column narrower than
// uiMinColumnPx, a cell whose content does not fit it, and a page that
// scrolls sideways. Column widths count only where the table has a
// header on the screen (a phone moves it off and shows cards instead).
const layoutProblems = `(() => {
	const out = [];
	const root = document.documentElement;
	if (root.scrollWidth > root.clientWidth) out.push('the page scrolls sideways: ' + root.scrollWidth + ' > ' + root.clientWidth);
	for (const t of document.querySelectorAll('main table')) {
		const name = t.caption ? t.caption.textContent : 'a table';
		const box = t.parentElement;
		if (t.getBoundingClientRect().width > box.clientWidth + 1) out.push(name + ' is wider than its box: ' +
			Math.round(t.getBoundingClientRect().width) + ' > ' + box.clientWidth);
		for (const th of t.querySelectorAll('thead th')) {
			const w = th.getBoundingClientRect().width;
			if (th.getBoundingClientRect().right > 0 && w < %d) out.push(name + ': column ' + th.textContent + ' is ' + Math.round(w) + ' px');
		}
		for (const td of t.querySelectorAll('tbody td')) {
			if (td.scrollWidth > td.clientWidth + 1) out.push(name + ': the ' + td.dataset.label + ' cell clips "' +
				td.textContent.slice(0, 40) + '": ' + td.scrollWidth + ' > ' + td.clientWidth);
		}
	}
	return out;
})()`

// uiInboxRows are dead inbox rows with values as long as real senders
// send, so the inbox list has every column filled.
const uiInboxRows = `
	INSERT INTO inbox (source, idempotency_key, aggregate_id, event_type, payload, state, attempt, last_error)
	SELECT 'stripe-payments', 'evt_1NqK8b2eZvKYlo2C0v6Y8d' || n, 'cus_9s6XKzkNRiz8i3-' || n, 'invoice.payment_failed',
		'{}', 'dead', 5, 'handler answered 500: upstream ledger service unavailable, retry budget spent'
	FROM generate_series(1, 5) AS n;`

// TestAdminUILayout: at a laptop's 1280 px every list keeps readable
// columns inside its box, an id shows a short prefix whose full form is
// one click from the clipboard, and the filters take one line until
// opened; at a phone's 390 px the lists are cards that fit the screen.
func TestAdminUILayout(t *testing.T) {
	t.Parallel()
	s := uiStart(t, uiViewerToken)
	ctx := s.ctx
	psqlExec(t, s.db, uiInboxRows)
	for _, perm := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: perm}, Setting: browser.PermissionSettingGranted, Origin: s.p.url("")})
		require.NoError(t, err)
	}

	lists := []struct{ hash, name string }{
		{"#/messages?table=outbox", "outbox"},
		{"#/messages?table=inbox", "inbox"},
	}
	for _, width := range []struct {
		phone bool
		name  string
	}{{false, "laptop"}, {true, "phone"}} {
		phone(t, ctx, width.phone)
		for _, l := range lists {
			openList(t, ctx, s.p, l.hash)
			shoot(t, ctx, s.dir, width.name+"-"+l.name)
			checkLayout(t, ctx, l.name+" at the "+width.name+" width")
			checkShortFilters(t, ctx, width.name+" "+l.name)
		}
	}

	phone(t, ctx, false)
	openList(t, ctx, s.p, "#/messages?table=outbox&state=dead&topic=order.*")
	waitText(t, ctx, "#filter-panel summary", "order.*")
	waitText(t, ctx, "#filter-panel summary", "dead")
	checkShortFilters(t, ctx, "a set filter")
	cell, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(() => {
		const a = document.querySelector('#results tbody td[data-label="Id"] a');
		return {text: a.textContent, title: a.title, href: a.getAttribute('href')};
	})()`))
	require.NoError(t, err)
	require.Equal(t, uiOrderID[:8]+"…", cell["text"], "the list shows the id's prefix")
	require.Equal(t, uiOrderID, cell["title"], "and the whole id on hover")
	require.Contains(t, cell["href"], uiOrderID, "and links to the message")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#results tbody td[data-label="Id"] button.copy`))))
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Equal(t, uiOrderID, copied, "the copy button copies the whole id")
	shoot(t, ctx, s.dir, "laptop-filtered")
}

// checkLayout marks the test failed, naming each, when the page shows
// one of the layoutProblems.
func checkLayout(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(layoutProblems, uiMinColumnPx)))
	require.NoError(t, err)
	assert.Empty(t, problems, where)
}

// openList opens a message list and waits for its table.
func openList(t *testing.T, ctx context.Context, p *process, hash string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(p.url("/admin/ui/"+hash)),
		chromedp.WaitVisible(chromedp.CSS("#results table")),
	))
}

// checkShortFilters marks the test failed when the filter panel takes
// more than a sixth of the screen, or when the list does not start in the
// screen's upper half.
func checkShortFilters(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	m, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`(() => ({
		panel: document.querySelector('#filters').closest('.panel').getBoundingClientRect().height,
		list: document.querySelector('#results table').getBoundingClientRect().top + scrollY,
		screen: innerHeight,
	}))()`))
	require.NoError(t, err)
	assert.Less(t, m["panel"], m["screen"]/6, "%s: the filter panel is %.0f px high on a %.0f px screen", where, m["panel"], m["screen"])
	assert.Less(t, m["list"], m["screen"]/2, "%s: the list starts %.0f px down a %.0f px screen", where, m["list"], m["screen"])
}
