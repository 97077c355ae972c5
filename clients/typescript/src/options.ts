import { defaultRetryPolicy, type InboxRetryPolicy } from "./retry.js";
import { defaultSchema, schemaProblems, type Dialect, type InboxSchema } from "./schema.js";

/** Receives the library's log lines, every message and string field redacted. Field keys are snake_case. */
export interface InboxLogger {
  info(message: string, fields: Record<string, unknown>): void;
  warn(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/** The settings of an InboxWorker; every field but source has a default. */
export interface InboxWorkerOptions {
  /** The consumption: pull source whose rows the worker takes. Required, at most 255 bytes. */
  source: string;
  /** The largest number of rows in one claim: 10, at most 500. */
  batchSize?: number;
  /** The lease duration in milliseconds: 30000, at least 100. Renewed every third of it. */
  leaseMs?: number;
  /** The largest number of handlers at one time: 1. */
  maxConcurrency?: number;
  /** The wait after a claim that returned nothing: 1000 ms. A finished handler ends it early. */
  pollIntervalMs?: number;
  /** How long a stop waits for running handlers before it aborts them: 30000 ms. */
  shutdownGraceMs?: number;
  /** "postgresql" or "sqlserver": the adapter's dialect, else "postgresql". */
  dialect?: Dialect;
  /** The names of a mapped table or mapped columns: defaultSchema. */
  schema?: InboxSchema;
  /** What a failed handler does to its row: defaultRetryPolicy(). */
  retryPolicy?: InboxRetryPolicy;
  /** Receives redacted log lines; without one the library prints nothing. */
  logger?: InboxLogger;
}

/** The options with their defaults filled in. */
export interface ResolvedInboxWorkerOptions {
  readonly source: string;
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly maxConcurrency: number;
  readonly pollIntervalMs: number;
  readonly shutdownGraceMs: number;
  readonly dialect: Dialect;
  readonly schema: Readonly<InboxSchema>;
  readonly retryPolicy: InboxRetryPolicy;
  readonly logger: InboxLogger | undefined;
}

export const MAX_BATCH_SIZE = 500;
export const MIN_LEASE_MS = 100;
const MAX_SOURCE_BYTES = 255;

/**
 * Returns the options with their defaults filled in, or throws a TypeError
 * that lists every setting that cannot work. dialect, when given, is the
 * default of options.dialect (an adapter's dialect).
 */
export function resolveOptions(options: InboxWorkerOptions, dialect?: Dialect): ResolvedInboxWorkerOptions {
  const problems: string[] = [];
  const o = (options ?? {}) as Partial<InboxWorkerOptions>;
  if (typeof o.source !== "string" || o.source === "") problems.push("options.source is required");
  else if (Buffer.byteLength(o.source, "utf8") > MAX_SOURCE_BYTES) {
    problems.push(`options.source is ${Buffer.byteLength(o.source, "utf8")} bytes; the inbox source column holds at most ${MAX_SOURCE_BYTES}`);
  }
  const int = (name: keyof InboxWorkerOptions, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const v = o[name];
    if (v === undefined) return fallback;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      problems.push(
        max === Number.MAX_SAFE_INTEGER
          ? `options.${name} ${String(v)} is not an integer of at least ${min}`
          : `options.${name} ${String(v)} is not an integer in ${min}..${max}`,
      );
      return fallback;
    }
    return v;
  };
  const batchSize = int("batchSize", 10, 1, MAX_BATCH_SIZE);
  const leaseMs = int("leaseMs", 30_000, MIN_LEASE_MS, 2_147_483_647);
  const maxConcurrency = int("maxConcurrency", 1, 1);
  const pollIntervalMs = int("pollIntervalMs", 1000, 0, 2_147_483_647);
  const shutdownGraceMs = int("shutdownGraceMs", 30_000, 0, 2_147_483_647);
  const d = o.dialect ?? dialect ?? "postgresql";
  if (d !== "postgresql" && d !== "sqlserver") {
    problems.push(`options.dialect ${JSON.stringify(d)} is neither "postgresql" nor "sqlserver"`);
  } else if (dialect && d !== dialect) {
    problems.push(`options.dialect "${d}" differs from the connection's dialect "${dialect}"`);
  }
  let schema: Readonly<InboxSchema> = defaultSchema;
  if (o.schema !== undefined) {
    problems.push(...schemaProblems(o.schema));
    schema = Object.freeze({ ...o.schema }); // the worker keeps its own copy
  }
  if (o.retryPolicy !== undefined && typeof o.retryPolicy !== "function") {
    problems.push("options.retryPolicy is not a function");
  }
  const logger = o.logger;
  if (logger !== undefined && (typeof logger !== "object" || logger === null ||
      typeof logger.info !== "function" || typeof logger.warn !== "function" || typeof logger.error !== "function")) {
    problems.push("options.logger needs info, warn and error methods");
  }
  if (problems.length > 0) throw new TypeError(`queuebox: ${problems.join("; ")}`);
  return Object.freeze({
    source: o.source as string,
    batchSize,
    leaseMs,
    maxConcurrency,
    pollIntervalMs,
    shutdownGraceMs,
    dialect: d,
    schema,
    retryPolicy: o.retryPolicy ?? defaultRetryPolicy(),
    logger,
  });
}

/** The claim's bound on candidates, as the contract computes it: LEAST(GREATEST(3 * batch, 50), 500). */
export function candLimit(batch: number): number {
  return Math.min(Math.max(3 * batch, 50), 500);
}
