import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import {
  sanitize, sanitizeError, MAX_ERROR_LENGTH, defaultRetryPolicy, retryAfter, deadLetter, resolveOptions,
  defaultSchema, inboxSql, sqlFiles, fromMssql, fromPg, InboxWorker, candLimit,
} from "@alternayte/queuebox-inbox";

const sqlDir = new URL("../../../examples/pull/sql/", import.meta.url);

test("the embedded SQL is the text of examples/pull/sql, file for file", () => {
  const files = readdirSync(sqlDir).filter((f) => f.endsWith(".sql")).sort();
  assert.deepEqual(Object.keys(sqlFiles).sort(), files);
  for (const f of files) assert.equal(sqlFiles[f], readFileSync(new URL(f, sqlDir), "utf8"), f);
  // and src/sql.generated.ts is what the build script writes
  execFileSync(process.execPath, [new URL("../scripts/embed-sql.mjs", import.meta.url).pathname, "--check"]);
});

test("the CommonJS build exports the same API", () => {
  const cjs = createRequire(import.meta.url)("@alternayte/queuebox-inbox");
  for (const name of ["InboxWorker", "fromPg", "fromMssql", "defaultRetryPolicy", "retryAfter", "deadLetter",
    "defaultSchema", "inboxSql", "sanitize", "sanitizeError", "MAX_ERROR_LENGTH", "resolveOptions"]) {
    assert.ok(cjs[name] !== undefined, name);
  }
  assert.equal(cjs.sanitize("password=x"), "password=***");
});

// The cases are the server's (pkg/redact/testdata/cases.json), shared by
// both clients; a client knows no secret values, so it runs the cases
// without any.
const redactionCases = new URL("../../../pkg/redact/testdata/cases.json", import.meta.url);

test("sanitize masks the secrets QueueBox masks", () => {
  const { cases } = JSON.parse(readFileSync(redactionCases, "utf8"));
  const shared = cases.filter((c) => c.secrets.length === 0);
  assert.ok(shared.length > 0, "no shared case without secrets");
  for (const c of shared) assert.equal(sanitize(c.input), c.want, c.name);
});

test("sanitizeError redacts and cuts to MAX_ERROR_LENGTH bytes without splitting a character", () => {
  assert.equal(MAX_ERROR_LENGTH, 2048);
  assert.equal(sanitizeError(undefined), "");
  assert.equal(sanitizeError(new Error("login failed: password=hunter2")), "login failed: password=***");
  assert.equal(sanitizeError(new Error("outer", { cause: new Error("token=abc") })), "outer: token=***");
  const long = sanitizeError(new Error("é".repeat(2000)));
  assert.ok(Buffer.byteLength(long) <= 2048);
  assert.equal(long, "é".repeat(1024));
  assert.equal(sanitizeError(new Error("a" + "€".repeat(1000))), "a" + "€".repeat(682));
});

test("the default retry policy: exponential with jitter, dead after the ceiling", () => {
  const policy = defaultRetryPolicy();
  const msg = (attempt) => ({ attempt });
  for (let a = 0; a < 5; a++) {
    const action = policy(msg(a), new Error("x"));
    assert.equal(action.kind, "retry");
    const base = Math.min(1000 * 2 ** a, 300_000);
    assert.ok(action.delayMs >= Math.floor(base * 0.8) && action.delayMs <= base * 1.2, `${a}: ${action.delayMs}`);
  }
  assert.deepEqual(policy(msg(5), new Error("x")), deadLetter());
  const capped = defaultRetryPolicy({ maxAttempts: 100, baseDelayMs: 1000, maxDelayMs: 5000, jitter: 1 });
  for (let i = 0; i < 50; i++) assert.ok(capped(msg(20), null).delayMs <= 5000);
  assert.deepEqual(retryAfter(-5), { kind: "retry", delayMs: 0 });
  assert.deepEqual(retryAfter(12.7), { kind: "retry", delayMs: 12 });
});

test("resolveOptions fills the defaults and lists every setting that cannot work", () => {
  const o = resolveOptions({ source: "orders" });
  assert.equal(o.batchSize, 10);
  assert.equal(o.leaseMs, 30_000);
  assert.equal(o.maxConcurrency, 1);
  assert.equal(o.pollIntervalMs, 1000);
  assert.equal(o.shutdownGraceMs, 30_000);
  assert.equal(o.dialect, "postgresql");
  assert.deepEqual(o.schema, defaultSchema);
  assert.equal(typeof o.retryPolicy, "function");
  assert.equal(o.logger, undefined);
  assert.throws(
    () => resolveOptions({ source: "", batchSize: 501, leaseMs: 50, maxConcurrency: 0, dialect: "oracle",
      schema: { ...defaultSchema, table: "x; drop table y" } }),
    (err) => {
      for (const part of ["source is required", "batchSize", "leaseMs", "maxConcurrency", "dialect", "schema.table"]) {
        assert.match(err.message, new RegExp(part));
      }
      return true;
    },
  );
  assert.throws(() => resolveOptions({ source: "s", schema: { ...defaultSchema, payload: "id" } }), /also the name/);
  assert.equal(candLimit(1), 50);
  assert.equal(candLimit(100), 300);
  assert.equal(candLimit(500), 500);
});

test("inboxSql renders a mapped schema, quoted, with $n markers", () => {
  const sql = inboxSql("postgresql", { ...defaultSchema, table: "qb_inbox", idempotencyKey: "dedup_key" });
  assert.deepEqual(sql.claim.params, ["source", "cand_limit", "batch", "lease_ms"]);
  assert.match(sql.claim.text, /FROM "qb_inbox"/);
  assert.match(sql.claim.text, /i\."dedup_key"/);
  assert.doesNotMatch(sql.claim.text, /idempotency_key|--/);
  assert.match(sql.claim.text, /"payload"::text/);
  assert.deepEqual(sql.retry.params, ["delay_ms", "error", "id", "token"]);
  const ss = inboxSql("sqlserver");
  assert.deepEqual(ss.claim.params, ["source", "cand_limit", "batch", "lease_ms"]);
  assert.match(ss.complete.text, /UPDATE \[inbox\]/);
});

test("fromMssql binds named parameters and reads the claim's last record set as arrays", async () => {
  const seen = [];
  class Request {
    constructor(parent) { this.parent = parent; this.inputs = {}; }
    input(name, value) { this.inputs[name] = value; return this; }
    async query(text) {
      seen.push({ text, inputs: this.inputs, arrayRowMode: this.arrayRowMode, parent: this.parent });
      return { recordsets: [[["id1", "s", "k", null, null, "{}", "{}", 0, null, "tok"]]], rowsAffected: [1] };
    }
  }
  class Transaction {
    constructor(pool) { this.pool = pool; }
    async begin() {} async commit() {} async rollback() {}
  }
  const pool = { request: () => new Request(pool) };
  const conn = fromMssql({ Request, Transaction }, pool);
  assert.equal(conn.dialect, "sqlserver");
  const sql = inboxSql("sqlserver");
  const rows = await conn.claim(sql.claim, { source: "s", batch: 2, lease_ms: 1000, cand_limit: 50 });
  assert.equal(rows[0][9], "tok");
  assert.deepEqual(seen[0].inputs, { source: "s", cand_limit: 50, batch: 2, lease_ms: 1000 });
  assert.equal(seen[0].arrayRowMode, true);
  const tx = await conn.begin();
  assert.equal(await tx.execute(sql.complete, { id: "id1", token: "tok" }), 1);
  assert.ok(seen[1].parent instanceof Transaction);
  assert.ok(conn.isLockTimeout({ number: 51000 }));
  assert.ok(!conn.isLockTimeout({ number: 1205 }));
  assert.throws(() => new InboxWorker(conn, { source: "s", dialect: "postgresql" }), /differs/);
});

test("fromPg claims in a read committed transaction begun with sorting and JIT off, as the SQL contract asks", async () => {
  const seen = [];
  const client = {
    async query(q) {
      seen.push(typeof q === "string" ? q : q.text);
      return { rows: typeof q === "string" ? [] : [["id1", "s", "k", null, null, "{}", "{}", 0, null, "tok"]] };
    },
    release() {},
  };
  const conn = fromPg({ connect: async () => client, query: client.query });
  const sql = inboxSql("postgresql");
  const rows = await conn.claim(sql.claim, { source: "s", batch: 2, lease_ms: 1000, cand_limit: 50 });
  assert.equal(rows[0][9], "tok");
  assert.deepEqual(seen.map((q) => q.split("\n")[0]), [
    "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL enable_sort = off; SET LOCAL jit = off",
    "WITH due AS (",
    "COMMIT",
  ]);
});

test("InboxWorker refuses a bad connection and a bad handler", async () => {
  assert.throws(() => new InboxWorker({}, { source: "s" }), /fromPg or fromMssql/);
  assert.throws(() => fromPg({}), /pg Pool/);
  const w = new InboxWorker(fromPg({ connect() {}, query() {} }), { source: "s" });
  await assert.rejects(w.run(undefined), /handler/);
});
