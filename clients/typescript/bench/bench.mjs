// Processed rows per second of the library beside a SQL-only loop that runs
// the same statements in the same transactions at the same concurrency, in
// the same run, against the local PostgreSQL. Run after `npm run build`:
//   node bench/bench.mjs [rows]
import { InboxWorker, fromPg, inboxSql, candLimit } from "@alternayte/queuebox-inbox";
import { loadavg, cpus } from "node:os";
import { freshSchema, insertRows, eventually } from "../test/helpers.mjs";

const ROWS = Number(process.argv[2] ?? 3000);
const SOURCE = "bench";
const sql = inboxSql();

const handlers = {
  "no-op": async () => {},
  "one insert": async (message, tx) => {
    await tx.query("INSERT INTO effects (msg_id) VALUES ($1)", [message.id]);
  },
};

async function load(pool) {
  await pool.query("TRUNCATE inbox, effects");
  const rows = [];
  for (let i = 0; i < ROWS; i++) rows.push({ source: SOURCE, key: `k${i}`, aggregate: `a${i}`, payload: { i } });
  await insertRows(pool, rows);
  await pool.query("ANALYZE inbox");
}

async function remaining(pool) {
  return (await pool.query("SELECT count(*)::int AS n FROM inbox WHERE state <> 'processed'")).rows[0].n;
}

async function library(db, monitor, handler, concurrency, batch) {
  const pool = db.pool(concurrency + 2);
  const stop = new AbortController();
  const worker = new InboxWorker(fromPg(pool), { source: SOURCE, maxConcurrency: concurrency, batchSize: batch, pollIntervalMs: 50 });
  const t0 = performance.now();
  const run = worker.run(handler, stop.signal);
  await eventually(async () => (await remaining(monitor)) === 0, { timeoutMs: 600_000, everyMs: 5, what: "the library" });
  const ms = performance.now() - t0;
  stop.abort();
  await run;
  await pool.end();
  return ROWS / (ms / 1000);
}

// The SQL-only loop: one claimer, each claim alone in a READ COMMITTED
// transaction, then each row on a free slot in its own transaction: the
// handler's statements, complete.sql, COMMIT. Renewals and retries do not
// run (no row fails, and a run is shorter than a third of the lease).
async function sqlOnly(db, handler, concurrency, batch) {
  const pool = db.pool(concurrency + 2);
  let active = 0;
  const waiters = [];
  const inFlight = new Set();
  const acquire = () => (active < concurrency ? (active++, Promise.resolve()) : new Promise((r) => waiters.push(r)));
  const release = () => { const w = waiters.shift(); if (w) w(); else active--; };
  const handle = async (r) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await handler({ id: r[0], payload: JSON.parse(r[5]) }, client);
      const done = await client.query({ text: sql.complete.text, values: [r[0], r[9]] });
      if (done.rowCount !== 1) throw new Error("lost a row");
      await client.query("COMMIT");
    } finally {
      client.release();
    }
  };
  const t0 = performance.now();
  for (;;) {
    const client = await pool.connect();
    let rows;
    try {
      await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
      rows = (await client.query({ text: sql.claim.text, values: [SOURCE, candLimit(batch), batch, 30_000], rowMode: "array" })).rows;
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    if (rows.length === 0) {
      if (inFlight.size === 0) break;
      await Promise.race(inFlight);
      continue;
    }
    for (const r of rows) {
      await acquire();
      const p = handle(r).finally(() => { release(); inFlight.delete(p); });
      inFlight.add(p);
    }
  }
  const ms = performance.now() - t0;
  await pool.end();
  return ROWS / (ms / 1000);
}

const db = await freshSchema();
try {
  const setup = db.pool(2);
  await setup.query("CREATE TABLE effects (msg_id text NOT NULL)");
  console.log(`rows per run: ${ROWS}; ${cpus().length} CPUs; load average at start: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log("| handler | concurrency | batch | library rows/s | SQL-only rows/s | library / SQL |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const [name, handler] of Object.entries(handlers)) {
    for (const concurrency of [1, 8]) {
      for (const batch of [10, 100]) {
        await load(setup);
        const lib = await library(db, setup, handler, concurrency, batch);
        if ((await remaining(setup)) !== 0) throw new Error("the library left rows");
        await load(setup);
        const raw = await sqlOnly(db, handler, concurrency, batch);
        if ((await remaining(setup)) !== 0) throw new Error("the SQL loop left rows");
        console.log(`| ${name} | ${concurrency} | ${batch} | ${lib.toFixed(0)} | ${raw.toFixed(0)} | ${(100 * lib / raw).toFixed(0)} % |`);
      }
    }
  }
  console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
} finally {
  await db.drop();
}
