// Package migrations embeds the bundled schema migrations of both
// databases, so every binary carries the files it applies at start.
//
// File names follow V<version>__<description>.sql. The files are also the
// documented way to apply the schema by hand (database.migrate: false).
package migrations

import "embed"

// Files holds postgres/*.sql and sqlserver/*.sql.
//
//go:embed postgres/*.sql sqlserver/*.sql
var Files embed.FS

// Dialect directories inside Files.
const (
	Postgres  = "postgres"
	SQLServer = "sqlserver"
)
