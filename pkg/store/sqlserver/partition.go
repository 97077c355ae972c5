package sqlserver

import (
	"strings"

	"github.com/alternayte/queuebox/pkg/schema"
)

// Time partitioning of the outbox and inbox in T-SQL: the design of the
// PostgreSQL store (docs/partitions.md), written as the statements of
// queries/partition_*.sql and inbox_insert_partitioned.sql. No SQL Server
// runs here, so they are reviewed through their golden files only and
// nothing runs them: database.partitioning refuses sqlserver until they
// have run against a server. partitionStatements renders them as a store
// would.

// partitionData is what a partition template renders from: one table's
// quoted names, and the names of its partition function and scheme,
// quoted and as the catalog holds them.
type partitionData struct {
	// Name is the table's name unquoted, for lock resources.
	Name                        string
	Table, ID, State, CreatedAt string
	Function, FunctionName      string
	Scheme, SchemeName          string
	// UpdatedAt is the outbox's updated_at, by which it ages a row; empty
	// for the inbox, which ages a row by created_at.
	UpdatedAt string
	// Final are the final states, which retention may remove.
	Final [2]string
}

// partitionTables returns the data of the outbox and the inbox of l.
func partitionTables(l schema.Layout) [2]partitionData {
	table := func(raw string) partitionData {
		// The names are identifiers (schema.Layout checked them); the
		// literal form doubles a quote all the same.
		lit := strings.ReplaceAll(raw, "'", "''")
		return partitionData{
			Name:     lit,
			Function: schema.SQLServer.Quote("pf_" + raw + "_created_at"), FunctionName: "pf_" + lit + "_created_at",
			Scheme: schema.SQLServer.Quote("ps_" + raw + "_created_at"), SchemeName: "ps_" + lit + "_created_at",
		}
	}
	o, i := table(l.OutboxTable), table(l.InboxTable)
	o.Table, o.ID, o.State, o.CreatedAt, o.UpdatedAt = l.O.Table, l.O.ID, l.O.State, l.O.CreatedAt, l.O.UpdatedAt
	o.Final = [2]string{"sent", "dead"}
	i.Table, i.ID, i.State, i.CreatedAt = l.I.Table, l.I.ID, l.I.State, l.I.CreatedAt
	i.Final = [2]string{"processed", "dead"}
	return [2]partitionData{o, i}
}

// partitionStatementNames are the per-table statements of partitioning.
var partitionStatementNames = []string{
	"partition_create", "partition_align", "partition_mode", "partition_list", "partition_lock",
	"partition_unlock", "partition_split", "partition_candidate", "partition_drop",
}

// partitionStatements renders every statement of partitioning for l:
// each per-table statement as <name>_outbox and <name>_inbox, and the
// partitioned inbox insert.
func partitionStatements(l schema.Layout) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range partitionTables(l) {
		suffix := "_outbox"
		if t.Table == l.I.Table {
			suffix = "_inbox"
		}
		for _, name := range partitionStatementNames {
			sql, err := render(name, t)
			if err != nil {
				return nil, err
			}
			out[name+suffix] = sql
		}
	}
	insert, err := render("inbox_insert_partitioned", l)
	if err != nil {
		return nil, err
	}
	out["inbox_insert_partitioned"] = insert
	// The row-by-row retention of a partitioned outbox, which bounds
	// created_at too (retention_outbox_age.sql).
	l.Partitioned = true
	age, err := render("retention_outbox_age", l)
	if err != nil {
		return nil, err
	}
	out["retention_age_partitioned_outbox"] = age
	return out, nil
}
