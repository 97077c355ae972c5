package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
)

// The soak and -explain render the store's claim statements from their
// templates, partials included: a claim that renders in the store and
// not here stops the soak at its start.
func TestStatementsRenderWithTheirPartials(t *testing.T) {
	t.Parallel()
	b := &bench{o: opts{queriesDir: "../../pkg/store/postgres/queries"}}
	for _, partitioned := range []bool{false, true} {
		names := schema.DefaultNames()
		names.Partitioned = partitioned
		l := schema.New(schema.Postgres, names)
		for _, name := range []string{"outbox_claim", "inbox_relay_claim"} {
			for _, keyedFirst := range []bool{true, false} {
				sql, err := b.statement(name, claimData{l, keyedFirst})
				require.NoError(t, err, "%s, partitioned %v", name, partitioned)
				require.Contains(t, sql, "UPDATE", name)
			}
		}
	}
}
