import type { InboxConnection, InboxTransaction, StatementValues } from "./connection.js";
import type { InboxStatement } from "./sqltext.js";

/** The part of a `pg` client that the adapter uses: a PoolClient fits. */
export interface PgClientLike {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(config: any, values?: any): Promise<any>;
  release(destroy?: boolean | Error): void;
  readonly processID?: number | null;
}

/** The part of a `pg` Pool that the adapter uses. */
export interface PgPoolLike<C extends PgClientLike> {
  connect(): Promise<C>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(config: any, values?: any): Promise<any>;
}

/**
 * The client type of a pool: what its promise connect() gives. For `pg`,
 * whose Pool declares the callback form of connect last, it is read from
 * the callback.
 */
export type PgClientOf<P> = [ClientFromCallback<P>] extends [never]
  ? ClientFromPromise<P>
  : unknown extends ClientFromCallback<P>
    ? ClientFromPromise<P>
    : ClientFromCallback<P>;

type ClientFromCallback<P> = P extends {
  connect(callback: (err: any, client: infer C, done: any) => void): void; // eslint-disable-line @typescript-eslint/no-explicit-any
}
  ? NonNullable<C>
  : never;

type ClientFromPromise<P> = P extends { connect(): Promise<infer C> } ? C : PgClientLike;

function args(statement: InboxStatement, values: StatementValues): (string | number)[] {
  return statement.params.map((p) => {
    const v = values[p];
    if (v === undefined) throw new Error(`queuebox: statement ${statement.name}: no value for parameter ${p}`);
    return v;
  });
}

/**
 * Begins the claim's transaction with the two settings the SQL contract
 * asks for (examples/pull/sql/claim.sql): sorting off, which on a
 * partitioned inbox keeps the ordered read of due rows from sorting a
 * whole partition, and JIT off, since with sorting off the claim's
 * estimated cost would make the server compile it at every run.
 */
const CLAIM_BEGIN = "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL enable_sort = off; SET LOCAL jit = off";

function changed(result: { rowCount?: number | null }): number {
  return result.rowCount ?? 0;
}

/**
 * The adapter for a `pg` Pool. The handler receives the pool client that
 * holds its transaction: run every write through `tx.query`. Give the pool
 * at least maxConcurrency + 2 connections (one per running handler, one for
 * the claim, one for renewals and failures); `pg` waits for a free
 * connection and the default pool has 10.
 */
export function fromPg<P extends PgPoolLike<PgClientLike>>(pool: P): InboxConnection<PgClientOf<P>> {
  type C = PgClientOf<P>;
  if (!pool || typeof pool.connect !== "function" || typeof pool.query !== "function") {
    throw new TypeError("queuebox: fromPg needs a pg Pool");
  }
  return {
    dialect: "postgresql",
    async claim(statement, values) {
      const client = await pool.connect();
      // A client whose transaction state is unknown is not reused.
      let destroy: Error | undefined;
      try {
        // The settings the SQL contract asks of the claim's transaction
        // (claim.sql), in the same round trip as BEGIN.
        await client.query(CLAIM_BEGIN).catch((e: Error) => {
          destroy = e;
          throw e;
        });
        try {
          const result = await client.query({ text: statement.text, values: args(statement, values), rowMode: "array" });
          await client.query("COMMIT");
          return result.rows as unknown[][];
        } catch (err) {
          await client.query("ROLLBACK").catch((e: Error) => {
            destroy = e;
          });
          throw err;
        }
      } finally {
        client.release(destroy);
      }
    },
    async execute(statement, values) {
      return changed(await pool.query({ text: statement.text, values: args(statement, values) }));
    },
    async begin(): Promise<InboxTransaction<C>> {
      const client = (await pool.connect()) as C & PgClientLike;
      try {
        await client.query("BEGIN");
      } catch (err) {
        client.release(err instanceof Error ? err : true);
        throw err;
      }
      let released = false;
      const release = (destroy?: boolean | Error) => {
        if (released) return;
        released = true;
        client.release(destroy);
      };
      return {
        handle: client,
        async execute(statement, values) {
          return changed(await client.query({ text: statement.text, values: args(statement, values) }));
        },
        async commit() {
          try {
            await client.query("COMMIT");
            release();
          } catch (err) {
            release(err instanceof Error ? err : true);
            throw err;
          }
        },
        async rollback() {
          if (released) return;
          try {
            await client.query("ROLLBACK");
            release();
          } catch (err) {
            release(err instanceof Error ? err : true);
          }
        },
        async interrupt() {
          const pid = client.processID;
          if (released || typeof pid !== "number") return;
          // pg cannot abort a query from the client side; the server cancels
          // the running statement of that backend, as database/sql does.
          await pool.query("SELECT pg_cancel_backend($1)", [pid]).catch(() => undefined);
        },
      };
    },
  };
}
