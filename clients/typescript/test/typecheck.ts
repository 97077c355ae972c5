// Compiled by `tsc -p tsconfig.typecheck.json` (no output): the adapters
// accept the real pg types, and the handler's tx is a pg PoolClient.
import pg from "pg";
import {
  InboxWorker, fromPg, defaultSchema, defaultRetryPolicy, retryAfter, deadLetter,
  type InboxRetryPolicy, type InboxMessage,
} from "../src/index.js";

const pool = new pg.Pool();
const retryPolicy: InboxRetryPolicy = (message: InboxMessage, failure: unknown) =>
  failure instanceof SyntaxError ? deadLetter() : message.attempt >= 5 ? deadLetter() : retryAfter(2 ** message.attempt * 1000);
const worker = new InboxWorker(fromPg(pool), {
  source: "orders",
  schema: { ...defaultSchema, table: "qb_inbox", idempotencyKey: "dedup_key" },
  retryPolicy: retryPolicy ?? defaultRetryPolicy(),
});
const stopping = new AbortController();
export const done: Promise<void> = worker.run(async (message, tx, signal) => {
  const client: pg.PoolClient = tx;
  const order = message.payload as { id: string; total: number };
  signal.throwIfAborted();
  await client.query("INSERT INTO orders (id, total) VALUES ($1, $2)", [order.id, order.total]);
}, stopping.signal);
