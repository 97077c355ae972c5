package queuebox

// The SQL files are copies of examples/pull/sql, the SQL contract that
// every pull client shares. Edit them there, then run go generate here.
//go:generate go run ./internal/sqlsync ../../examples/pull/sql sql
