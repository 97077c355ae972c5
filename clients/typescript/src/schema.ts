/** The database of the inbox: the value of the dialect option. */
export type Dialect = "postgresql" | "sqlserver";

/**
 * The names of the inbox table and its columns, for a table that does not
 * use the bundled names (database.inboxTableName and
 * database.columnMapping.inbox of the server). Start from defaultSchema:
 * `{ ...defaultSchema, table: "qb_inbox" }`. Every name must be a plain SQL
 * identifier (a letter or an underscore, then letters, digits and
 * underscores); the library quotes every name and refuses any other, so a
 * mapping cannot carry SQL.
 */
export interface InboxSchema {
  table: string;
  id: string;
  source: string;
  idempotencyKey: string;
  aggregateId: string;
  eventType: string;
  payload: string;
  headers: string;
  state: string;
  consumption: string;
  attempt: string;
  lastError: string;
  scheduledAt: string;
  createdAt: string;
  processedAt: string;
  claimedAt: string;
  claimToken: string;
  leaseExpiresAt: string;
  correlationId: string;
}

/** The names of the bundled migrations. */
export const defaultSchema: Readonly<InboxSchema> = Object.freeze({
  table: "inbox",
  id: "id",
  source: "source",
  idempotencyKey: "idempotency_key",
  aggregateId: "aggregate_id",
  eventType: "event_type",
  payload: "payload",
  headers: "headers",
  state: "state",
  consumption: "consumption",
  attempt: "attempt",
  lastError: "last_error",
  scheduledAt: "scheduled_at",
  createdAt: "created_at",
  processedAt: "processed_at",
  claimedAt: "claimed_at",
  claimToken: "claim_token",
  leaseExpiresAt: "lease_expires_at",
  correlationId: "correlation_id",
});

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Every problem of a schema: a name that is not a plain identifier, or two columns with one name. */
export function schemaProblems(schema: unknown): string[] {
  if (typeof schema !== "object" || schema === null) return ["schema is not an object"];
  const s = schema as Record<string, unknown>;
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const field of Object.keys(defaultSchema) as (keyof InboxSchema)[]) {
    const name = s[field];
    if (typeof name !== "string" || !IDENTIFIER.test(name)) {
      problems.push(
        `schema.${field}, ${JSON.stringify(name)}, is not a plain SQL identifier (letters, digits and underscores, not starting with a digit)`,
      );
      continue;
    }
    if (field === "table") continue; // the table shares no namespace with the columns
    const other = seen.get(name);
    if (other) problems.push(`schema.${field}, ${JSON.stringify(name)}, is also the name of schema.${other}`);
    else seen.set(name, field);
  }
  for (const key of Object.keys(s)) {
    if (!(key in defaultSchema)) problems.push(`schema.${key} is not a name of the inbox schema`);
  }
  return problems;
}

/** Quotes a name that schemaProblems accepted. */
export function quote(dialect: Dialect, name: string): string {
  return dialect === "sqlserver" ? `[${name.replaceAll("]", "]]")}]` : `"${name.replaceAll('"', '""')}"`;
}
