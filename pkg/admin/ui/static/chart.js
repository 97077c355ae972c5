// A small bar chart of one destination's attempts per minute, drawn as
// inline SVG by the page itself: no library, no other host, and no style
// attribute (the policy allows styles from app.css only), so every colour
// comes from a class.
import { h } from './dom.js';

const svgNS = 'http://www.w3.org/2000/svg';
const width = 600;
const height = 100;

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
  for (const c of children) el.append(c);
  return el;
}

// slots spreads the answer's minutes (only those with attempts) over the
// window's minutes, oldest first, the last slot holding the current
// minute of this browser's clock. The server's hour may touch one minute
// more than the slots (its first minute partly) or run a little ahead of
// this clock: such a minute joins the nearest end slot, so the bars add
// up to the hour's totals.
export function slots(minutes, windowMinutes, now = Date.now()) {
  const n = Math.max(1, windowMinutes || 60);
  const out = Array.from({ length: n }, () => ({ sent: 0, failed: 0, minute: null }));
  const current = Math.floor(now / 60000);
  for (const m of minutes || []) {
    const at = Math.floor(new Date(m.minute).getTime() / 60000);
    if (Number.isNaN(at)) continue;
    const back = current - at;
    const s = out[n - 1 - Math.min(n - 1, Math.max(0, back))];
    s.sent += m.sent || 0;
    s.failed += m.failed || 0;
    s.minute = s.minute === null ? at * 60000 : Math.max(s.minute, at * 60000);
  }
  return out;
}

// summary says in words what the chart shows, for a screen reader and as
// the chart's tooltip.
export function summary(name, data, windowMinutes) {
  const sent = data.reduce((a, s) => a + s.sent, 0);
  const failed = data.reduce((a, s) => a + s.failed, 0);
  let text = `Attempts to ${name} per minute over the last ${windowMinutes} minutes: ${sent} sent, ${failed} failed`;
  const peak = data.reduce((best, s) => (s.sent + s.failed > best.sent + best.failed ? s : best), data[0]);
  if (peak && peak.sent + peak.failed > 0 && peak.minute !== null) {
    text += `; the busiest minute, ${new Date(peak.minute).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}, had ${peak.sent + peak.failed}`;
  }
  return text + '.';
}

// chart returns the figure: a bar per minute, the sent part below the
// failed part, scaled to the busiest minute. The bars stretch to the
// width of the box; the labels are HTML under them, so they keep their
// size on a phone.
export function chart(name, minutes, windowMinutes) {
  const data = slots(minutes, windowMinutes);
  const text = summary(name, data, windowMinutes);
  const top = Math.max(1, ...data.map((s) => s.sent + s.failed));
  const step = width / data.length;
  const bars = [];
  data.forEach((s, i) => {
    if (s.sent + s.failed === 0) return;
    const x = i * step + 1;
    const w = Math.max(1, step - 2);
    const hs = (s.sent / top) * (height - 2);
    const hf = (s.failed / top) * (height - 2);
    const time = new Date(s.minute).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const g = svg('g', { class: 'bar' }, svg('title', {}, `${time}: ${s.sent} sent, ${s.failed} failed`));
    if (hs > 0) g.append(svg('rect', { class: 'sent', x, y: height - hs, width: w, height: hs }));
    if (hf > 0) g.append(svg('rect', { class: 'failed', x, y: height - hs - hf, width: w, height: hf }));
    bars.push(g);
  });
  const figure = svg('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': text,
    preserveAspectRatio: 'none' },
  svg('title', {}, text),
  svg('line', { class: 'baseline', x1: 0, y1: height, x2: width, y2: height }),
  ...bars);
  return h('figure', { class: 'chart-box' },
    h('div', { class: 'chart-scale', 'aria-hidden': 'true' }, `${top} / min`),
    figure,
    h('div', { class: 'chart-axis', 'aria-hidden': 'true' }, h('span', {}, `${windowMinutes} min ago`), h('span', {}, 'now')),
    h('figcaption', { class: 'chart-legend' },
      h('span', { class: 'key sent' }, 'sent'), ' ', h('span', { class: 'key failed' }, 'failed')));
}
