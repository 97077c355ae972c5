// Test helpers: a fresh schema per test, migrated with ../../migrations/postgres.
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import pg from "pg";

const here = dirname(fileURLToPath(import.meta.url));
const migrations = join(here, "..", "..", "..", "migrations", "postgres");

export const DATABASE_URL = process.env.QUEUEBOX_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** The migration files in version order (V1, V2, ..., V10, ...). */
export function migrationFiles() {
  return readdirSync(migrations)
    .filter((f) => /^V\d+__.*\.sql$/.test(f))
    .sort((a, b) => Number(a.match(/^V(\d+)/)[1]) - Number(b.match(/^V(\d+)/)[1]));
}

/**
 * Creates a schema, migrates it and returns { name, pool(max), drop() }:
 * every pool of the schema has its search_path set.
 */
export async function freshSchema(t) {
  const name = `qbts_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${name}`);
    await admin.query(`SET search_path TO ${name}`);
    for (const f of migrationFiles()) await admin.query(readFileSync(join(migrations, f), "utf8"));
  } finally {
    await admin.end();
  }
  const pools = [];
  const schema = {
    name,
    pool(max = 10) {
      const p = new pg.Pool({ connectionString: DATABASE_URL, max, options: `-c search_path=${name}` });
      p.on("error", () => {}); // a backend that a test cancelled or killed
      pools.push(p);
      return p;
    },
    async drop() {
      await Promise.all(pools.splice(0).map((p) => p.end().catch(() => {})));
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      await c.end();
    },
  };
  t?.after(() => schema.drop());
  return schema;
}

/** Inserts pull rows: [{ source, key, aggregate, payload, headers }]. */
export async function insertRows(pool, rows) {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const values = [];
    const params = [];
    chunk.forEach((r, j) => {
      const b = j * 7;
      values.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}::jsonb, $${b + 5}::jsonb, $${b + 6}, 'pull', ` +
        `now() - interval '1 hour' + $${b + 7}::int * interval '1 millisecond', ` +
        `now() - interval '1 hour' + $${b + 7}::int * interval '1 millisecond')`);
      params.push(r.source, r.key, r.aggregate ?? null, JSON.stringify(r.payload ?? {}), JSON.stringify(r.headers ?? {}),
        r.correlationId ?? null, i + j);
    });
    // created_at and scheduled_at follow the order of rows, one millisecond
    // apart, in the past: the order of an aggregate is the order of rows.
    await pool.query(
      `INSERT INTO inbox (source, idempotency_key, aggregate_id, payload, headers, correlation_id, consumption,
                          created_at, scheduled_at)
       VALUES ${values.join(", ")}`,
      params,
    );
  }
}

/** Polls check() until it returns a truthy value or the deadline passes. */
export async function eventually(check, { timeoutMs = 30_000, everyMs = 25, what = "the condition" } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A logger that keeps every line. */
export function memoryLogger() {
  const lines = [];
  const at = (level) => (message, fields) => lines.push({ level, message, fields });
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}
