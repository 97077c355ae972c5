// The redaction of QueueBox: every log line and every last_error value of
// the library passes through sanitize.

/** What sanitize puts in place of a credential. */
const MASK = "***";

/**
 * The most bytes (UTF-8) of a reason that sanitizeError keeps: the
 * server's default for last_error.
 */
export const MAX_ERROR_LENGTH = 2048;

// The names whose value is a credential, in any letter case, longest first
// so that an alternation takes "client_secret" before "secret".
const KEYS = [
  "client_secret", "clientsecret", "access_token", "accesstoken",
  "refresh_token", "refreshtoken", "id_token", "x-auth-token", "auth_token", "private_key",
  "proxy-authorization", "authorization", "set-cookie", "cookie", "session",
  "x-api-key", "api_key", "api-key", "apikey", "password", "passwd", "pwd",
  "secret", "token",
].join("|");

// Each rule masks its group "v" in every match, in order. A value that runs
// to the end of the text is masked too, so a cut-short value does not escape.
const RULES: RegExp[] = [
  // "password": "x" and 'token': 'x' in JSON and JSON-like text.
  new RegExp(`["'](?:${KEYS})["']\\s*:\\s*"(?<v>(?:[^"\\\\]|\\\\.)*)`, "gisd"),
  new RegExp(`["'](?:${KEYS})["']\\s*:\\s*'(?<v>(?:[^'\\\\]|\\\\.)*)`, "gisd"),
  // "pwd": 1234, an unquoted value.
  new RegExp(`["'](?:${KEYS})["']\\s*:\\s*(?<v>-?[0-9][0-9a-z.+\\-]*)`, "gid"),
  // token=x in a form body or a query string, not mytoken=x.
  new RegExp(`(?:^|[^a-z0-9_\\-])(?:${KEYS})=(?<v>[^&\\s"'<>;,]+)`, "gid"),
  // "Authorization: Bearer x" and "x-api-key: x" header or YAML lines; the
  // scheme name stays readable.
  new RegExp(
    `^[ \\t]*(?:${KEYS})[ \\t]*:[ \\t]*(?:(?:bearer|basic|digest|token|negotiate)[ \\t]+)?(?<v>[^\\r\\n]*[^\\s])`,
    "gimd",
  ),
  // <password>x</password>.
  new RegExp(`<(?:${KEYS})>(?<v>[^<]+)`, "gid"),
  // The password of URL user info, scheme://user:password@host.
  new RegExp(`\\b[a-z][a-z0-9+.\\-]*://[^/\\s:@]*:(?<v>[^/\\s@]+)@`, "gid"),
];

// A bearer or basic credential inside a sentence.
const BEARER = /\b(?:bearer|basic)[ \t]+(?<v>[a-z0-9\-._~+/]+=*)/gid;

// The words that follow "Bearer" or "Basic" in an error sentence ("Bearer
// token required"); they are not credentials.
const PROSE = new Set([
  "a", "an", "and", "auth", "authentication", "authorization", "credential", "credentials",
  "error", "expired", "for", "header", "invalid", "is", "missing", "not", "or", "realm",
  "required", "scheme", "the", "token", "tokens", "was", "with",
]);

// Go's regexp treats text as UTF-8 and \s as ASCII white space only; a
// JavaScript \s also matches Unicode spaces. The rules keep \s: a Unicode
// space inside a credential ends it in both, and such text is rare.

/**
 * Returns text with the value of every secret-bearing key masked as "***",
 * by the rules that QueueBox applies to its own log lines and last_error
 * values: JSON and JSON-like pairs, form and query pairs, header and YAML
 * lines, XML elements, bearer and basic credentials and the password of URL
 * user info. The keys are client_secret (and clientSecret), access_token
 * (accessToken), refresh_token (refreshToken), id_token, x-auth-token,
 * auth_token, private_key, proxy-authorization, authorization, set-cookie,
 * cookie, session, x-api-key, api_key, api-key, apikey, password, passwd,
 * pwd, secret and token, in any letter case. An empty value stays empty. It does not cut
 * the text.
 */
export function sanitize(text: string): string {
  let out = String(text);
  for (const rule of RULES) out = maskGroup(rule, out);
  return maskGroup(BEARER, out, (v) => !PROSE.has(v.toLowerCase()));
}

/**
 * Returns the text of a failure through sanitize, cut to at most
 * MAX_ERROR_LENGTH bytes of UTF-8 without splitting a character: the value
 * the library stores in last_error. An Error gives its message (and the
 * messages of its causes); null and undefined give "".
 */
export function sanitizeError(failure: unknown): string {
  if (failure === null || failure === undefined) return "";
  return cutUtf8(sanitize(errorText(failure)), MAX_ERROR_LENGTH);
}

/** The text of a thrown value: an Error's message, with its causes. */
export function errorText(failure: unknown): string {
  if (failure instanceof Error) {
    let text = failure.message || failure.name;
    const cause = (failure as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== null && cause !== failure) {
      const inner = errorText(cause);
      if (inner && !text.includes(inner)) text += `: ${inner}`;
    }
    return text;
  }
  if (typeof failure === "string") return failure;
  try {
    return String(failure);
  } catch {
    return Object.prototype.toString.call(failure);
  }
}

function maskGroup(rule: RegExp, text: string, keep?: (value: string) => boolean): string {
  let out = "";
  let done = 0;
  for (const m of text.matchAll(rule)) {
    const span = m.indices?.groups?.v;
    if (!span) continue;
    const [start, end] = span;
    if (start === end || start < done) continue;
    const value = text.slice(start, end);
    if (value === MASK) continue;
    if (keep && !keep(value)) continue;
    out += text.slice(done, start) + MASK;
    done = end;
  }
  return done === 0 ? text : out + text.slice(done);
}

/** The longest prefix of text of at most max bytes of UTF-8 that ends on a character. */
function cutUtf8(text: string, max: number): string {
  if (Buffer.byteLength(text, "utf8") <= max) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > max) break;
    bytes += size;
    i += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, i);
}
