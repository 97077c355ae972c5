import type { InboxConnection, InboxTransaction } from "./connection.js";
import { headerValue, parseHeaders, parsePayload, type InboxMessage } from "./message.js";
import { candLimit, resolveOptions, type InboxWorkerOptions, type ResolvedInboxWorkerOptions } from "./options.js";
import { errorText, sanitize, sanitizeError } from "./redact.js";
import { retryAfter, type InboxFailureAction } from "./retry.js";
import { inboxSql, type InboxStatements } from "./sqltext.js";

/**
 * Handles one message in tx, the transaction in which the library then
 * completes the message. Write every change through tx; do not commit or
 * roll back, the library owns both. Throw (or reject) to fail the message:
 * the library rolls tx back and asks the retry policy. signal aborts when
 * the lease is lost and when a shutdown runs out of grace; the library then
 * rolls tx back and completes nothing. Work outside tx (an HTTP call) can
 * run again for the same message: deduplicate it on message.source and
 * message.idempotencyKey together.
 */
export type InboxHandler<Tx> = (message: InboxMessage, tx: Tx, signal: AbortSignal) => Promise<unknown> | unknown;

/** The reason of a handler's signal when the lease of its message was lost. */
export class InboxLeaseLostError extends Error {
  constructor() {
    super("queuebox: the lease of the message was lost; another worker owns it");
    this.name = "InboxLeaseLostError";
  }
}

/** The reason of a handler's signal when the shutdown grace ran out. */
export class InboxShutdownError extends Error {
  constructor() {
    super("queuebox: the shutdown grace ran out");
    this.name = "InboxShutdownError";
  }
}

/**
 * Claims and handles the rows of one pull source. Several workers, in one
 * process or many, may run on one source: the claim never gives two of
 * them one row, nor two rows of one aggregate at the same time.
 */
export class InboxWorker<Tx> {
  /** The options with their defaults filled in. */
  readonly options: ResolvedInboxWorkerOptions;
  readonly #connection: InboxConnection<Tx>;
  readonly #sql: InboxStatements;
  #running = false;

  /**
   * Builds a worker on a connection of fromPg or fromMssql. It throws a
   * TypeError that lists every setting that cannot work, and runs no
   * statement: the worker needs the bundled schema at V10 or later, or a
   * mapped one with the same columns.
   */
  constructor(connection: InboxConnection<Tx>, options: InboxWorkerOptions) {
    if (!connection || typeof connection.claim !== "function" || typeof connection.begin !== "function") {
      throw new TypeError("queuebox: InboxWorker needs a connection from fromPg or fromMssql");
    }
    this.options = resolveOptions(options, connection.dialect);
    this.#connection = connection;
    this.#sql = inboxSql(this.options.dialect, this.options.schema);
  }

  /**
   * Claims and handles rows until signal aborts, and resolves then. It
   * rejects only for a handler that is not a function or a second run of
   * the same worker at the same time; a database failure is logged and the
   * claim tried again after the poll interval.
   *
   * Each claim runs alone in its own transaction, committed before a
   * handler starts. Each handler gets a new transaction; after it resolves
   * the worker completes the row in that transaction and commits, and a
   * completion that changes no row (the lease was lost) rolls the
   * handler's writes back. A handler that throws rolls back, and the retry
   * policy retries or dead-letters the row. Leases are renewed every third
   * of the lease.
   *
   * When signal aborts, run claims nothing more and starts no claimed row
   * (their leases expire). Running handlers keep their leases for
   * shutdownGraceMs; after that their signals abort, and the worker
   * completes nothing for them and spends no attempt. run resolves when
   * every handler has returned.
   */
  async run(handler: InboxHandler<Tx>, signal?: AbortSignal): Promise<void> {
    if (typeof handler !== "function") throw new TypeError("queuebox: run needs a handler function");
    if (this.#running) throw new Error("queuebox: the worker is already running");
    this.#running = true;
    try {
      await new Runner(this.options, this.#connection, this.#sql, handler).run(signal ?? new AbortController().signal);
    } finally {
      this.#running = false;
    }
  }
}

/** One claimed row of a run; the token never leaves it. */
interface Row {
  readonly message: InboxMessage;
  readonly token: string;
  readonly control: AbortController;
  /** Set when the handler finishes: no renewal runs beside the completion, the retry or the dead letter. */
  finishing: boolean;
  renewal: Promise<void> | undefined;
  /** Local time before the last claim or renewal. */
  renewedAt: number;
  /** The handler transaction, while the handler itself runs in it. */
  open: InboxTransaction<unknown> | undefined;
  interrupting: Promise<void> | undefined;
}

type Fields = Record<string, unknown>;

/** The state of one run. */
class Runner<Tx> {
  readonly #held = new Map<string, Row>();
  readonly #handlers = new Set<Promise<void>>();
  #active = 0;
  readonly #slotWaiters: (() => void)[] = [];
  /** A handler finished since the claimer last waited: an aggregate may be free. */
  #finished = false;
  #wake: (() => void) | undefined;
  #renewing: Promise<void> | undefined;

  constructor(
    readonly o: ResolvedInboxWorkerOptions,
    readonly connection: InboxConnection<Tx>,
    readonly sql: InboxStatements,
    readonly handler: InboxHandler<Tx>,
  ) {}

  async run(stop: AbortSignal): Promise<void> {
    const timer = setInterval(() => {
      this.#renewing ??= this.renewAll().finally(() => (this.#renewing = undefined));
    }, Math.max(Math.floor(this.o.leaseMs / 3), 1));
    try {
      await this.claimLoop(stop);
      await this.drain();
    } finally {
      clearInterval(timer);
      await this.#renewing;
    }
  }

  // ---- claiming -------------------------------------------------------

  async claimLoop(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      // Claim only once a handler can start: rows claimed while every slot
      // is busy would sit under a lease that another worker, with a free
      // slot, could have used.
      if (!(await this.acquire(stop))) return;
      this.releaseSlot();
      let batch: Row[];
      try {
        batch = await this.claim();
      } catch (err) {
        if (stop.aborted) return;
        if (this.connection.isLockTimeout?.(err)) {
          this.log("warn", "the claim waited too long for the source's application lock (Msg 51000); waiting before the next claim",
            { source: this.o.source, err });
        } else {
          this.log("error", "claim inbox messages", { source: this.o.source, err });
        }
        await this.wait(stop, this.o.pollIntervalMs, false);
        continue;
      }
      for (let i = 0; i < batch.length; i++) {
        if (stop.aborted || !(await this.acquire(stop))) {
          this.abandon(batch.slice(i));
          return;
        }
        this.start(batch[i]);
      }
      if (batch.length === 0) await this.wait(stop, this.o.pollIntervalMs, true);
    }
  }

  /** Claims one batch and registers its rows for renewal. */
  async claim(): Promise<Row[]> {
    const started = Date.now();
    const got = await this.connection.claim(this.sql.claim, {
      source: this.o.source,
      batch: this.o.batchSize,
      lease_ms: this.o.leaseMs,
      cand_limit: candLimit(this.o.batchSize),
    });
    const rows: Row[] = [];
    for (const r of got) {
      const headers = parseHeaders(r[6]);
      const row: Row = {
        message: Object.freeze({
          id: String(r[0]),
          source: String(r[1]),
          idempotencyKey: String(r[2]),
          aggregateId: r[3] == null ? null : String(r[3]),
          eventType: r[4] == null ? null : String(r[4]),
          payload: parsePayload(r[5]),
          headers: Object.freeze(headers),
          attempt: Number(r[7]),
          correlationId: r[8] == null ? null : String(r[8]),
          traceparent: headerValue(headers, "traceparent"),
          tracestate: headerValue(headers, "tracestate"),
        }),
        token: String(r[9]),
        control: new AbortController(),
        finishing: false,
        renewal: undefined,
        renewedAt: started,
        open: undefined,
        interrupting: undefined,
      };
      this.#held.set(row.message.id, row);
      rows.push(row);
    }
    return rows;
  }

  /** Waits for ms, for stop, or (when early) for a finished handler. */
  wait(stop: AbortSignal, ms: number, early: boolean): Promise<void> {
    if (stop.aborted) return Promise.resolve();
    if (early && this.#finished) {
      this.#finished = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener("abort", done);
        if (this.#wake === done) this.#wake = undefined;
        this.#finished = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      stop.addEventListener("abort", done, { once: true });
      if (early) this.#wake = done;
    });
  }

  /** Takes a handler slot; false when stop aborted first. */
  acquire(stop: AbortSignal): Promise<boolean> {
    if (this.#active < this.o.maxConcurrency) {
      this.#active++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const granted = () => {
        stop.removeEventListener("abort", refused);
        resolve(true); // the slot passes from the finished handler
      };
      const refused = () => {
        const i = this.#slotWaiters.indexOf(granted);
        if (i >= 0) this.#slotWaiters.splice(i, 1);
        resolve(false);
      };
      this.#slotWaiters.push(granted);
      stop.addEventListener("abort", refused, { once: true });
    });
  }

  releaseSlot(): void {
    const next = this.#slotWaiters.shift();
    if (next) next();
    else this.#active--;
  }

  /**
   * Drops claimed rows that will not start: nothing renews them, and their
   * leases expire, so another worker takes them without a spent attempt.
   */
  abandon(rows: Row[]): void {
    for (const row of rows) {
      row.control.abort(new InboxShutdownError());
      this.forget(row);
    }
    if (rows.length > 0) {
      this.log("info", "stopping: left claimed messages to their leases", { source: this.o.source, count: rows.length });
    }
  }

  forget(row: Row): void {
    if (this.#held.get(row.message.id) === row) this.#held.delete(row.message.id);
  }

  /** Runs the handler of one row on a slot already taken. */
  start(row: Row): void {
    const p: Promise<void> = this.handle(row)
      .catch((err) => this.log("error", "handle the message", this.fields(row, { err })))
      .finally(() => {
        this.forget(row);
        this.releaseSlot();
        this.#finished = true;
        this.#wake?.();
        this.#handlers.delete(p);
      });
    this.#handlers.add(p);
  }

  /** Waits for running handlers for the shutdown grace, then aborts them and waits for them to return. */
  async drain(): Promise<void> {
    if (this.#handlers.size === 0) return;
    const idle = Promise.allSettled([...this.#handlers]).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.o.shutdownGraceMs)));
    const finished = await Promise.race([idle, grace]);
    clearTimeout(timer);
    if (finished) return;
    const running = [...this.#held.values()];
    for (const row of running) row.control.abort(new InboxShutdownError());
    this.log("warn", "the shutdown grace ran out: aborted the running handlers; their messages wait for their leases to expire",
      { source: this.o.source, count: running.length, grace_ms: this.o.shutdownGraceMs });
    await idle;
  }

  // ---- handling -------------------------------------------------------

  /** Runs the handler of one row in a new transaction and completes, retries or dead-letters the row. */
  async handle(row: Row): Promise<void> {
    const signal = row.control.signal;
    if (signal.aborted) return; // lost before it started
    let tx: InboxTransaction<Tx>;
    try {
      tx = await this.connection.begin();
    } catch (err) {
      // Nothing ran, so no attempt is spent: the lease expires and a later
      // claim takes the row again.
      if (!(await this.stopped(row, undefined))) this.log("error", "begin the handler transaction", this.fields(row, { err }));
      return;
    }
    row.open = tx;
    const onAbort = () => {
      if (row.open && tx.interrupt) row.interrupting = tx.interrupt().catch(() => undefined);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    let failed = false;
    let failure: unknown;
    try {
      if (!signal.aborted) await this.handler(row.message, tx.handle, signal);
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      row.open = undefined;
      signal.removeEventListener("abort", onAbort);
      await row.interrupting; // no cancel request may outlive the handler's statements
    }
    if (await this.stopped(row, tx)) return;
    if (failed) return this.fail(row, tx, failure);
    await this.finish(row);
    let changed: number;
    try {
      changed = await tx.execute(this.sql.complete, { id: row.message.id, token: row.token });
    } catch (err) {
      if (await this.stopped(row, tx)) return;
      return this.fail(row, tx, wrap("complete the message", err));
    }
    if (await this.stopped(row, tx)) return;
    if (changed > 1) return this.fail(row, tx, new Error(`complete changed ${changed} rows, not one`));
    if (changed === 0) {
      await tx.rollback();
      this.log("warn", "the completion changed no row: another worker owns the message; rolled the handler's writes back",
        this.fields(row));
      return;
    }
    try {
      await tx.commit();
    } catch (err) {
      if (await this.stopped(row, undefined)) return;
      // The commit failed, so the writes and the completion are gone
      // together; the fenced retry finds the row unless it committed after
      // all, and then changes nothing.
      await this.fail(row, undefined, wrap("commit the handler transaction", err));
    }
  }

  /**
   * Tells whether the row's signal aborted (a lost lease, or a shutdown
   * past the grace); it then rolls tx back, logs the cause and spends no
   * attempt.
   */
  async stopped(row: Row, tx: InboxTransaction<Tx> | undefined): Promise<boolean> {
    const signal = row.control.signal;
    if (!signal.aborted) return false;
    if (tx) await tx.rollback();
    if (signal.reason instanceof InboxLeaseLostError) {
      this.log("warn", "lost the lease while the handler ran: rolled its writes back", this.fields(row));
    } else {
      this.log("warn", "aborted the handler at shutdown: rolled its writes back; the message waits for its lease to expire",
        this.fields(row));
    }
    return true;
  }

  /** Rolls tx back and applies the retry policy with a fenced write. */
  async fail(row: Row, tx: InboxTransaction<Tx> | undefined, failure: unknown): Promise<void> {
    if (tx) await tx.rollback();
    await this.finish(row);
    const action = this.decide(row, failure);
    const reason = sanitizeError(failure);
    const values = { id: row.message.id, token: row.token, error: reason };
    let changed: number;
    try {
      changed = action.kind === "dead"
        ? await this.connection.execute(this.sql.dead, values)
        : await this.connection.execute(this.sql.retry, { ...values, delay_ms: action.delayMs });
    } catch (err) {
      this.log("error", "record the failed message; it runs again after its lease expires",
        this.fields(row, { failure: reason, err }));
      return;
    }
    if (changed === 0) {
      this.log("warn", "the handler failed, and another worker owns the message now", this.fields(row, { failure: reason }));
    } else if (action.kind === "dead") {
      this.log("error", "the handler failed; dead-lettered the message", this.fields(row, { failure: reason }));
    } else {
      this.log("warn", "the handler failed; the message runs again later",
        this.fields(row, { failure: reason, delay_ms: action.delayMs }));
    }
  }

  /** Asks the policy; a policy that throws or answers nothing usable retries after a second. */
  decide(row: Row, failure: unknown): InboxFailureAction {
    try {
      const action = this.o.retryPolicy(row.message, failure) as InboxFailureAction | undefined;
      if (action?.kind === "dead") return action;
      if (action?.kind === "retry") return retryAfter(action.delayMs);
      this.log("error", "the retry policy returned no retryAfter or deadLetter; retrying the message", this.fields(row));
    } catch (err) {
      this.log("error", "the retry policy threw; retrying the message", this.fields(row, { err }));
    }
    return retryAfter(1000);
  }

  // ---- renewing -------------------------------------------------------

  async renewAll(): Promise<void> {
    for (const row of [...this.#held.values()]) await this.renew(row);
  }

  /**
   * Renews one lease. A renewal that changes no row lost the lease: the
   * handler's signal aborts. A renewal that fails keeps the handler running
   * while the last lease may still hold.
   */
  renew(row: Row): Promise<void> {
    if (row.finishing || row.control.signal.aborted) return Promise.resolve();
    const started = Date.now();
    const renewal = (async () => {
      try {
        const changed = await timeout(
          this.connection.execute(this.sql.renew, { id: row.message.id, token: row.token, lease_ms: this.o.leaseMs }),
          Math.max(Math.floor(this.o.leaseMs / 3), 1),
        );
        if (changed === 0) row.control.abort(new InboxLeaseLostError());
        else row.renewedAt = started;
      } catch (err) {
        if (Date.now() - row.renewedAt >= this.o.leaseMs) {
          this.log("warn", "could not renew the lease before it ran out: aborting the handler", this.fields(row, { err }));
          row.control.abort(new InboxLeaseLostError());
          return;
        }
        this.log("warn", "renew the lease", this.fields(row, { err }));
      }
    })();
    row.renewal = renewal;
    return renewal.finally(() => {
      if (row.renewal === renewal) row.renewal = undefined;
    });
  }

  /** Stops the renewals of the row, waiting for one in flight. */
  async finish(row: Row): Promise<void> {
    row.finishing = true;
    await row.renewal;
  }

  // ---- logging --------------------------------------------------------

  fields(row: Row, extra: Fields = {}): Fields {
    const m = row.message;
    const out: Fields = { message_id: m.id, source: m.source, attempt: m.attempt };
    if (m.correlationId !== null) out.correlation_id = m.correlationId;
    return Object.assign(out, extra);
  }

  log(level: "info" | "warn" | "error", message: string, fields: Fields): void {
    const logger = this.o.logger;
    if (!logger) return;
    const clean: Fields = {};
    for (const [k, v] of Object.entries(fields)) {
      clean[k] = v instanceof Error ? sanitizeError(v) : typeof v === "string" ? sanitize(v) : v;
    }
    try {
      logger[level](sanitize(message), clean);
    } catch {
      // A logger that throws must not stop the worker.
    }
  }
}

function wrap(context: string, err: unknown): Error {
  return new Error(`${context}: ${errorText(err)}`, { cause: err });
}

function timeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
