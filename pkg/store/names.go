package store

import (
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/schema"
)

// Names maps the table and column names of the database block onto the
// names that package schema quotes, which reads no configuration. The
// column lists are converted as a whole: the two packages keep the same
// fields, and the build fails the day they do not.
func Names(db config.Database) schema.Names {
	return schema.Names{
		OutboxTable: db.OutboxTableName,
		InboxTable:  db.InboxTableName,
		Outbox:      schema.OutboxColumns(db.ColumnMapping.Outbox),
		Inbox:       schema.InboxColumns(db.ColumnMapping.Inbox),
		Partitioned: db.Partitioning.Enabled,
	}
}
