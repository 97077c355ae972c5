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

// prefixLength is how many leading characters tell the ids apart: at
// least min, more only when two ids share their first min characters (as
// time-ordered ids written in the same instant do).
export function prefixLength(ids, min = 8) {
  const distinct = new Set(ids).size;
  const longest = Math.max(min, ...ids.map((id) => String(id).length));
  for (let n = min; n < longest; n++) {
    if (new Set(ids.map((id) => String(id).slice(0, n))).size === distinct) return n;
  }
  return longest;
}

// shortId shows the first n characters of an id, the whole id as the
// tooltip, and a button that copies the whole id. With href the prefix
// links there; after is shown between the prefix and the button.
export function shortId(id, n, href, after) {
  const full = String(id);
  const text = full.length > n ? full.slice(0, n) + '…' : full;
  const attrs = { class: 'mono', title: full };
  return h('span', { class: 'short-id' }, href ? h('a', { href, ...attrs }, text) : h('span', attrs, text),
    after || '', copyButton(full));
}

// copyButton copies text to the clipboard and says so for a moment.
export function copyButton(text) {
  const b = h('button', { type: 'button', class: 'copy', title: 'Copy the whole id', 'aria-label': 'Copy id ' + text });
  b.addEventListener('click', async () => {
    const ok = await copyText(text);
    b.dataset.copied = ok ? 'yes' : 'no';
    b.title = ok ? 'Copied' : 'Not copied';
    setTimeout(() => {
      delete b.dataset.copied;
      b.title = 'Copy the whole id';
    }, 1500);
  });
  return b;
}

// copyText puts text on the clipboard and reports whether it could. The
// clipboard API needs a secure context (https or localhost), so an admin
// port reached by plain http over the network falls back to selecting the
// text in a hidden field and the copy command, and last to a prompt that
// shows the text selected for the reader to copy by hand.
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no focus, no permission): try the older way below.
  }
  const area = h('textarea', { class: 'offscreen', readonly: true, 'aria-hidden': 'true', tabindex: -1 }, text);
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  if (!ok) window.prompt('Copy the id:', text);
  return ok;
}

// field is a labelled input; attrs go to the input.
export function field(label, attrs) {
  const id = attrs.id || 'f-' + attrs.name;
  return h('div', { class: 'field' }, h('label', { for: id }, label), h('input', { id, ...attrs }));
}

// breakable lets a long name wrap after its dots, dashes, underscores,
// slashes and colons before the browser breaks it anywhere else.
export function breakable(text) {
  return String(text).split(/(?<=[._\-/:])/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
}

// table renders rows as a table that turns into cards on a narrow screen
// (each cell then shows its column name from data-label). A column is
// [label, cell] or [label, cell, kind]; the kind (id, time, num, error,
// state, text, label: a short word that never wraps) is the cell's class, which gives it its width in app.css,
// and a text cell's plain string may wrap at its separators.
export function table(caption, columns, rows) {
  const content = (kind, v) => (kind === 'text' && typeof v === 'string' ? breakable(v) : v);
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'cards' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, columns.map(([label, , kind]) => h('th', { scope: 'col', class: kind }, label)))),
      h('tbody', {}, rows.map((row) => h('tr', {},
        columns.map(([label, cell, kind]) => h('td', { 'data-label': label, class: kind }, content(kind, cell(row)))))))));
}

// refreshing runs a page's periodic refresh: it calls fetch now and every
// 5 s until the returned stop is called (the router calls it when the
// page is left). draw(value) runs only when key(value) changed since the
// last draw, so a refresh that brings nothing new keeps the reader's
// focus where it is. updated says when the figures were fetched; out
// shows an error of a fetch, and is cleared by the next one that works.
export function refreshing({ out, updated, fetch, key, draw }) {
  const refreshMs = 5000;
  let alive = true;
  let timer = null;
  let shown = '';
  async function load() {
    try {
      const value = await fetch();
      if (!alive) return;
      const text = key(value);
      if (text !== shown) draw(value);
      shown = text;
      updated.textContent = 'Updated ' + new Date().toLocaleTimeString() + ', refreshed every 5 s';
      say(out, '');
    } catch (e) {
      if (alive) say(out, e.message, 'error');
    }
    if (alive) timer = setTimeout(load, refreshMs);
  }
  load();
  return () => {
    alive = false;
    clearTimeout(timer);
  };
}
