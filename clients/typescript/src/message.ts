/** One claimed inbox row, as the handler sees it. It holds no claim token. */
export interface InboxMessage {
  /** The inbox row identifier. */
  readonly id: string;
  /** The source name. */
  readonly source: string;
  /** The deduplication key; the identity of a message is source and idempotencyKey together. */
  readonly idempotencyKey: string;
  /** The unit of order, or null. */
  readonly aggregateId: string | null;
  /** Null when the source set none. */
  readonly eventType: string | null;
  /** The JSON body, parsed. */
  readonly payload: unknown;
  /** The stored headers, one string value per name; empty when there are none. */
  readonly headers: Readonly<Record<string, string>>;
  /** 0 on the first delivery; one more on each retry. */
  readonly attempt: number;
  /** Follows the message through the logs, or null. */
  readonly correlationId: string | null;
  /**
   * The stored W3C traceparent header (any letter case), or null: the
   * context of the request or message that brought the row in. Pass it to
   * your tracer's propagator to continue that trace in the handler.
   */
  readonly traceparent: string | null;
  /** The stored W3C tracestate header, or null. */
  readonly tracestate: string | null;
}

/** Returns the header name in any letter case, or null. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | null {
  if (Object.prototype.hasOwnProperty.call(headers, name)) return headers[name] ?? null;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return null;
}

/**
 * Reads the headers column, a JSON object of strings. A value of another
 * JSON type keeps its JSON text; text that is not an object gives no
 * headers.
 */
export function parseHeaders(text: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  let raw: unknown = text;
  if (typeof text === "string") {
    try {
      raw = JSON.parse(text);
    } catch {
      return out;
    }
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw)) out[k] = typeof v === "string" ? v : JSON.stringify(v);
  return out;
}

/** Parses the payload column; text that is not JSON stays text. */
export function parsePayload(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
