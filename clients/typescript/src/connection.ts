import type { Dialect } from "./schema.js";
import type { InboxStatement } from "./sqltext.js";

/** The values of a statement's parameters, by their names in the SQL contract. */
export type StatementValues = Readonly<Record<string, string | number>>;

/**
 * What a worker needs from a database: fromPg and fromMssql build one from
 * the application's pool. Tx is the type of the transaction that the
 * handler receives.
 */
export interface InboxConnection<Tx> {
  /** The dialect of the adapter; the worker's dialect option defaults to it. */
  readonly dialect: Dialect;
  /**
   * Runs the claim in a transaction that holds nothing else and has
   * committed when the promise resolves, and returns its rows as arrays of
   * the columns in the order of the statement.
   */
  claim(statement: InboxStatement, values: StatementValues): Promise<unknown[][]>;
  /** Runs a statement on its own (autocommit) and returns the number of rows it changed. */
  execute(statement: InboxStatement, values: StatementValues): Promise<number>;
  /** Opens a new transaction for a handler. */
  begin(): Promise<InboxTransaction<Tx>>;
  /** Tells whether a failed claim is transient (SQL Server Msg 51000). */
  isLockTimeout?(error: unknown): boolean;
}

/** One open handler transaction of an InboxConnection. */
export interface InboxTransaction<Tx> {
  /** What the handler receives: a pg client inside BEGIN, an mssql Transaction. */
  readonly handle: Tx;
  /** Runs a statement in the transaction and returns the number of rows it changed. */
  execute(statement: InboxStatement, values: StatementValues): Promise<number>;
  commit(): Promise<void>;
  /** Rolls back and releases; never throws. */
  rollback(): Promise<void>;
  /**
   * Cancels the statement that the handler runs in the transaction, if the
   * driver can; called when the handler's signal aborts.
   */
  interrupt?(): Promise<void>;
}
