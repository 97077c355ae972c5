// Bulk replay by filter and the list of replay jobs. The replay is two
// steps: a dry run shows how many rows the filter selects, and only then
// does a button move that many. Changing the filter takes the button away
// again, so the count on screen is always the count of the filter sent.
import { get, post } from './api.js';
import { h, field, status, say, when, table, prefixLength, shortId } from './dom.js';
import { timeFilters } from './filters.js';

export function replay(main, ctx) {
  main.append(h('h1', {}, 'Replay'));
  if (ctx.role !== 'admin') {
    main.append(h('p', { class: 'panel' }, 'Your credential is read-only: it can see ',
      h('a', { href: '#/jobs' }, 'replay jobs'), ' but not start one.'));
    return;
  }
  const out = status();
  const confirm = h('div', { id: 'confirm', class: 'confirm', hidden: true });
  const form = replayForm();
  const reset = () => { confirm.hidden = true; confirm.replaceChildren(); };
  form.addEventListener('input', reset);
  form.addEventListener('change', reset);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    reset();
    let body;
    try {
      body = request(form);
    } catch (e) {
      say(out, e.message, 'error');
      return;
    }
    say(out, 'Counting…');
    try {
      const { data } = await post('replay', null, { ...body, dryRun: true });
      const moves = matched(data);
      const adds = data && typeof data.wouldAdd === 'number' ? data.wouldAdd : 0;
      const n = moves + adds;
      say(out, `${moves} row${moves === 1 ? '' : 's'} match this filter` +
        (adds ? `, and ${adds} message${adds === 1 ? '' : 's'} would get a new delivery to ${body.destination}.` : '.'), 'ok');
      if (n > 0) offer(confirm, body, n, out);
    } catch (e) {
      say(out, e.message, 'error');
    }
  });
  main.append(form, out, confirm);
}

// matched reads the dry-run count, whatever name the route gives it.
function matched(d) {
  for (const k of ['matched', 'wouldMove', 'would_move', 'count']) if (d && typeof d[k] === 'number') return d[k];
  return 0;
}

function replayForm() {
  const tableSelect = h('select', { id: 'r-table', name: 'table' },
    h('option', { value: 'outbox' }, 'outbox'), h('option', { value: 'inbox' }, 'inbox'));
  const stateBoxes = h('fieldset', { class: 'states' }, h('legend', {}, 'States'));
  const outboxOnly = [
    field('Topic', { id: 'r-topic', name: 'topic', autocomplete: 'off', placeholder: 'invoice.* (a glob, as in routes)' }),
    field('Destination', { id: 'r-destination', name: 'destination', autocomplete: 'off',
      title: 'Only the deliveries to this destination move; the other destinations of a fan-out receive nothing again. Messages the routes now send here that have no delivery to it get one added.' }),
  ];
  // The routes move sent and dead outbox rows and dead inbox rows; topic
  // and destination select outbox rows only.
  const fillTable = () => {
    const inbox = tableSelect.value === 'inbox';
    stateBoxes.replaceChildren(stateBoxes.firstChild, ...(inbox ? ['dead'] : ['sent', 'dead']).map((s) =>
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'states', value: s, checked: s === 'dead' }), s)));
    for (const f of outboxOnly) {
      f.hidden = inbox;
      f.querySelector('input').disabled = inbox;
    }
  };
  tableSelect.addEventListener('change', fillTable);
  fillTable();
  return h('form', { class: 'panel filters', id: 'replay-form', 'aria-label': 'Replay filter' },
    h('div', { class: 'field' }, h('label', { for: 'r-table' }, 'Table'), tableSelect),
    stateBoxes,
    outboxOnly,
    timeFilters.map(([name, label, hint]) => field(label, { id: 'r-' + name, name, placeholder: hint, autocomplete: 'off' })),
    h('div', { class: 'field wide' }, h('label', { for: 'r-ids' }, 'Ids (one per line)'),
      h('textarea', { id: 'r-ids', name: 'ids', rows: 3, spellcheck: 'false' })),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', id: 'dry-run' }, 'Count matching rows')));
}

// request turns the form into the body of POST /admin/replay; it throws
// when the filter is empty, which the route refuses anyway.
function request(form) {
  const data = new FormData(form);
  const body = { table: data.get('table') };
  const st = data.getAll('states');
  if (st.length) body.states = st;
  for (const k of ['topic', 'destination', 'createdAfter', 'createdBefore']) {
    const v = String(data.get(k) || '').trim();
    if (v) body[k] = v;
  }
  const ids = String(data.get('ids') || '').split(/[\s,]+/).filter(Boolean);
  if (ids.length) body.ids = ids;
  if (!body.states && !body.topic && !body.destination && !body.createdAfter && !body.createdBefore && !body.ids) {
    throw new Error('Give at least one filter: a state, topic, destination, time window or ids.');
  }
  return body;
}

function offer(confirm, body, n, out) {
  const go = h('button', { type: 'button', class: 'danger', id: 'replay-confirm' }, `Replay ${n} row${n === 1 ? '' : 's'}`);
  go.addEventListener('click', async () => {
    go.disabled = true;
    try {
      const { status: code, data } = await post('replay', null, body);
      confirm.replaceChildren();
      if (code === 202 && data && data.job) {
        say(out, `Replay job started for ${data.matched} rows.`, 'ok');
        confirm.append(h('p', {}, h('a', { href: '#/jobs', id: 'job-link' }, 'Follow job ' + data.job)));
      } else {
        const added = data && typeof data.added === 'number' ? data.added : 0;
        say(out, `Replayed: ${data && typeof data.moved === 'number' ? data.moved : 0} rows moved to pending` +
          (added ? `, ${added} deliveries added.` : '.'), 'ok');
      }
    } catch (e) {
      say(out, e.message, 'error');
      go.disabled = false;
    }
  });
  confirm.append(h('p', {}, `This moves the ${n} matching rows back to pending; they will be delivered again.`),
    h('div', { class: 'actions' }, go));
  confirm.hidden = false;
  go.focus();
}

// jobs lists the recent replay jobs with their progress, refreshed while
// one is still running.
export function jobs(main) {
  const out = status();
  const list = h('div', { id: 'jobs' });
  main.append(h('h1', {}, 'Replay jobs'), out, list);
  let alive = true;
  let timer = null;
  async function load() {
    let running = false;
    try {
      const items = ((await get('replay')).data || {}).items || [];
      if (!alive) return;
      running = items.some((j) => !j.done);
      const n = prefixLength(items.map((j) => j.job));
      list.replaceChildren(items.length ? table('Recent replay jobs', jobColumns(n), items) : h('p', { class: 'muted' }, 'No replay job yet.'));
      say(out, '');
    } catch (e) {
      if (alive) say(out, e.message, 'error');
    }
    if (alive && running) timer = setTimeout(load, 2000);
  }
  load();
  return () => {
    alive = false;
    clearTimeout(timer);
  };
}

// jobColumns are the jobs list's columns; a job id shows its first n
// characters.
const jobColumns = (n) => [
  ['Job', (j) => shortId(j.job, n), 'id'],
  ['Table', (j) => j.table, 'num'],
  ['Progress', (j) => h('span', { class: 'progress' },
    h('progress', { max: Math.max(j.matched, 1), value: j.moved, 'aria-label': `job ${j.job} progress` }),
    ` ${j.moved} / ${j.matched}`)],
  ['State', (j) => (j.error ? h('span', { class: 'error-text' }, 'failed: ' + j.error) : j.done ? 'done' : 'running'), 'error'],
  ['Started', (j) => when(j.createdAt), 'time'],
  ['Finished', (j) => when(j.finishedAt), 'time'],
];
