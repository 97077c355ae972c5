// Small DOM helpers. Every value from the server goes in as text, never as
// HTML, so a payload or an error message cannot inject markup.

// h builds an element: h('a', {href: '#/x', class: 'y'}, 'text', child).
// An attribute on* takes a function as an event listener; a false or null
// attribute is left out.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// status is a live region for the outcome of an action.
export function status() {
  return h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
}

export function say(el, text, kind) {
  el.textContent = text;
  el.className = 'status' + (kind ? ' ' + kind : '');
}

// pretty prints a JSON value with two-space indents.
export const pretty = (v) => JSON.stringify(v, null, 2);

// age turns seconds into "3d 4h", "5m 12s" or "42s".
export function age(seconds) {
  let s = Math.max(0, Math.round(Number(seconds) || 0));
  const parts = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]]) {
    if (s >= size || (unit === 's' && parts.length === 0)) {
      parts.push(Math.floor(s / size) + unit);
      s %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

// when shows a timestamp in the reader's locale, keeping the ISO text as a
// tooltip; empty for null.
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return h('time', { datetime: iso, title: iso }, d.toLocaleString());
}

export function badge(state) {
  return h('span', { class: 'badge state-' + state }, state);
}

// deferral shows why flow control holds a pending outbox row back: the
// pause of its destination (reason, end, and what caused it as a tooltip);
// empty when none does.
export function deferral(d) {
  if (!d) return '';
  const cause = [d.detail, d.replica ? 'replica ' + d.replica : ''].filter(Boolean).join('; ');
  return h('span', { class: 'deferral', 'data-reason': d.reason, title: cause },
    h('span', { class: 'badge deferred' }, 'deferred: ' + d.reason), ' until ', when(d.until));
}

// field is a labelled input; attrs go to the input.
export function field(label, attrs) {
  const id = attrs.id || 'f-' + attrs.name;
  return h('div', { class: 'field' }, h('label', { for: id }, label), h('input', { id, ...attrs }));
}

// table renders rows as a table that turns into cards on a narrow screen
// (each cell then shows its column name from data-label).
export function table(caption, columns, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'cards' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, columns.map(([label]) => h('th', { scope: 'col' }, label)))),
      h('tbody', {}, rows.map((row) => h('tr', {},
        columns.map(([label, cell]) => h('td', { 'data-label': label }, cell(row))))))));
}
