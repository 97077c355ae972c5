// The worker against the local PostgreSQL, each test in a fresh migrated schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { InboxWorker, fromPg, retryAfter, defaultRetryPolicy, InboxShutdownError, InboxLeaseLostError } from "@alternayte/queuebox-inbox";
import { freshSchema, insertRows, eventually, memoryLogger } from "./helpers.mjs";

async function rowOf(pool, source, key) {
  const { rows } = await pool.query(
    `SELECT id::text, state, attempt, last_error, scheduled_at, claim_token::text AS token,
            extract(epoch FROM scheduled_at - now()) * 1000 AS due_in_ms
     FROM inbox WHERE source = $1 AND idempotency_key = $2`, [source, key]);
  return rows[0];
}

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

test("the business row and the processed state commit together; a failing handler leaves neither", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool();
  await pool.query("CREATE TABLE orders (id text PRIMARY KEY, total int NOT NULL)");
  await insertRows(pool, [
    { source: "orders", key: "order-1", payload: { id: "order-1", total: 42 }, headers: { "x-trace": "t1", n: 5, Traceparent: TP } },
    { source: "orders", key: "order-bad", payload: { id: "order-bad", total: 1 } },
  ]);
  const seen = [];
  const tokens = [];
  const stop = new AbortController();
  const worker = new InboxWorker(fromPg(pool), {
    source: "orders", pollIntervalMs: 50, retryPolicy: () => retryAfter(60_000),
  });
  const run = worker.run(async (message, tx) => {
    seen.push(message);
    tokens.push((await pool.query("SELECT claim_token::text AS t FROM inbox WHERE id = $1", [message.id])).rows[0].t);
    await tx.query("INSERT INTO orders (id, total) VALUES ($1, $2)", [message.payload.id, message.payload.total]);
    if (message.payload.id === "order-bad") throw new Error("no such customer");
  }, stop.signal);
  await eventually(async () => (await rowOf(pool, "orders", "order-1")).state === "processed" &&
    (await rowOf(pool, "orders", "order-bad")).state === "pending", { what: "both rows handled" });
  stop.abort();
  await run;
  const { rows } = await pool.query("SELECT id, total FROM orders ORDER BY id");
  assert.deepEqual(rows, [{ id: "order-1", total: 42 }]);
  const good = seen.find((m) => m.idempotencyKey === "order-1");
  assert.deepEqual(good.headers, { "x-trace": "t1", n: "5", Traceparent: TP });
  assert.equal(good.traceparent, TP, "the stored context, whatever the header's letter case");
  assert.equal(good.tracestate, null);
  assert.equal(seen.find((m) => m.idempotencyKey === "order-bad").traceparent, null);
  assert.equal(good.attempt, 0);
  assert.equal(good.source, "orders");
  assert.equal(good.aggregateId, null);
  // the handler never sees the claim token
  assert.equal(tokens.length, 2);
  for (const token of tokens) {
    assert.match(token, /^[0-9a-f-]{36}$/);
    for (const m of seen) assert.ok(!JSON.stringify(m).includes(token));
  }
  // the retry: attempt raised, due after the policy's delay, the reason stored
  const bad = await rowOf(pool, "orders", "order-bad");
  assert.equal(bad.attempt, 1);
  assert.equal(bad.last_error, "no such customer");
  assert.equal(bad.token, null);
  assert.ok(bad.due_in_ms > 50_000 && bad.due_in_ms <= 60_000, `due in ${bad.due_in_ms} ms`);
});

test("dead after the policy's ceiling, with a redacted last_error and redacted logs", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool();
  await insertRows(pool, [{ source: "s", key: "k1", aggregate: "a1" }]);
  const logger = memoryLogger();
  const attempts = [];
  const stop = new AbortController();
  const worker = new InboxWorker(fromPg(pool), {
    source: "s", pollIntervalMs: 20, logger,
    retryPolicy: defaultRetryPolicy({ maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 }),
  });
  const run = worker.run(async (message) => {
    attempts.push(message.attempt);
    throw new Error(`upstream said 401 for Authorization: Bearer abc.def with password=hunter2 ${"x".repeat(3000)}`);
  }, stop.signal);
  await eventually(async () => (await rowOf(pool, "s", "k1")).state === "dead", { what: "the dead letter" });
  stop.abort();
  await run;
  assert.deepEqual(attempts, [0, 1, 2]);
  const row = await rowOf(pool, "s", "k1");
  assert.equal(row.attempt, 2);
  assert.ok(row.last_error.startsWith("upstream said 401 for Authorization: Bearer *** with password=*** xxx"), row.last_error);
  assert.equal(Buffer.byteLength(row.last_error), 2048);
  const text = JSON.stringify(logger.lines);
  assert.ok(!text.includes("hunter2") && !text.includes("abc.def"), "a secret reached the log");
  assert.ok(logger.lines.some((l) => l.level === "error" && /dead-lettered/.test(l.message)));
});

test("4 workers x concurrency 4 over 30 aggregates of 2 sources: one row per (source, aggregate) in flight, each row once", async (t) => {
  const db = await freshSchema(t);
  const setup = db.pool(2);
  await setup.query("CREATE TABLE handled (source text, key text, aggregate text, PRIMARY KEY (source, key))");
  const sources = ["orders", "payments"];
  const perAggregate = 5;
  const rows = [];
  for (let n = 0; n < perAggregate; n++) {
    for (let a = 0; a < 30; a++) {
      for (const source of sources) rows.push({ source, key: `${a}-${n}`, aggregate: `agg-${a}`, payload: { n } });
    }
  }
  await insertRows(setup, rows);
  const inFlight = new Set();
  const violations = [];
  const order = new Map(); // source/aggregate -> the n values in handling order
  let calls = 0;
  const stop = new AbortController();
  const runs = [];
  for (let w = 0; w < 4; w++) {
    const source = sources[w % 2];
    const worker = new InboxWorker(fromPg(db.pool(6)), {
      source, maxConcurrency: 4, batchSize: 10, pollIntervalMs: 20, leaseMs: 30_000,
    });
    runs.push(worker.run(async (message, tx) => {
      calls++;
      const k = `${message.source}/${message.aggregateId}`;
      if (inFlight.has(k)) violations.push(k);
      inFlight.add(k);
      try {
        await tx.query("INSERT INTO handled VALUES ($1, $2, $3)", [message.source, message.idempotencyKey, message.aggregateId]);
        await new Promise((r) => setTimeout(r, Math.random() * 5)); // some work
        (order.get(k) ?? order.set(k, []).get(k)).push(message.payload.n);
      } finally {
        inFlight.delete(k);
      }
    }, stop.signal));
  }
  // The monitor: the database never holds two live processing rows of one (source, aggregate).
  const monitor = db.pool(1);
  let checks = 0;
  let remaining;
  try {
    await eventually(async () => {
      const dup = await monitor.query(
        `SELECT source, aggregate_id, count(*)::int AS n FROM inbox
         WHERE state = 'processing' AND lease_expires_at > now() GROUP BY 1, 2 HAVING count(*) > 1`);
      checks++;
      if (dup.rows.length > 0) violations.push(...dup.rows.map((r) => `db:${r.source}/${r.aggregate_id}`));
      remaining = (await monitor.query("SELECT count(*)::int AS n FROM inbox WHERE state <> 'processed'")).rows[0].n;
      return remaining === 0;
    }, { timeoutMs: 180_000, everyMs: 10, what: "every row processed" });
  } finally {
    stop.abort();
    await Promise.all(runs);
  }
  assert.deepEqual(violations, []);
  assert.ok(checks > 1);
  assert.equal(calls, rows.length, "each row handled exactly once");
  const handled = (await setup.query("SELECT count(*)::int AS n FROM handled")).rows[0].n;
  assert.equal(handled, rows.length);
  // the rows of one aggregate ran in their order
  for (const [k, ns] of order) assert.deepEqual(ns, [...Array(perAggregate).keys()], k);
});

test("the same aggregate on two sources runs in parallel", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool(8);
  await insertRows(pool, [
    { source: "orders", key: "1", aggregate: "customer-7" },
    { source: "payments", key: "1", aggregate: "customer-7" },
  ]);
  const started = new Set();
  const stop = new AbortController();
  const handler = async (message) => {
    started.add(message.source);
    // Each handler waits until the other source's handler has started too.
    await eventually(() => started.size === 2, { timeoutMs: 20_000, what: "the other source's handler" });
  };
  const runs = ["orders", "payments"].map((source) =>
    new InboxWorker(fromPg(pool), { source, pollIntervalMs: 20 }).run(handler, stop.signal));
  try {
    await eventually(async () =>
      (await pool.query("SELECT count(*)::int AS n FROM inbox WHERE state = 'processed'")).rows[0].n === 2,
    { what: "both rows processed" });
  } finally {
    stop.abort();
    await Promise.all(runs);
  }
});

test("a lease that expires under a slow handler: a second worker takes the row; the first one's completion changes nothing and its write rolls back", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool(8);
  await pool.query("CREATE TABLE writes (key text, worker text)");
  await insertRows(pool, [{ source: "s", key: "k1", aggregate: "a" }]);
  const logA = memoryLogger();
  const stopA = new AbortController();
  const stopB = new AbortController();
  let aStarted = false;
  let aSignal;
  // A long lease: no renewal runs during the test, so the row's lease is
  // ended by hand, as for a worker that stalled.
  const a = new InboxWorker(fromPg(pool), { source: "s", leaseMs: 120_000, pollIntervalMs: 20, logger: logA });
  const runA = a.run(async (message, tx, signal) => {
    aSignal = signal;
    await tx.query("INSERT INTO writes VALUES ($1, 'A')", [message.idempotencyKey]);
    aStarted = true;
    await eventually(async () => (await rowOf(pool, "s", "k1")).state === "processed", { what: "B to complete the row" });
  }, stopA.signal);
  await eventually(() => aStarted, { what: "A's handler" });
  await pool.query("UPDATE inbox SET lease_expires_at = now() - interval '1 second' WHERE idempotency_key = 'k1'");
  const b = new InboxWorker(fromPg(pool), { source: "s", pollIntervalMs: 20 });
  let bCalls = 0;
  const runB = b.run(async (message, tx) => {
    bCalls++;
    await tx.query("INSERT INTO writes VALUES ($1, 'B')", [message.idempotencyKey]);
  }, stopB.signal);
  await eventually(() => logA.lines.some((l) => /completion changed no row/.test(l.message)), { what: "A's completion" });
  stopA.abort();
  stopB.abort();
  await Promise.all([runA, runB]);
  assert.equal(aSignal.aborted, false);
  assert.equal(bCalls, 1);
  assert.deepEqual((await pool.query("SELECT key, worker FROM writes")).rows, [{ key: "k1", worker: "B" }]);
  const row = await rowOf(pool, "s", "k1");
  assert.equal(row.state, "processed");
  assert.equal(row.attempt, 0);
});

test("a lost renewal aborts the handler's signal; nothing completes and no attempt is spent", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool(8);
  await pool.query("CREATE TABLE writes (key text)");
  await insertRows(pool, [{ source: "s", key: "k1" }]);
  const stop = new AbortController();
  let reason;
  let started = false;
  const worker = new InboxWorker(fromPg(pool), { source: "s", leaseMs: 600, pollIntervalMs: 20 });
  const run = worker.run(async (message, tx, signal) => {
    await tx.query("INSERT INTO writes VALUES ($1)", [message.idempotencyKey]);
    started = true;
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    reason = signal.reason;
  }, stop.signal);
  await eventually(() => started, { what: "the handler" });
  // Another worker took the row: its token changed.
  const stolen = await pool.query(
    "UPDATE inbox SET claim_token = gen_random_uuid() WHERE idempotency_key = 'k1' RETURNING claim_token::text AS t");
  await eventually(() => reason !== undefined, { what: "the abort" });
  stop.abort();
  await run;
  assert.ok(reason instanceof InboxLeaseLostError);
  assert.equal((await pool.query("SELECT count(*)::int AS n FROM writes")).rows[0].n, 0);
  const row = await rowOf(pool, "s", "k1");
  assert.equal(row.state, "processing");
  assert.equal(row.attempt, 0);
  assert.equal(row.token, stolen.rows[0].t);
});

test("shutdown with a running handler: past the grace it is aborted, nothing completed, no attempt spent", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool(8);
  await pool.query("CREATE TABLE writes (key text)");
  await insertRows(pool, [{ source: "s", key: "k1" }]);
  const logger = memoryLogger();
  const stop = new AbortController();
  let started = false;
  let reason;
  let sleepError;
  const worker = new InboxWorker(fromPg(pool), { source: "s", shutdownGraceMs: 300, pollIntervalMs: 20, logger });
  const run = worker.run(async (message, tx, signal) => {
    await tx.query("INSERT INTO writes VALUES ($1)", [message.idempotencyKey]);
    started = true;
    try {
      await tx.query("SELECT pg_sleep(60)"); // cancelled by the library when the signal aborts
    } catch (err) {
      sleepError = err;
      reason = signal.reason;
      throw err;
    }
  }, stop.signal);
  await eventually(() => started, { what: "the handler" });
  const before = await rowOf(pool, "s", "k1");
  const t0 = Date.now();
  stop.abort();
  await run;
  const took = Date.now() - t0;
  assert.ok(took >= 250 && took < 30_000, `run took ${took} ms after the stop`);
  assert.ok(reason instanceof InboxShutdownError);
  assert.equal(sleepError?.code, "57014"); // query_canceled
  assert.equal((await pool.query("SELECT count(*)::int AS n FROM writes")).rows[0].n, 0);
  const row = await rowOf(pool, "s", "k1");
  assert.equal(row.state, "processing");
  assert.equal(row.attempt, 0);
  assert.equal(row.last_error, null);
  assert.equal(row.token, before.token);
  assert.ok(logger.lines.some((l) => /shutdown grace ran out/.test(l.message)));
});

test("a stop within the grace lets the running handler complete", async (t) => {
  const db = await freshSchema(t);
  const pool = db.pool(8);
  await insertRows(pool, [{ source: "s", key: "k1" }]);
  const stop = new AbortController();
  let started = false;
  let release;
  const gate = new Promise((r) => (release = r));
  const worker = new InboxWorker(fromPg(pool), { source: "s", pollIntervalMs: 20 });
  const run = worker.run(async () => {
    started = true;
    await gate;
  }, stop.signal);
  await eventually(() => started, { what: "the handler" });
  stop.abort();
  release();
  await run;
  assert.equal((await rowOf(pool, "s", "k1")).state, "processed");
});
