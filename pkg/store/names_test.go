package store_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/store"
)

// The configuration's defaults and schema's name the same tables and
// columns: those of the bundled migrations.
func TestDefaultNamesAreTheConfigurationDefaults(t *testing.T) {
	t.Parallel()
	require.Equal(t, schema.DefaultNames(), store.Names(config.Default().Database))
}

// Every configured name reaches its own field: each column is renamed
// after its field, so a mix-up of two shows.
func TestNamesMapEveryColumn(t *testing.T) {
	t.Parallel()
	db := config.Default().Database
	db.OutboxTableName, db.InboxTableName = "qb_outbox", "qb_inbox"
	rename(&db.ColumnMapping.Outbox, "ob_")
	rename(&db.ColumnMapping.Inbox, "ib_")
	got := store.Names(db)
	require.Equal(t, "qb_outbox", got.OutboxTable)
	require.Equal(t, "qb_inbox", got.InboxTable)
	for columns, prefix := range map[any]string{got.Outbox: "ob_", got.Inbox: "ib_"} {
		v := reflect.ValueOf(columns)
		for i := range v.NumField() {
			require.Equal(t, prefix+v.Type().Field(i).Name, v.Field(i).String())
		}
	}
}

func rename(columns any, prefix string) {
	v := reflect.ValueOf(columns).Elem()
	for i := range v.NumField() {
		v.Field(i).SetString(prefix + v.Type().Field(i).Name)
	}
}
