// The calls to the admin JSON routes and the credential they carry.
//
// The credential lives in sessionStorage only: the browser forgets it when
// the tab closes, and no other tab or later visit can read it.

const key = 'queuebox.admin.credential';

// loadCredential returns {kind, header, secret} or null.
export function loadCredential() {
  try {
    return JSON.parse(sessionStorage.getItem(key));
  } catch {
    return null;
  }
}

export function saveCredential(c) {
  sessionStorage.setItem(key, JSON.stringify(c));
}

export function clearCredential() {
  sessionStorage.removeItem(key);
}

// authHeaders sends the credential the way admin.auth reads it: a bearer
// token in Authorization, or an API key in its configured header.
export function authHeaders(c) {
  if (!c) return {};
  if (c.kind === 'api-key') return { [c.header || 'X-API-Key']: c.secret };
  return { Authorization: 'Bearer ' + c.secret };
}

// ApiError is a non-2xx answer; message is the error field of the body.
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// The admin routes sit one level above the UI (/admin/ui/ -> /admin/...),
// so relative paths keep working behind a proxy that adds a prefix.
export function route(path, params) {
  const q = params && params.toString();
  return '../' + path + (q ? '?' + q : '');
}

// call sends one request and returns {status, data}; it throws ApiError on
// an answer outside 2xx.
export async function call(method, path, params, body) {
  const headers = authHeaders(loadCredential());
  const init = { method, headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(route(path, params), init);
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const msg = (data && data.error) || text || res.statusText;
    throw new ApiError(res.status, `${res.status}: ${msg}`);
  }
  return { status: res.status, data };
}

export const get = (path, params) => call('GET', path, params);
export const post = (path, params, body) => call('POST', path, params, body);
