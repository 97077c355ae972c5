// Package sqlserver is the sqlserver-cdc capture mode: it checks that
// change data capture is on for the database and the outbox table, reads
// the change tables from the stored LSN, and wakes the deliver replicas
// through a wake row, because SQL Server has no LISTEN/NOTIFY.
//
// Runner is the capture component of queuebox-capture for this mode: the
// owner lock, the checks, the reconciliation of the state files and the
// reader loop. Everything is written against small interfaces (DB,
// Locker) so that the decisions are tested with fakes; none of it has
// run against a SQL Server on the machines it was written on.
package sqlserver

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/wake"
	wakesql "github.com/alternayte/queuebox/pkg/wake/sqlserver"
)

//go:embed queries/*.sql
var queries embed.FS

// DB is what the connector needs of database/sql (*sql.DB fits through
// a thin adapter). Implementations must be safe for concurrent use.
type DB interface {
	// QueryRow runs a query that answers one row and scans it into dest;
	// it returns ErrNoRows when there is none.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) error
	Exec(ctx context.Context, query string, args ...any) error
}

// ErrNoRows is what DB.QueryRow returns for an empty answer. It is the
// sentinel of pkg/wake/sqlserver, so one adapter serves the connector and
// the wake row's reader.
var ErrNoRows = wakesql.ErrNoRows

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Statement returns one embedded statement, rendered for instance.
func Statement(name, instance string) (string, error) {
	text, err := queries.ReadFile("queries/" + name + ".sql")
	if err != nil {
		return "", err
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(text))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, map[string]string{"Instance": instance}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// statementNames are the statements a Connector renders.
var statementNames = []string{"cdc_database_enabled", "cdc_table_enabled", "cdc_agent_running", "cdc_max_lsn",
	"cdc_min_lsn", "cdc_inserts", "wake_table", "wake_bump", "capture_state_find",
	"capture_state_insert", "capture_state_delete", "capture_state_touch", "owner_lock_try", "owner_lock_release"}

// Connector reads the change tables of one capture instance.
type Connector struct {
	db       DB
	schema   string
	table    string
	instance string
	sql      map[string]string
}

// New renders the statements. The capture instance is SQL Server's
// default, <schema>_<table>.
func New(db DB, schema, table string) (*Connector, error) {
	if !identifier.MatchString(schema) || !identifier.MatchString(table) {
		return nil, fmt.Errorf("sqlserver capture: schema %q and table %q must be SQL identifiers", schema, table)
	}
	c := &Connector{db: db, schema: schema, table: table, instance: schema + "_" + table, sql: map[string]string{}}
	for _, name := range statementNames {
		s, err := Statement(name, c.instance)
		if err != nil {
			return nil, err
		}
		c.sql[name] = s
	}
	return c, nil
}

// The faults of the start checks of page 09: each stops capture and
// names the command that clears it.
const (
	FaultDatabaseNotEnabled capture.FaultKind = "cdc-database-disabled"
	FaultTableNotEnabled    capture.FaultKind = "cdc-table-disabled"
	FaultTableMissing       capture.FaultKind = "outbox-table-missing"
	FaultAgentStopped       capture.FaultKind = "agent-stopped"
)

// restart is the last step of every check fault: a fault stops capture
// until the process starts again.
const restart = ", then restart this process"

// Check runs the start checks: change data capture on the database and
// on the outbox table, and the SQL Server Agent, whose jobs fill the
// change tables. A failed check is a *capture.Fault naming the fix, so
// the connector reports it once instead of failing in a loop; a query
// that fails is a plain error, retried. agentUnknown is true when the
// login may not see the Agent's sessions (no VIEW SERVER STATE): the
// check then passes and the caller says so in the log. Check also
// creates the wake table when it is missing.
func (c *Connector) Check(ctx context.Context) (agentUnknown bool, err error) {
	var on int
	err = c.db.QueryRow(ctx, c.sql["cdc_database_enabled"], nil, &on)
	if err != nil && !errors.Is(err, ErrNoRows) {
		return false, fmt.Errorf("check change data capture on the database: %w", err)
	}
	if on != 1 {
		return false, &capture.Fault{Kind: FaultDatabaseNotEnabled,
			Detail: "change data capture is not enabled on this database",
			Next:   "run EXEC sys.sp_cdc_enable_db in it" + restart}
	}
	if err := c.checkTable(ctx); err != nil {
		return false, err
	}
	var agent int
	if err := c.db.QueryRow(ctx, c.sql["cdc_agent_running"], nil, &agent); err != nil {
		return false, fmt.Errorf("check the SQL Server Agent: %w", err)
	}
	if agent == 0 {
		return false, &capture.Fault{Kind: FaultAgentStopped,
			Detail: "the SQL Server Agent does not run, so nothing fills the change tables",
			Next:   "start the SQL Server Agent (on Linux: mssql-conf set sqlagent.enabled true)" + restart}
	}
	if err := c.db.Exec(ctx, c.sql["wake_table"]); err != nil {
		return false, fmt.Errorf("create the wake table: %w", err)
	}
	return agent < 0, nil
}

// checkTable checks that the outbox table exists and is tracked.
func (c *Connector) checkTable(ctx context.Context) error {
	var on int
	err := c.db.QueryRow(ctx, c.sql["cdc_table_enabled"], []any{c.schema, c.table}, &on)
	if errors.Is(err, ErrNoRows) {
		return &capture.Fault{Kind: FaultTableMissing,
			Detail: fmt.Sprintf("the outbox table %s.%s does not exist", c.schema, c.table),
			Next:   "check outbox.capture.schema and database.outboxTableName" + restart}
	}
	if err != nil {
		return fmt.Errorf("check change data capture on %s.%s: %w", c.schema, c.table, err)
	}
	if on != 1 {
		return &capture.Fault{Kind: FaultTableNotEnabled,
			Detail: fmt.Sprintf("change data capture does not track %s.%s", c.schema, c.table),
			Next: fmt.Sprintf("run EXEC sys.sp_cdc_enable_table @source_schema = N'%s', @source_name = N'%s', @role_name = NULL, @supports_net_changes = 0",
				c.schema, c.table) + restart}
	}
	return nil
}

// Bounds returns the range of LSNs the change table of the capture
// instance holds now: the lowest still held (cleanup moves it) and the
// highest of the database. Either is nil when the server has none yet.
func (c *Connector) Bounds(ctx context.Context) (low, high LSN, err error) {
	// Scanned as []byte, which database/sql sets to nil for a NULL (a
	// database whose capture job has not logged anything yet); a named
	// slice type would refuse the NULL.
	var lo, hi []byte
	if err := c.db.QueryRow(ctx, c.sql["cdc_min_lsn"], []any{c.instance}, &lo); err != nil {
		return nil, nil, fmt.Errorf("read the lowest change LSN of %s: %w", c.instance, err)
	}
	if err := c.db.QueryRow(ctx, c.sql["cdc_max_lsn"], nil, &hi); err != nil {
		return nil, nil, fmt.Errorf("read the highest change LSN: %w", err)
	}
	return LSN(lo), LSN(hi), nil
}

// Inserts counts the inserts after from (exclusive) up to to
// (inclusive); from must lie in the held range and before to.
func (c *Connector) Inserts(ctx context.Context, from, to LSN) (int64, error) {
	var n int64
	if err := c.db.QueryRow(ctx, c.sql["cdc_inserts"], []any{[]byte(from), []byte(to)}, &n); err != nil {
		return 0, fmt.Errorf("read the changes of %s: %w", c.instance, err)
	}
	return n, nil
}

// Bump moves the generation of the wake row of wake.Channel, which every
// deliver replica polls (pkg/wake/sqlserver, offered by pkg/store/sqlserver
// WakeSource).
func (c *Connector) Bump(ctx context.Context) error {
	if err := c.db.Exec(ctx, c.sql["wake_bump"], wake.Channel); err != nil {
		return fmt.Errorf("bump the wake row: %w", err)
	}
	return nil
}
