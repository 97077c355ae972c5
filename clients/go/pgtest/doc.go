// Package pgtest holds the PostgreSQL tests and benchmarks of the Go pull
// client, against the local server (QUEUEBOX_TEST_POSTGRES_URL, by default
// postgres://postgres@127.0.0.1:5432/postgres). It is a module of its own
// because pgx v5.13.0, the driver of the tests, needs Go 1.25, and the
// client module states go 1.24 and depends on nothing; a module's go
// version cannot be below its dependencies'.
package pgtest
