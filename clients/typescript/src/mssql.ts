import type { InboxConnection, InboxTransaction, StatementValues } from "./connection.js";
import type { InboxStatement } from "./sqltext.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The part of an `mssql` Request that the adapter uses. */
interface MssqlRequestLike {
  input(name: string, value: unknown): unknown;
  query(text: string): Promise<any>;
  arrayRowMode?: boolean;
}

/** The part of the `mssql` module that the adapter uses: `import mssql from "mssql"` fits. */
export interface MssqlModuleLike {
  Request: new (parent: any) => MssqlRequestLike;
  Transaction: new (pool: any) => MssqlTransactionLike;
}

/** The part of an `mssql` Transaction that the adapter uses. */
export interface MssqlTransactionLike {
  begin(isolationLevel?: number): Promise<unknown>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The part of an `mssql` ConnectionPool that the adapter uses. */
export interface MssqlPoolLike {
  request(): MssqlRequestLike;
}

function bind(request: MssqlRequestLike, statement: InboxStatement, values: StatementValues): MssqlRequestLike {
  for (const p of statement.params) {
    const v = values[p];
    if (v === undefined) throw new Error(`queuebox: statement ${statement.name}: no value for parameter ${p}`);
    request.input(p, v);
  }
  return request;
}

function changed(result: { rowsAffected?: number[] }): number {
  const counts = result.rowsAffected ?? [];
  return counts.length === 0 ? 0 : counts[counts.length - 1];
}

/**
 * The adapter for an `mssql` ConnectionPool; it takes the `mssql` module
 * itself, so the package imports no driver. The handler receives the
 * `mssql` Transaction: run every write through `new mssql.Request(tx)`.
 * Set the pool's requestTimeout to at least 30000 ms: the claim waits up to
 * 10 seconds for the source's application lock, and the default of 15
 * seconds is too short. The claim runs outside any transaction: its batch
 * opens and commits its own. This adapter cannot cancel a running handler
 * statement; the handler must honour its signal itself.
 */
export function fromMssql<T extends MssqlTransactionLike>(
  mssql: { Request: new (parent: any) => MssqlRequestLike; Transaction: new (pool: any) => T },
  pool: MssqlPoolLike,
): InboxConnection<T> {
  if (!mssql || typeof mssql.Request !== "function" || typeof mssql.Transaction !== "function") {
    throw new TypeError("queuebox: fromMssql needs the mssql module as its first argument");
  }
  if (!pool || typeof pool.request !== "function") {
    throw new TypeError("queuebox: fromMssql needs an mssql ConnectionPool as its second argument");
  }
  return {
    dialect: "sqlserver",
    async claim(statement, values) {
      const request = bind(pool.request(), statement, values);
      request.arrayRowMode = true;
      const result = await request.query(statement.text);
      const sets: unknown[][][] = result.recordsets ?? [];
      return (sets.length === 0 ? result.recordset ?? [] : sets[sets.length - 1]) as unknown[][];
    },
    async execute(statement, values) {
      return changed(await bind(pool.request(), statement, values).query(statement.text));
    },
    async begin(): Promise<InboxTransaction<T>> {
      const tx = new mssql.Transaction(pool);
      await tx.begin();
      let done = false;
      return {
        handle: tx,
        async execute(statement, values) {
          return changed(await bind(new mssql.Request(tx), statement, values).query(statement.text));
        },
        async commit() {
          done = true;
          await tx.commit();
        },
        async rollback() {
          if (done) return;
          done = true;
          await tx.rollback().catch(() => undefined);
        },
      };
    },
    isLockTimeout(error) {
      const e = error as { number?: unknown; originalError?: { number?: unknown; info?: { number?: unknown } } };
      return e?.number === 51000 || e?.originalError?.number === 51000 || e?.originalError?.info?.number === 51000;
    },
  };
}
