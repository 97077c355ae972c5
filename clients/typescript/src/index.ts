export { InboxWorker, InboxLeaseLostError, InboxShutdownError, type InboxHandler } from "./worker.js";
export type { InboxConnection, InboxTransaction, StatementValues } from "./connection.js";
export { fromPg, type PgClientLike, type PgPoolLike, type PgClientOf } from "./pg.js";
export { fromMssql, type MssqlModuleLike, type MssqlPoolLike, type MssqlTransactionLike } from "./mssql.js";
export type { InboxMessage } from "./message.js";
export {
  defaultRetryPolicy,
  retryAfter,
  deadLetter,
  DEFAULT_RETRY,
  type InboxRetryPolicy,
  type InboxFailureAction,
  type DefaultRetryPolicyOptions,
} from "./retry.js";
export { defaultSchema, type InboxSchema, type Dialect } from "./schema.js";
export { inboxSql, type InboxStatement, type InboxStatements, type StatementName } from "./sqltext.js";
export { sanitize, sanitizeError, MAX_ERROR_LENGTH } from "./redact.js";
export {
  resolveOptions,
  candLimit,
  type InboxWorkerOptions,
  type ResolvedInboxWorkerOptions,
  type InboxLogger,
} from "./options.js";
export { sqlFiles } from "./sql.generated.js";
