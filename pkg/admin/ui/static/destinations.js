// The destinations page: one panel per destination of GET
// /admin/destinations with its flow control, its pending rows, the
// attempts of the last 5 minutes and hour, and a chart of the hour per
// minute; fetched again every few seconds while the page is open. The
// overview shows the same figures as one compact table (summaryTable).
import { get } from './api.js';
import { h, age, status, when, table, breakable, refreshing } from './dom.js';
import { chart } from './chart.js';

export function destinations(main) {
  const out = status();
  const note = h('p', { class: 'note', id: 'flow-note', hidden: true });
  const body = h('div', { class: 'grid wide-panels', id: 'destinations' });
  const updated = h('p', { class: 'muted', id: 'destinations-updated' });
  main.append(h('h1', {}, 'Destinations'), updated,
    h('p', {}, h('a', { href: '#/undelivered' }, 'Undelivered rows →')), note, out, body);
  return refreshing({
    out,
    updated,
    fetch: async () => (await get('destinations')).data,
    // Redraw on a change of the figures or of the minute (the chart's
    // window moves), not on every refresh, so the focus stays put.
    key: (data) => JSON.stringify(data) + Math.floor(Date.now() / 60000),
    draw: (data) => {
      note.hidden = !data.flowNote;
      note.textContent = data.flowNote || '';
      const items = data.items || [];
      body.replaceChildren(...(items.length ? items.map((d) => panel(d, data.windowMinutes, data.recentMinutes))
        : [h('p', { class: 'muted' }, 'No destination is configured.')]));
    },
  });
}

// breaker is the breaker's state as a badge, or a dash when this process
// shows no flow control or the destination has no breaker.
export function breaker(flow) {
  if (!flow) return h('span', { class: 'muted', title: 'Flow control is shown by the deliver process' }, '—');
  if (!flow.breakerEnabled) return h('span', { class: 'muted' }, 'off');
  return h('span', { class: 'badge breaker-' + flow.breaker }, flow.breaker);
}

const oldest = (d) => (d.oldestPendingAgeMs === null || d.oldestPendingAgeMs === undefined ? '—' : age(d.oldestPendingAgeMs / 1000));

// pair shows "sent / failed", the failed part marked when above zero.
function pair(sent, failed) {
  return h('span', { class: 'pair' }, h('span', { class: 'sent-count' }, String(sent)), ' / ',
    h('span', { class: failed > 0 ? 'failed-count' : '' }, String(failed)));
}

function panel(d, windowMinutes, recentMinutes) {
  const f = d.flow;
  const facts = [
    ['Breaker', f ? [breaker(f), f.openUntil ? [' until ', when(f.openUntil)] : ''] : breaker(f)],
    f && f.pausedUntil ? ['Paused (Retry-After)', ['until ', when(f.pausedUntil)]] : null,
    f && f.detail ? ['Cause', h('span', { class: 'error-text' }, f.detail)] : null,
    f ? ['In flight', `${f.inFlight} of ${f.maxInFlight || '∞'}`] : null,
    f ? ['Deferred', deferred(f.deferred)] : null,
    ['Pending', String(d.pending)],
    ['Oldest pending', oldest(d)],
    [`Sent / failed, ${recentMinutes} min`, pair(d.sent5m, d.failed5m)],
    [`Sent / failed, ${windowMinutes / 60 === 1 ? '1 h' : windowMinutes + ' min'}`, pair(d.sent1h, d.failed1h)],
  ].filter(Boolean);
  return h('section', { class: 'panel destination', 'aria-label': 'Destination ' + d.name, 'data-name': d.name },
    h('h2', {}, breakable(d.name)),
    h('dl', { class: 'details' }, facts.map(([k, v]) => [h('dt', {}, k), h('dd', { 'data-fact': k }, v)])),
    chart(d.name, d.minutes, windowMinutes),
    h('p', { class: 'links' },
      h('a', { href: `#/undelivered?destination=${encodeURIComponent(d.name)}` }, 'Undelivered'), ' · ',
      h('a', { href: `#/messages?table=outbox&state=pending&destination=${encodeURIComponent(d.name)}` }, 'Pending rows')));
}

// deferred lists the rows held back since the process started, by reason.
function deferred(m) {
  const rows = Object.entries(m || {}).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  if (!rows.length) return 'none';
  return rows.map(([reason, n]) => `${reason} ${n}`).join(', ');
}

// summaryTable is the overview's compact table of the destinations.
export function summaryTable(data) {
  const items = (data && data.items) || [];
  if (!items.length) return h('p', { class: 'muted' }, 'No destination is configured.');
  const recent = (data && data.recentMinutes) || 5;
  return table('Destinations', [
    ['Destination', (d) => h('a', { href: '#/destinations' }, breakable(d.name)), 'text'],
    ['Breaker', (d) => breaker(d.flow), 'state'],
    ['Pending', (d) => String(d.pending), 'num'],
    ['Oldest', oldest, 'num'],
    [`Sent / failed ${recent} min`, (d) => pair(d.sent5m, d.failed5m), 'num'],
  ], items);
}
