package queuebox

import "strings"

// Dialect is the database of the inbox, the value of Options.Dialect.
type Dialect string

const (
	// DialectPostgreSQL runs the PostgreSQL statements, for a *sql.DB of
	// the pgx stdlib driver (or another driver that takes $n parameters).
	// It is the default.
	DialectPostgreSQL Dialect = "postgresql"
	// DialectSQLServer runs the SQL Server statements, for a *sql.DB of
	// go-mssqldb, with named @parameters. Give every claim a deadline of at
	// least 30 seconds (the driver's default has none): the claim waits up
	// to 10 seconds for the per-source application lock.
	DialectSQLServer Dialect = "sqlserver"
)

// quote quotes a name that identifier has accepted.
func (d Dialect) quote(name string) string {
	if d == DialectSQLServer {
		return "[" + strings.ReplaceAll(name, "]", "]]") + "]"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// file is the name of a statement's file in sql/ for the dialect.
func (d Dialect) file(statement string) string {
	if d == DialectSQLServer {
		return statement + ".sqlserver.sql"
	}
	return statement + ".sql"
}
