// The worker of the "Receive a webhook" tutorial: it stores each order of
// the `orders` source in the `orders` table and completes the message in
// the same transaction. Node 22.18 or later runs it as it is
// (`node worker.ts`); older Node versions compile it with tsc first.
import pg from "pg";
import { InboxWorker, fromPg } from "@alternayte/queuebox-inbox";

const stopping = new AbortController();
process.on("SIGINT", () => stopping.abort());
process.on("SIGTERM", () => stopping.abort());

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL ?? "postgres://queuebox:queuebox@localhost:5432/queuebox",
});
const worker = new InboxWorker(fromPg(pool), {
  source: "orders",
  logger: {
    info: (message, fields) => console.log(message, fields),
    warn: (message, fields) => console.warn(message, fields),
    error: (message, fields) => console.error(message, fields),
  },
});

console.log("Waiting for messages of the source 'orders'. Press Ctrl+C to stop.");
await worker.run(async (message, tx) => {
  const order = message.payload as { id: string; total: number };
  await tx.query("INSERT INTO orders (id, total) VALUES ($1, $2)", [order.id, order.total]);
  console.log(`Stored the order ${message.idempotencyKey}.`);
}, stopping.signal);
await pool.end();
