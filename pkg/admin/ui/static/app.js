// The shell of the workbench: sign-in, the role, and the hash router that
// renders one page into <main>. A page is a function (main, ctx) that may
// return a stop function, called when the reader leaves it (it ends the
// page's refresh timer).
import { get, loadCredential, saveCredential, clearCredential } from './api.js';
import { h, field, status, say } from './dom.js';
import { overview } from './overview.js';
import { messages } from './messages.js';
import { message } from './message.js';
import { replay, jobs } from './replay.js';
import { destinations } from './destinations.js';
import { undelivered } from './undelivered.js';

const pages = { overview, destinations, undelivered, messages, message, replay, jobs };
const main = document.getElementById('main');
let who = null;
let stop = null;

// parse splits "#/message/ID?table=inbox" into the page, its argument and
// its query.
function parse() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path, query] = hash.split('?', 2);
  const [page, ...rest] = path.split('/');
  return { page: page || 'overview', arg: decodeURIComponent(rest.join('/')), params: new URLSearchParams(query || '') };
}

function render() {
  if (stop) stop();
  stop = null;
  main.replaceChildren();
  if (!who) return signIn();
  const r = parse();
  const page = pages[r.page] || overview;
  for (const a of document.querySelectorAll('#nav a')) {
    const current = a.getAttribute('href') === '#/' + (r.page === 'message' ? 'messages' : r.page);
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  stop = page(main, { role: who.role, arg: r.arg, params: r.params }) || null;
  const title = main.querySelector('h1');
  if (title) document.title = title.textContent + ' · QueueBox admin';
}

// focusTitle moves the focus to the new page's heading after a navigation,
// so a keyboard or screen reader user starts at the top of it.
function focusTitle() {
  const title = main.querySelector('h1');
  if (title) {
    title.setAttribute('tabindex', '-1');
    title.focus();
  }
}

async function start() {
  const c = loadCredential();
  if (!c) return showSignedOut();
  try {
    who = (await get('whoami')).data;
  } catch (e) {
    clearCredential();
    return showSignedOut(e.status === 401 ? 'The credential was refused (401).' : e.message);
  }
  document.getElementById('who-name').textContent = `${who.name || 'signed in'} · ${who.role}`;
  document.body.dataset.role = who.role;
  document.getElementById('nav').hidden = false;
  document.getElementById('who').hidden = false;
  render();
  focusTitle();
}

function showSignedOut(problem) {
  who = null;
  document.getElementById('nav').hidden = true;
  document.getElementById('who').hidden = true;
  render();
  if (problem) say(main.querySelector('.status'), problem, 'error');
}

// signIn asks for the credential of admin.auth or admin.viewer.
function signIn() {
  const out = status();
  const kind = h('select', { id: 'f-kind', name: 'kind' },
    h('option', { value: 'bearer' }, 'Bearer token'),
    h('option', { value: 'api-key' }, 'API key'));
  const header = field('Header name', { name: 'header', value: 'X-API-Key', autocomplete: 'off' });
  header.hidden = true;
  kind.addEventListener('change', () => { header.hidden = kind.value !== 'api-key'; });
  const form = h('form', { class: 'panel narrow', id: 'signin' },
    h('h1', {}, 'Sign in'),
    h('p', {}, 'Enter the admin or the read-only viewer credential of this QueueBox. ',
      'It is kept for this browser tab only.'),
    h('div', { class: 'field' }, h('label', { for: 'f-kind' }, 'Kind'), kind),
    header,
    field('Credential', { name: 'secret', type: 'password', required: true, autocomplete: 'off' }),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    out);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    saveCredential({ kind: data.get('kind'), header: data.get('header'), secret: data.get('secret') });
    start();
  });
  main.append(form);
  form.querySelector('input[name=secret]').focus();
}

document.getElementById('signout').addEventListener('click', () => {
  clearCredential();
  location.hash = '';
  showSignedOut();
});
window.addEventListener('hashchange', () => {
  render();
  focusTitle();
});
start();
