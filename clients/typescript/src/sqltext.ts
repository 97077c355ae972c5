import { sqlFiles } from "./sql.generated.js";
import { defaultSchema, quote, schemaProblems, type Dialect, type InboxSchema } from "./schema.js";

/**
 * One statement of the SQL contract made ready for a driver: the text with
 * the names of the schema and the driver's parameter markers ($1, $2, ...
 * on PostgreSQL; @name on SQL Server, bound by name), and the parameter
 * names in the order of their markers.
 */
export interface InboxStatement {
  readonly name: StatementName;
  readonly text: string;
  readonly params: readonly string[];
}

/** The five statements of the SQL contract. */
export type StatementName = "claim" | "renew" | "complete" | "retry" | "dead";

/** The statements of one dialect and schema. */
export type InboxStatements = Readonly<Record<StatementName, InboxStatement>>;

const NAMES: StatementName[] = ["claim", "renew", "complete", "retry", "dead"];

/** The parameter names of the SQL contract. */
const CONTRACT_PARAMS = new Set(["source", "batch", "lease_ms", "cand_limit", "id", "token", "delay_ms", "error"]);

/**
 * The SQL statements for a dialect ("postgresql" by default) and a schema
 * (defaultSchema by default), rendered from the embedded files of
 * examples/pull/sql. It throws for a schema with a name that is not a
 * plain identifier.
 */
export function inboxSql(dialect: Dialect = "postgresql", schema: InboxSchema = defaultSchema): InboxStatements {
  if (dialect !== "postgresql" && dialect !== "sqlserver") {
    throw new TypeError(`queuebox: dialect ${JSON.stringify(dialect)} is neither "postgresql" nor "sqlserver"`);
  }
  const problems = schemaProblems(schema);
  if (problems.length > 0) throw new TypeError(`queuebox: ${problems.join("; ")}`);
  const names = new Map<string, string>();
  for (const field of Object.keys(defaultSchema) as (keyof InboxSchema)[]) {
    names.set(defaultSchema[field], quote(dialect, schema[field]));
  }
  const out = {} as Record<StatementName, InboxStatement>;
  for (const name of NAMES) {
    const file = dialect === "sqlserver" ? `${name}.sqlserver.sql` : `${name}.sql`;
    const raw = sqlFiles[file];
    if (raw === undefined) throw new Error(`queuebox: no embedded statement ${file}`);
    const { text, params } = render(dialect, raw, names, file);
    out[name] = Object.freeze({ name, text, params: Object.freeze(params) });
  }
  return Object.freeze(out);
}

/**
 * Rewrites one SQL text. Comments are dropped; string literals and quoted
 * identifiers are kept as they are; each identifier token that is a
 * default name becomes the quoted mapped name. On PostgreSQL a parameter
 * is :name (a "::" cast is not one) and becomes $n, one number per
 * distinct name; on SQL Server it is @name and stays, and only the names
 * of the contract are listed (a variable that the batch declares gets no
 * value).
 */
function render(dialect: Dialect, src: string, names: Map<string, string>, file: string) {
  let out = "";
  const params: string[] = [];
  const index = new Map<string, number>();
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "-" && src[i + 1] === "-") {
      const end = src.indexOf("\n", i);
      i = end < 0 ? src.length : end;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) throw new Error(`queuebox: ${file}: unterminated comment`);
      i = end + 2;
      out += " ";
    } else if (c === "'" || c === '"' || (c === "[" && dialect === "sqlserver")) {
      const closer = c === "[" ? "]" : c;
      let j = i + 1;
      for (;;) {
        const k = src.indexOf(closer, j);
        if (k < 0) throw new Error(`queuebox: ${file}: unterminated quote at ${i}`);
        j = k + 1;
        if (src[j] === closer) {
          j++; // a doubled quote
          continue;
        }
        break;
      }
      out += src.slice(i, j);
      i = j;
    } else if (c === ":" && dialect === "postgresql") {
      if (src[i + 1] === ":") {
        out += "::";
        i += 2;
        continue;
      }
      let j = i + 1;
      while (j < src.length && isWord(src[j])) j++;
      if (j === i + 1) {
        out += c;
        i++;
        continue;
      }
      const p = src.slice(i + 1, j);
      let n = index.get(p);
      if (n === undefined) {
        params.push(p);
        n = params.length;
        index.set(p, n);
      }
      out += `$${n}`;
      i = j;
    } else if (c === "@" && dialect === "sqlserver") {
      let j = i + 1;
      while (j < src.length && isWord(src[j])) j++;
      const p = src.slice(i + 1, j);
      if (CONTRACT_PARAMS.has(p) && !index.has(p)) {
        params.push(p);
        index.set(p, params.length);
      }
      out += src.slice(i, j);
      i = j;
    } else if (isWord(c)) {
      let j = i;
      while (j < src.length && isWord(src[j])) j++;
      const word = src.slice(i, j);
      // A word that starts with a digit is a number (1e5), never a name.
      const mapped = /^[0-9]/.test(word) ? undefined : names.get(word);
      out += mapped ?? word;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return { text: out.trim(), params };
}

function isWord(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c === "_" || c === "$";
}
