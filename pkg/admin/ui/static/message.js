// The message view: every column of one row, payload and headers pretty
// printed, for an outbox row the timeline of its message's attempts from
// the delivery ledger, and for an admin the resend (with an editor for the
// outbox payload and headers that refuses invalid JSON) and the discard.
import { get, post } from './api.js';
import { h, status, say, pretty, when, badge, deferral, table, prefixLength, shortId, copyButton } from './dom.js';
import { tableOf } from './filters.js';
import { destination } from './messages.js';

// Shown in the details list in this order; every other field follows.
const first = ['id', 'messageId', 'state', 'deferral', 'discarded', 'topic', 'key', 'route', 'destination', 'routed', 'origin', 'source', 'eventType',
  'aggregateId', 'idempotencyKey', 'consumption', 'attempt', 'maxAttempts', 'lastError'];
const shownApart = new Set(['payload', 'headers', 'deliveries']);

export function message(main, ctx) {
  const tbl = tableOf(ctx.params);
  const out = status();
  const body = h('div', { id: 'message' });
  main.append(h('p', {}, h('a', { href: '#/messages?table=' + tbl }, '← Messages')),
    h('h1', {}, 'Message ', h('span', { class: 'mono' }, ctx.arg), ' ', copyButton(ctx.arg)), out, body);
  show(tbl, ctx, out, body);
}

async function show(tbl, ctx, out, body) {
  const params = new URLSearchParams({ table: tbl });
  let row;
  try {
    row = (await get('messages/' + encodeURIComponent(ctx.arg), params)).data;
  } catch (e) {
    say(out, e.status === 404 ? 'No such message in the ' + tbl + '.' : e.message, 'error');
    return;
  }
  say(out, '');
  const reload = () => show(tbl, ctx, out, body);
  const timeline = tbl === 'outbox' ? h('section', { class: 'panel', id: 'attempts', 'aria-label': 'Attempts' },
    h('h2', {}, 'Attempts'), h('p', { class: 'muted' }, 'Reading the delivery ledger…')) : '';
  body.replaceChildren(
    details(row),
    row.deliveries ? deliveries(row) : '',
    timeline,
    h('section', { class: 'panel', 'aria-label': 'Payload' }, h('h2', {}, 'Payload'), h('pre', { id: 'payload', tabindex: 0 }, pretty(row.payload))),
    h('section', { class: 'panel', 'aria-label': 'Headers' }, h('h2', {}, 'Headers'), h('pre', { id: 'headers', tabindex: 0 }, pretty(row.headers || {}))),
    ctx.role === 'admin' ? actions(tbl, row, out, reload) : '');
  if (timeline) attempts(row, timeline);
}

// attempts fills the timeline of the message's attempts, newest first:
// when each started, its attempt number and destination, what came of it,
// the destination's status, how long it took and the start of its
// answer. The ledger is read apart from the row, so a failure to read it
// leaves the rest of the page as it is.
async function attempts(row, section) {
  let data;
  try {
    data = (await get(`messages/${encodeURIComponent(row.id)}/attempts`)).data;
  } catch (e) {
    section.replaceChildren(h('h2', {}, 'Attempts'), h('p', { class: 'status error' }, e.message));
    return;
  }
  const items = data.items || [];
  const several = new Set(items.map((a) => a.destination)).size > 1;
  const note = items.length === 0
    ? 'The delivery ledger holds no attempt of this message (none yet, the ledger is off, or retention removed them).'
    : data.truncated ? `The newest ${items.length} attempts; older ones are left out.` : '';
  section.replaceChildren(h('h2', {}, 'Attempts'), note ? h('p', { class: 'muted' }, note) : '',
    items.length ? h('ol', { class: 'timeline', 'aria-label': 'Attempts of message ' + row.messageId },
      items.map((a) => attempt(a, several))) : '');
}

// attempt is one entry of the timeline.
function attempt(a, several) {
  const facts = [
    h('span', { class: 'attempt-number' }, 'attempt ' + a.attempt),
    several || a.destination ? h('span', { class: 'attempt-destination' }, '→ ' + (a.destination || 'no destination')) : '',
    h('span', { class: 'badge outcome-' + a.outcome }, a.outcome),
    a.failureClass ? h('span', { class: 'attempt-class' }, a.failureClass) : '',
    a.status ? h('span', { class: 'attempt-status mono' }, a.status) : '',
    h('span', { class: 'attempt-duration' }, duration(a.durationMs)),
  ];
  return h('li', { class: 'attempt outcome-' + a.outcome, 'data-outcome': a.outcome },
    h('div', { class: 'attempt-head' }, when(a.startedAt), facts),
    a.answer ? h('pre', { class: 'attempt-answer' }, a.answer) : '');
}

// duration shows milliseconds under a second, else seconds.
function duration(ms) {
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
}

function details(row) {
  const keys = [...first.filter((k) => k in row), ...Object.keys(row).filter((k) => !first.includes(k) && !shownApart.has(k))];
  return h('section', { class: 'panel', 'aria-label': 'Details' }, h('h2', {}, 'Details'),
    h('dl', { class: 'details' }, keys.map((k) => [h('dt', {}, k), h('dd', { 'data-field': k }, value(k, row[k]))])));
}

// deliveries lists every row of the message this row belongs to: the row
// the application wrote and the deliveries QueueBox added for the other
// destinations of a fan-out route, each with its own state. A delivery's
// own page resends or discards it alone.
function deliveries(row) {
  const n = prefixLength(row.deliveries.map((r) => r.id));
  const id = (r) => r.id === row.id
    ? shortId(r.id, n, null, h('span', { class: 'muted', 'aria-current': 'page' }, '(this row)'))
    : shortId(r.id, n, `#/message/${encodeURIComponent(r.id)}?table=outbox`);
  const state = (r) => [badge(r.state), r.discarded ? h('span', { class: 'badge discarded' }, 'discarded') : ''];
  return h('section', { class: 'panel', id: 'deliveries', 'aria-label': 'Deliveries' },
    h('h2', {}, 'Deliveries'),
    h('p', { class: 'muted' }, row.deliveries.length > 1
      ? `This message goes to ${row.deliveries.length} destinations; each delivery has its own state, attempts and error.`
      : 'This message has one delivery.'),
    table('Deliveries of message ' + row.messageId, [['Destination', destination, 'text'], ['State', state, 'state'],
      ['Id', id, 'id'], ['Attempt', (r) => `${r.attempt} / ${r.maxAttempts}`, 'num'],
      ['Last error', (r) => h('span', { class: 'error-text' }, r.lastError || ''), 'error'],
      ['Sent', (r) => when(r.sentAt), 'time']],
    row.deliveries));
}

function value(k, v) {
  if (v === null || v === undefined || v === '') return h('span', { class: 'muted' }, '—');
  if (k === 'state') return badge(v);
  if (k === 'deferral') return [deferral(v), v.detail ? h('pre', { class: 'error-text' }, v.detail) : ''];
  if (k === 'lastError') return h('pre', { class: 'error-text' }, v);
  if (/At$/.test(k)) return when(v);
  if (typeof v === 'object') return h('code', {}, JSON.stringify(v));
  return String(v);
}

// actions offers what the row's state allows: the routes take back a dead
// row (and a sent outbox row) and discard only a dead one.
// The outcome goes to the page's status line, which outlives the reload.
function actions(tbl, row, out, reload) {
  const canResend = row.state === 'dead' || (tbl === 'outbox' && row.state === 'sent');
  const canDiscard = row.state === 'dead' && !row.discarded;
  if (!canResend && !canDiscard) return '';
  return h('section', { class: 'panel', 'aria-label': 'Actions' }, h('h2', {}, 'Actions'),
    canResend ? resend(tbl, row, out, reload) : '',
    canDiscard ? discard(tbl, row, out, reload) : '');
}

// editor is a labelled textarea that checks its JSON on every keystroke
// and reports the parsed value through onChange (undefined when invalid).
function editor(id, label, initial, onChange) {
  const err = h('p', { class: 'field-error', id: id + '-error', role: 'alert' });
  const area = h('textarea', { id, rows: 10, spellcheck: 'false', 'aria-describedby': id + '-error' }, pretty(initial));
  area.addEventListener('input', () => {
    try {
      const v = JSON.parse(area.value);
      err.textContent = '';
      area.removeAttribute('aria-invalid');
      onChange(v);
    } catch (e) {
      err.textContent = 'Invalid JSON: ' + e.message;
      area.setAttribute('aria-invalid', 'true');
      onChange(undefined);
    }
  });
  return h('div', { class: 'field' }, h('label', { for: id }, label), area, err);
}

function resend(tbl, row, out, reload) {
  const button = h('button', { type: 'button', class: 'primary', id: 'resend' },
    tbl === 'outbox' ? 'Resend with this payload and these headers' : 'Resend');
  const edited = { payload: row.payload, headers: row.headers || {} };
  const valid = { payload: true, headers: true };
  const changed = (name) => (v) => {
    valid[name] = v !== undefined;
    if (valid[name]) edited[name] = v;
    button.disabled = !(valid.payload && valid.headers);
  };
  const fields = tbl === 'outbox'
    ? [editor('edit-payload', 'Payload (JSON)', row.payload, changed('payload')),
      editor('edit-headers', 'Headers (JSON object)', row.headers || {}, changed('headers'))]
    : [h('p', {}, 'The row goes back to pending as it is.')];
  button.addEventListener('click', async () => {
    // Only what the operator changed is sent, so an unchanged resend logs
    // no edit.
    const body = {};
    if (tbl === 'outbox' && pretty(edited.payload) !== pretty(row.payload)) body.payload = edited.payload;
    if (tbl === 'outbox' && pretty(edited.headers) !== pretty(row.headers || {})) body.headers = edited.headers;
    button.disabled = true;
    try {
      const { data } = await post(`messages/${encodeURIComponent(row.id)}/resend`, new URLSearchParams({ table: tbl }), body);
      await reload();
      say(out, `Resent: the row is ${data && data.state ? data.state : 'pending'} again.`, 'ok');
    } catch (e) {
      say(out, e.message, 'error');
      button.disabled = false;
    }
  });
  return h('div', { class: 'resend' }, h('h3', {}, 'Resend'), fields, h('div', { class: 'actions' }, button));
}

function discard(tbl, row, out, reload) {
  const ask = h('button', { type: 'button', id: 'discard', class: 'danger' }, 'Discard…');
  const confirm = h('div', { class: 'confirm', hidden: true },
    h('p', {}, 'Discard marks the dead row so lists hide it; it stays in the table until retention removes it.'));
  const yes = h('button', { type: 'button', class: 'danger', id: 'discard-confirm' }, 'Discard this row');
  const no = h('button', { type: 'button' }, 'Cancel');
  confirm.append(h('div', { class: 'actions' }, yes, no));
  ask.addEventListener('click', () => { confirm.hidden = false; yes.focus(); });
  no.addEventListener('click', () => { confirm.hidden = true; ask.focus(); });
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    try {
      await post(`messages/${encodeURIComponent(row.id)}/discard`, new URLSearchParams({ table: tbl }));
      await reload();
      say(out, 'Discarded.', 'ok');
    } catch (e) {
      say(out, e.message, 'error');
      yes.disabled = false;
    }
  });
  return h('div', { class: 'discard' }, h('h3', {}, 'Discard'), h('div', { class: 'actions' }, ask), confirm);
}
