// The overview: counts per state of both tables, the oldest pending age
// per destination and per source, and the dead rows per topic and source,
// fetched again every few seconds while the page is open. The server
// keeps the 50 topics with the most dead rows and sums the rest in
// deadByTopicOther, shown as the last line of the table. The
// destinations come first, as the compact table of the Destinations page,
// with links to it and to the undelivered rows.
import { get } from './api.js';
import { h, age, status, table, refreshing } from './dom.js';
import { states } from './filters.js';
import { summaryTable } from './destinations.js';

export function overview(main) {
  const out = status();
  const body = h('div', { class: 'grid', id: 'overview' });
  const updated = h('p', { class: 'muted', id: 'updated' });
  main.append(h('h1', {}, 'Overview'), updated, out, body);
  return refreshing({
    out,
    updated,
    // The destinations are a part of their own: a server that cannot
    // read them still shows the counts, with the reason in its panel.
    fetch: () => Promise.all([get('overview').then((r) => r.data),
      get('destinations').then((r) => r.data, (e) => ({ error: e.message }))]),
    // Redraw only on a change, so a refresh does not take the focus
    // away from a link the reader has tabbed to.
    key: (value) => JSON.stringify(value),
    draw: ([data, dests]) => body.replaceChildren(destinationsPanel(dests), ...sections(data || {})),
  });
}

function sections(d) {
  return [
    counts('Outbox', 'outbox', d.outbox),
    counts('Inbox', 'inbox', d.inbox),
    ages('Oldest pending per destination', 'Destination', (d.oldestPending || {}).destinations),
    ages('Oldest pending per source', 'Source', (d.oldestPending || {}).sources),
    dead('Dead per topic', 'Topic', 'topic', 'outbox', d.deadByTopic, d.deadByTopicOther),
    dead('Dead per source', 'Source', 'source', 'inbox', d.deadBySource),
  ];
}

// destinationsPanel spans the grid's width: its table has five columns.
function destinationsPanel(d) {
  return h('section', { class: 'panel span-all', 'aria-label': 'Destinations', id: 'overview-destinations' },
    h('h2', {}, 'Destinations'),
    d.error ? h('p', { class: 'status error' }, d.error) : summaryTable(d),
    d.flowNote ? h('p', { class: 'muted note' }, d.flowNote) : '',
    h('p', { class: 'links' }, h('a', { href: '#/destinations' }, 'All destinations, with their charts →'), ' · ',
      h('a', { href: '#/undelivered' }, 'Undelivered rows →')));
}

function panel(title, content) {
  return h('section', { class: 'panel', 'aria-label': title }, h('h2', {}, title), content);
}

const entries = (m) => Object.entries(m || {}).sort((a, b) => b[1] - a[1]);

function empty(text) {
  return h('p', { class: 'muted' }, text);
}

// counts lists the states in their life-cycle order, then the discarded
// dead rows, each linked to its list.
function counts(title, tableName, m) {
  if (!m) return panel(title, empty('No rows.'));
  const order = [...states[tableName], 'discarded'].filter((s) => s in m);
  const link = (s) => `#/messages?table=${tableName}&state=` + (s === 'discarded' ? 'dead&discarded=true' : s);
  return panel(title, h('ul', { class: 'counts' }, order.map((s) =>
    h('li', {}, h('a', { href: link(s) }, h('span', { class: 'badge state-' + s }, s), h('strong', {}, String(m[s])))))));
}

function ages(title, label, m) {
  const rows = entries(m);
  if (!rows.length) return panel(title, empty('Nothing pending.'));
  return panel(title, table(title, [[label, (r) => r[0]], ['Oldest pending', (r) => age(r[1])]], rows));
}

// dead lists the dead rows per name, most first; other, when the server
// left names out, adds one unlinked line with their sum.
function dead(title, label, param, tableName, m, other) {
  const rows = entries(m);
  if (other && other.topics > 0) rows.push([`${other.topics} other topics`, other.rows, true]);
  if (!rows.length) return panel(title, empty('No dead rows.'));
  const link = (r) => r[2] ? r[0] :
    h('a', { href: `#/messages?table=${tableName}&state=dead&${param}=${encodeURIComponent(r[0])}` }, r[0]);
  return panel(title, table(title, [[label, link], ['Dead', (r) => String(r[1])]], rows));
}
