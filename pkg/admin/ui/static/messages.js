// The message list: every filter of GET /admin/messages and keyset paging.
// Next follows nextCursor; Previous goes back through the cursors this tab
// has followed for the same filter (the route pages forward only).
import { get } from './api.js';
import { h, field, status, say, when, badge, deferral, table, prefixLength, shortId, breakable } from './dom.js';
import { states, textFilters, timeFilters, tableOf, summary } from './filters.js';
import { newTrail } from './pager.js';

// trail holds the cursors behind the current page, for one filter.
const trail = newTrail('#/messages');

// filtersOpen is whether the reader opened the filter panel: it stays
// open across Apply and paging in this tab, and starts closed otherwise,
// so the list, not the form, fills the first screen.
let filtersOpen = false;

export function messages(main, ctx) {
  const params = ctx.params;
  const tbl = tableOf(params);
  const out = status();
  const results = h('div', { id: 'results' });
  main.append(h('h1', {}, 'Messages'), filterPanel(tbl, params), out, results);
  load(tbl, params, out, results);
}

// filterPanel folds the form into one line that names the filter in use.
function filterPanel(tbl, params) {
  const text = summary(tbl, params);
  const panel = h('details', { class: 'panel filter-panel', id: 'filter-panel', open: filtersOpen },
    h('summary', {}, h('span', { class: 'summary-title' }, 'Filters'),
      h('span', { class: 'summary-text', id: 'filter-summary', title: text }, text)),
    filterForm(tbl, params));
  panel.addEventListener('toggle', () => { filtersOpen = panel.open; });
  return panel;
}

function filterForm(tbl, params) {
  const chosen = new Set(params.getAll('state'));
  const tableSelect = h('select', { id: 'f-table', name: 'table' },
    ['outbox', 'inbox'].map((t) => h('option', { value: t, selected: t === tbl }, t)));
  const form = h('form', { class: 'filters', id: 'filters', role: 'search', 'aria-label': 'Filter messages' },
    h('div', { class: 'field' }, h('label', { for: 'f-table' }, 'Table'), tableSelect),
    h('fieldset', { class: 'states' }, h('legend', {}, 'State'),
      states[tbl].map((s) => h('label', { class: 'check' },
        h('input', { type: 'checkbox', name: 'state', value: s, checked: chosen.has(s) }), s))),
    textFilters[tbl].map(([name, label, hint]) =>
      field(label, { name, value: params.get(name) || '', placeholder: hint, autocomplete: 'off' })),
    field('Error contains', { name: 'error', value: params.get('error') || '', autocomplete: 'off' }),
    timeFilters.map(([name, label, hint]) =>
      field(label, { name, value: params.get(name) || '', placeholder: hint, autocomplete: 'off' })),
    field('Per page', { name: 'limit', type: 'number', min: 1, max: 500, value: params.get('limit') || '50' }),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: 'discarded', value: 'true', checked: params.get('discarded') === 'true' }),
      'Show discarded'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply filters')));
  // A new table has other states and fields: keep what both share.
  tableSelect.addEventListener('change', () => {
    const keep = new URLSearchParams(new FormData(form));
    keep.delete('state');
    keep.delete('destination');
    keep.delete('source');
    go(keep);
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    go(new URLSearchParams(new FormData(form)));
  });
  return form;
}

// go shows the first page of a filter, dropping empty parameters.
function go(q) {
  const clean = new URLSearchParams();
  for (const [k, v] of q) if (v !== '') clean.append(k, v);
  location.hash = '#/messages?' + clean.toString();
}

async function load(tbl, params, out, results) {
  trail.seen(params);
  say(out, 'Loading…');
  let data;
  try {
    data = (await get('messages', params)).data;
  } catch (e) {
    say(out, e.message, 'error');
    return;
  }
  const items = data.items || [];
  say(out, items.length ? `${items.length} message${items.length === 1 ? '' : 's'} on this page.` : 'No message matches.');
  const n = prefixLength(items.map((r) => r.id));
  results.replaceChildren(
    items.length ? table('Messages of the ' + tbl, columns(tbl, n), items) : '',
    trail.pager(params, data.nextCursor, 'Pages of messages'));
}

// columns are the list's columns; an id shows its first n characters.
function columns(tbl, n) {
  const id = (r) => shortId(r.id, n, `#/message/${encodeURIComponent(r.id)}?table=${tbl}`);
  const state = (r) => [badge(r.state), r.discarded ? h('span', { class: 'badge discarded' }, 'discarded') : '',
    r.deferral ? [' ', deferral(r.deferral)] : ''];
  const err = (r) => h('span', { class: 'error-text', title: r.lastError || '' }, short(r.lastError));
  if (tbl === 'inbox') {
    return [['Id', id, 'id'], ['State', state, 'state'], ['Source', (r) => r.source, 'text'],
      ['Event type', (r) => r.eventType, 'text'], ['Aggregate id', (r) => r.aggregateId || '', 'text'],
      ['Idempotency key', (r) => r.idempotencyKey, 'text'], ['Consumption', (r) => r.consumption, 'num'],
      ['Attempt', (r) => String(r.attempt), 'num'], ['Last error', err, 'error'],
      ['Received', (r) => when(r.receivedAt), 'time'], ['Processed', (r) => when(r.processedAt), 'time']];
  }
  return [['Id', id, 'id'], ['State', state, 'state'], ['Topic', (r) => r.topic, 'text'], ['Key', (r) => r.key || '', 'text'],
    ['Destination', destination, 'text'], ['Origin', (r) => origin(r, tbl, n), 'id'],
    ['Attempt', (r) => `${r.attempt} / ${r.maxAttempts}`, 'num'],
    ['Last error', err, 'error'], ['Created', (r) => when(r.createdAt), 'time'], ['Sent', (r) => when(r.sentAt), 'time']];
}

// destination is the row's own destination, or, muted, where the routes
// send a row that is not routed yet.
export function destination(r) {
  if (!r.destination) return '—';
  if (r.routed) return h('span', { class: 'destination' }, breakable(r.destination));
  return h('span', { class: 'destination muted', title: 'Not routed yet: where the routes send its topic now' },
    breakable(r.destination));
}

// origin links a delivery of a fan-out to the row the application wrote,
// so the rows of one message can be told apart from other messages.
function origin(r, tbl, n) {
  if (!r.origin) return '';
  return h('a', { href: `#/message/${encodeURIComponent(r.origin)}?table=${tbl}`, class: 'mono origin',
    title: 'A delivery of message ' + r.origin }, r.origin.slice(0, n) + '…');
}

function short(s) {
  if (!s) return '';
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
}
