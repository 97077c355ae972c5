import type { InboxMessage } from "./message.js";

/** The answer of a retry policy: retryAfter or deadLetter. */
export type InboxFailureAction =
  | { readonly kind: "retry"; readonly delayMs: number }
  | { readonly kind: "dead" };

/**
 * Decides what happens to a message whose handler failed. The library
 * calls it after it rolled the handler's transaction back. message.attempt
 * is the attempt that failed (0 for the first delivery); failure is what
 * the handler threw.
 */
export type InboxRetryPolicy = (message: InboxMessage, failure: unknown) => InboxFailureAction;

/**
 * Returns the message to pending, due after ms milliseconds, with its
 * attempt raised by one. A negative or non-finite delay counts as zero; the
 * delay is stored in whole milliseconds.
 */
export function retryAfter(ms: number): InboxFailureAction {
  const delayMs = Number.isFinite(ms) && ms > 0 ? Math.floor(ms) : 0;
  return Object.freeze({ kind: "retry", delayMs });
}

/** Moves the message to state dead; no worker claims it again. */
export function deadLetter(): InboxFailureAction {
  return DEAD;
}

const DEAD: InboxFailureAction = Object.freeze({ kind: "dead" });

/** The settings of defaultRetryPolicy. */
export interface DefaultRetryPolicyOptions {
  /** The ceiling: a failed attempt at or above it dead-letters. 5 by default. */
  maxAttempts?: number;
  /** The delay after attempt 0, in milliseconds. 1000 by default. */
  baseDelayMs?: number;
  /** The longest delay, in milliseconds. 300000 by default. */
  maxDelayMs?: number;
  /** The random change of a delay, a fraction of it either way. 0.2 by default. */
  jitter?: number;
}

/** The defaults of defaultRetryPolicy. */
export const DEFAULT_RETRY = Object.freeze({ maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 300_000, jitter: 0.2 });

/**
 * The exponential policy: it retries while the failed attempt is below
 * maxAttempts and dead-letters after that. The delay is baseDelayMs times
 * 2^attempt, at most maxDelayMs, changed by a random amount of up to
 * jitter of itself either way, and never above maxDelayMs. A row starts at
 * attempt 0, so maxAttempts 5 allows six deliveries. Out-of-range values
 * are clamped: a negative count or delay to 0, jitter to [0, 1].
 */
export function defaultRetryPolicy(options: DefaultRetryPolicyOptions = {}): InboxRetryPolicy {
  const maxAttempts = Math.max(num(options.maxAttempts, DEFAULT_RETRY.maxAttempts), 0);
  const base = Math.max(num(options.baseDelayMs, DEFAULT_RETRY.baseDelayMs), 0);
  const ceil = Math.max(num(options.maxDelayMs, DEFAULT_RETRY.maxDelayMs), 0);
  const jitter = Math.min(Math.max(num(options.jitter, DEFAULT_RETRY.jitter), 0), 1);
  return (message) => {
    if (message.attempt >= maxAttempts) return deadLetter();
    let delay = Math.min(base * 2 ** Math.max(message.attempt, 0), ceil);
    delay *= 1 + jitter * (2 * Math.random() - 1);
    return retryAfter(Math.min(delay, ceil));
  };
}

function num(value: number | undefined, fallback: number): number {
  return typeof value === "number" && !Number.isNaN(value) ? value : fallback;
}
