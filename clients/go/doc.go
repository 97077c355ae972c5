// Package queuebox is the Go pull client of QueueBox: an InboxWorker
// claims the rows of one consumption: pull inbox source, runs a Handler
// for each in a database transaction, and completes the row in that same
// transaction, so the business writes and the completion commit together.
// A failed handler rolls back, and the RetryPolicy retries the row later
// or dead-letters it.
//
// The library needs only database/sql. The application registers the
// driver: github.com/jackc/pgx/v5/stdlib for PostgreSQL, or
// github.com/microsoft/go-mssqldb for SQL Server. It writes no schema; it
// needs the bundled schema at V10 or later.
//
// The statements it runs are the SQL contract of the pull clients,
// examples/pull/sql in the QueueBox repository, embedded from the sql
// directory of this module (a generated copy; see generate.go).
package queuebox
