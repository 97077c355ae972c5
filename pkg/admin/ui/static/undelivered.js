// The undelivered view of GET /admin/undelivered: the outbox rows that
// went dead or keep retrying since a time, counted per destination and
// per failure class, then listed a page at a time, each id short,
// copyable and linked to its message.
import { get } from './api.js';
import { h, field, status, say, when, badge, table, prefixLength, shortId, breakable } from './dom.js';
import { newTrail } from './pager.js';
import { destination } from './messages.js';

const trail = newTrail('#/undelivered');

// filtersOpen keeps the filter panel open across Apply and paging once
// the reader opened it, as on the Messages page.
let filtersOpen = false;

export function undelivered(main, ctx) {
  const params = ctx.params;
  const out = status();
  const counts = h('div', { class: 'grid spaced', id: 'undelivered-counts' });
  const results = h('div', { id: 'results' });
  main.append(h('h1', {}, 'Undelivered'), filterPanel(params), out, counts, results);
  load(params, out, counts, results);
}

// summary names the filter in use in one line.
function summary(params) {
  const parts = ['since ' + (params.get('since') || '24h')];
  if (params.get('destination')) parts.unshift('destination ' + params.get('destination'));
  if (params.get('limit') && params.get('limit') !== '50') parts.push(params.get('limit') + ' per page');
  return parts.join(' · ');
}

function filterPanel(params) {
  const text = summary(params);
  const form = h('form', { class: 'filters', id: 'filters', role: 'search', 'aria-label': 'Filter undelivered rows' },
    field('Destination', { name: 'destination', value: params.get('destination') || '', autocomplete: 'off', list: 'known-destinations' }),
    h('datalist', { id: 'known-destinations' }),
    field('Since (duration or instant)', { name: 'since', value: params.get('since') || '', placeholder: '24h', autocomplete: 'off' }),
    field('Per page', { name: 'limit', type: 'number', min: 1, max: 500, value: params.get('limit') || '50' }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply filters')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const clean = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v !== '') clean.append(k, v);
    location.hash = '#/undelivered?' + clean.toString();
  });
  const panel = h('details', { class: 'panel filter-panel', id: 'filter-panel', open: filtersOpen },
    h('summary', {}, h('span', { class: 'summary-title' }, 'Filters'),
      h('span', { class: 'summary-text', id: 'filter-summary', title: text }, text)),
    form);
  panel.addEventListener('toggle', () => { filtersOpen = panel.open; });
  return panel;
}

async function load(params, out, counts, results) {
  trail.seen(params);
  say(out, 'Loading…');
  let data;
  try {
    data = (await get('undelivered', params)).data;
  } catch (e) {
    say(out, e.message, 'error');
    return;
  }
  const items = data.items || [];
  say(out, `${data.dead} dead and ${data.retrying} retrying since ${new Date(data.since).toLocaleString()}.`);
  const known = document.getElementById('known-destinations');
  if (known) known.replaceChildren(...Object.keys(data.byDestination || {}).map((d) => h('option', { value: d })));
  counts.replaceChildren(byDestination(data.byDestination, params), byClass(data.byClass));
  const n = prefixLength(items.map((r) => r.id));
  results.replaceChildren(
    items.length ? table('Undelivered rows', columns(n), items) : h('p', { class: 'muted' }, 'No row is undelivered.'),
    trail.pager(params, data.nextCursor, 'Pages of undelivered rows'));
}

// byDestination lists the dead and retrying rows of each destination,
// each linked to this view filtered by it.
function byDestination(m, params) {
  const rows = Object.entries(m || {}).sort((a, b) => (b[1].dead + b[1].retrying) - (a[1].dead + a[1].retrying));
  const link = (name) => {
    const q = new URLSearchParams(params);
    q.delete('cursor');
    q.set('destination', name);
    return '#/undelivered?' + q.toString();
  };
  return h('section', { class: 'panel', 'aria-label': 'Per destination', id: 'by-destination' },
    h('h2', {}, 'Per destination'),
    rows.length ? h('ul', { class: 'counts' }, rows.map(([name, c]) => h('li', { 'data-destination': name },
      h('a', { href: link(name) }, h('span', {}, breakable(name)),
        h('span', { class: 'badge state-dead' }, `${c.dead} dead`),
        h('span', { class: 'badge state-pending' }, `${c.retrying} retrying`)))))
      : h('p', { class: 'muted' }, 'None.'));
}

// byClass lists the rows per failure class of their latest attempt.
function byClass(m) {
  const rows = Object.entries(m || {}).sort((a, b) => b[1] - a[1]);
  return h('section', { class: 'panel', 'aria-label': 'Per failure class', id: 'by-class' },
    h('h2', {}, 'Per failure class'),
    rows.length ? h('ul', { class: 'counts' }, rows.map(([cls, n]) => h('li', { 'data-class': cls },
      h('span', { class: 'mono' }, cls), h('strong', {}, String(n)))))
      : h('p', { class: 'muted' }, 'None.'));
}

// columns are the list's columns; an id shows its first n characters.
function columns(n) {
  const id = (r) => shortId(r.id, n, `#/message/${encodeURIComponent(r.id)}?table=outbox`);
  const err = (r) => h('span', { class: 'error-text', title: r.lastError || '' }, short(r.lastError));
  return [['Id', id, 'id'], ['State', (r) => badge(r.state), 'state'], ['Destination', destination, 'text'],
    ['Topic', (r) => r.topic, 'text'], ['Class', (r) => r.failureClass || 'unclassified', 'label'],
    ['Status', (r) => r.lastStatus || '—', 'num'], ['Attempt', (r) => `${r.attempt} / ${r.maxAttempts}`, 'num'],
    ['Last error', err, 'error'], ['Last attempt', (r) => when(r.lastAttemptAt), 'time']];
}

function short(s) {
  if (!s) return '';
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
}
