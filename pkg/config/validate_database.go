package config

import (
	"reflect"
	"regexp"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

var (
	// sqlIdentifier is the rule for table and column names. QueueBox puts
	// them into SQL text, so nothing else may pass.
	sqlIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// captureName is the rule for the capture identity, slot and publication.
	captureName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
)

// urlPrefixes lists the accepted URL forms of each database type. The JDBC
// form comes first because the reference documents it.
var urlPrefixes = map[string][]string{
	DatabasePostgres:  {"jdbc:postgresql://", "postgres://", "postgresql://"},
	DatabaseSQLServer: {"jdbc:sqlserver://", "sqlserver://"},
}

func (v *validator) database() {
	db, path := v.cfg.Database, keyPath{"database"}
	typeOK := v.oneOf(path.key("type"), db.Type, DatabasePostgres, DatabaseSQLServer)
	if v.required(path.key("url"), db.URL) && typeOK {
		v.databaseURL(db)
	}
	// No password is a password too: a server with trust or peer
	// authentication asks for none, and one that asks refuses the login
	// (28P01), which stops the start at once naming the key.
	v.required(path.key("username"), db.Username)
	v.positive(path.key("poolSize"), int64(db.PoolSize))
	v.nonNegative(path.key("connectionTimeoutMs"), int64(db.ConnectionTimeoutMs))
	v.nonNegative(path.key("startupTimeoutMs"), int64(db.StartupTimeoutMs))
	v.tableNames(db, path)
	v.partitioning(db, path.key("partitioning"))
}

// partitioning checks the bounds always and, when partitioning is on, that
// the dialect and the table layout are ones QueueBox can partition: the
// partitioned tables are built from the bundled migrations, so renamed
// tables or columns (custom tables) cannot be partitioned by QueueBox.
func (v *validator) partitioning(db Database, path keyPath) {
	p := db.Partitioning
	if p.Interval.D < MinPartitionInterval || p.Interval.D > MaxPartitionInterval {
		v.add(path.key("interval"), "must be from 5m to 7d, got %q", p.Interval.Text)
	}
	if p.Premake < 1 || p.Premake > MaxPartitionPremake {
		v.add(path.key("premake"), "must be from 1 to %d, got %d", MaxPartitionPremake, p.Premake)
	}
	if !p.Enabled {
		return
	}
	if db.Type != DatabasePostgres {
		v.add(path.key("enabled"), "true needs %s postgresql, got %q (partitioning is not written for SQL Server yet)",
			keyPath{"database", "type"}.ref(), db.Type)
	}
	if db.OutboxTableName != "outbox" || db.InboxTableName != "inbox" ||
		db.ColumnMapping.Outbox != DefaultOutboxColumns() || db.ColumnMapping.Inbox != DefaultInboxColumns() {
		v.add(path.key("enabled"), "true needs the default table and column names: QueueBox partitions the tables of its own migrations only, not custom tables")
	}
}

// databaseURL checks that the URL matches the type and parses. A file:
// reference is not special here, so it fails the prefix rule. Messages
// print the URL masked.
func (v *validator) databaseURL(db Database) {
	path := keyPath{"database", "url"}
	prefixes := urlPrefixes[db.Type]
	if !hasPrefixFold(db.URL, prefixes) {
		v.add(path, "must start with %s (or %s) to match %s %s, got %q", prefixes[0],
			strings.Join(prefixes[1:], " or "), keyPath{"database", "type"}.ref(), db.Type, maskURL(db.URL))
		return
	}
	u, err := ParseDatabaseURL(db.URL)
	if err != nil {
		v.add(path, "%v", err)
		return
	}
	v.dbURL = &u
}

func hasPrefixFold(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// tableNames checks every table and column name, and refuses a renamed one
// while the bundled migrations, which know the default names only, run.
func (v *validator) tableNames(db Database, path keyPath) {
	v.tableName(db, path.key("outboxTableName"), db.OutboxTableName, "outbox")
	v.tableName(db, path.key("inboxTableName"), db.InboxTableName, "inbox")
	cm := path.key("columnMapping")
	v.columns(db, cm.key("outbox"), reflect.ValueOf(db.ColumnMapping.Outbox), reflect.ValueOf(DefaultOutboxColumns()))
	v.columns(db, cm.key("inbox"), reflect.ValueOf(db.ColumnMapping.Inbox), reflect.ValueOf(DefaultInboxColumns()))
}

func (v *validator) columns(db Database, path keyPath, got, def reflect.Value) {
	for i := 0; i < got.NumField(); i++ {
		name := yamlenv.KeyOf(got.Type().Field(i))
		v.tableName(db, path.key(name), got.Field(i).String(), def.Field(i).String())
	}
}

func (v *validator) tableName(db Database, path keyPath, name, defaultName string) {
	if !sqlIdentifier.MatchString(name) {
		v.add(path, "must be a SQL identifier (a letter or _ first, then letters, digits and _), got %q", name)
		return
	}
	if db.Migrate && name != defaultName {
		v.add(path, "renames %q to %q while %s is true; the bundled migrations create the default names only, so apply your own schema and set database.migrate to false",
			defaultName, name, keyPath{"database", "migrate"}.ref())
	}
}

func (v *validator) capture() {
	c, path := v.cfg.Outbox.Capture, keyPath{"outbox", "capture"}
	dbType := v.cfg.Database.Type
	if v.oneOf(path.key("mode"), c.Mode, CapturePolling, CapturePostgresLogical, CaptureSQLServerCDC) {
		v.captureMode(c, path, dbType)
	}
	for key, value := range map[string]string{"identity": c.Identity, "slot": c.Slot, "publication": c.Publication} {
		if !captureName.MatchString(value) {
			v.add(path.key(key), "must be a lower case letter, then lower case letters, digits and _, at most 63 characters, got %q", value)
		}
	}
	if c.Enabled {
		v.required(path.key("stateDirectory"), c.StateDirectory)
	}
	v.positive(path.key("reconciliationIntervalMs"), int64(c.ReconciliationIntervalMs))
	if c.Connection.Port != nil {
		v.port(path.key("connection", "port"), *c.Connection.Port)
	}
}

// captureMode checks the mode against enabled, the database type and the
// hosts of database.url.
func (v *validator) captureMode(c Capture, path keyPath, dbType string) {
	typeRef := keyPath{"database", "type"}.ref()
	switch {
	case c.Mode == CapturePolling && c.Enabled:
		v.add(path.key("enabled"), "true needs %s postgres-logical or sqlserver-cdc, got polling", path.key("mode").ref())
	case c.Mode == CapturePostgresLogical && dbType != DatabasePostgres:
		v.add(path.key("mode"), "postgres-logical needs %s postgresql, got %q", typeRef, dbType)
	case c.Mode == CaptureSQLServerCDC && dbType != DatabaseSQLServer:
		v.add(path.key("mode"), "sqlserver-cdc needs %s sqlserver, got %q", typeRef, dbType)
	}
	// Capture reads one host, so a multi-host URL must say which one.
	if c.Mode != CapturePolling && v.dbURL != nil && len(v.dbURL.Hosts) > 1 && strings.TrimSpace(c.Connection.Hostname) == "" {
		v.add(path.key("connection", "hostname"), "required because %s names %d hosts (%s) and capture reads from one",
			keyPath{"database", "url"}.ref(), len(v.dbURL.Hosts), v.dbURL.hostNames())
	}
}
