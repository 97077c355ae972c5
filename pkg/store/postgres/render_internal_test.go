package postgres

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
)

var update = flag.Bool("update", false, "rewrite testdata/rendered/*.sql from the current templates")

// TestRenderedStatements compares every statement, as the stores render
// it, with its golden file: a change of a template or of the rendering
// (partials, the clock parameter) shows as a diff of the SQL that runs.
// Run with -update to accept a change on purpose.
func TestRenderedStatements(t *testing.T) {
	t.Parallel()
	got := renderedStatements(t, schematest.MappedLayout(schema.Postgres))
	for name, stmt := range keyOrderStatements(t) {
		got[name] = stmt
	}
	off, err := NewOutbox(nil, schematest.MappedLayout(schema.Postgres).WithoutLedger(), 0)
	require.NoError(t, err)
	// With the delivery ledger off, the outcome write is the statement of
	// before the ledger.
	got["ledger_off_outbox_finish"] = off.finish
	// A partitioned outbox or inbox (the bundled tables only) bounds the
	// claims' scans by the lowest and highest created_at of an active row.
	names := schema.DefaultNames()
	names.Partitioned = true
	part, err := NewOutbox(nil, schema.New(schema.Postgres, names), 0)
	require.NoError(t, err)
	got["partitioned_outbox_claim_keyed_first"] = part.claimKeyedFirst
	got["partitioned_outbox_claim_unkeyed_first"] = part.claimUnkeyedFirst
	got["partitioned_outbox_oldest_active"] = part.oldestActive
	partRelay, err := NewRelay(nil, schema.New(schema.Postgres, names), queuebox.RelayParams{})
	require.NoError(t, err)
	got["partitioned_inbox_relay_claim_keyed_first"] = partRelay.claimKeyedFirst
	got["partitioned_inbox_relay_claim_unkeyed_first"] = partRelay.claimUnkeyedFirst
	got["partitioned_inbox_oldest_active"] = partRelay.oldestActive
	schematest.Golden(t, filepath.Join("testdata", "rendered"), ".sql", got, *update)
}

// keyOrderStatements renders the statements that differ for an outbox
// without the lane columns, under names of their own.
func keyOrderStatements(t *testing.T) map[string]string {
	t.Helper()
	l := schematest.MappedLayout(schema.Postgres)
	l.O.Lanes = false
	o, err := NewOutbox(nil, l, 0)
	require.NoError(t, err)
	return map[string]string{
		"key_order_outbox_claim_keyed_first":   o.claimKeyedFirst,
		"key_order_outbox_claim_unkeyed_first": o.claimUnkeyedFirst,
		"key_order_outbox_finish":              o.finish,
		"key_order_outbox_postpone":            o.postpone,
	}
}

// renderedStatements renders every statement through the constructors,
// so the test sees exactly the text that runs.
func renderedStatements(t *testing.T, l schema.Layout) map[string]string {
	t.Helper()
	o, err := NewOutbox(nil, l, 0)
	require.NoError(t, err)
	r, err := NewRelay(nil, l, queuebox.RelayParams{})
	require.NoError(t, err)
	in, err := NewInbox(nil, l)
	require.NoError(t, err)
	rp, err := NewReplay(nil, l)
	require.NoError(t, err)
	rt, err := NewRetention(nil, l)
	require.NoError(t, err)
	dg, err := NewDiagnostics(nil, l)
	require.NoError(t, err)
	return map[string]string{
		"outbox_claim_keyed_first":        o.claimKeyedFirst,
		"outbox_claim_unkeyed_first":      o.claimUnkeyedFirst,
		"outbox_finish":                   o.finish,
		"outbox_written":                  o.written,
		"outbox_renew":                    o.renew,
		"outbox_reclaim":                  o.reclaim,
		"outbox_pending_stats":            o.pendingStats,
		"outbox_next_due":                 o.nextDue,
		"outbox_postpone":                 o.postpone,
		"outbox_unrouted":                 o.unrouted,
		"outbox_assign":                   o.assign,
		"outbox_oldest_unkeyed":           o.oldestUnkeyed,
		"destination_pause_record":        o.pauseRecord,
		"inbox_relay_lock":                r.lock,
		"inbox_relay_claim_keyed_first":   r.claimKeyedFirst,
		"inbox_relay_claim_unkeyed_first": r.claimUnkeyedFirst,
		"inbox_relay_forward":             r.forward,
		"inbox_relay_dead":                r.dead,
		"inbox_relay_renew":               r.renew,
		"inbox_relay_reclaim":             r.reclaim,
		"inbox_oldest_pending":            r.oldest,
		"inbox_relay_oldest_unkeyed":      r.oldestUnkeyed,
		"inbox_insert":                    in.insert,
		"inbox_find":                      in.find,
		"inbox_insert_batch":              in.batch,
		"inbox_find_ids":                  in.findIDs,
		"outbox_replay":                   rp.update,
		"outbox_replay_topics":            rp.topics,
		"outbox_replay_count":             rp.count,
		"retention_outbox_age":            rt.outboxAge,
		"retention_outbox_count":          rt.outboxCount,
		"retention_inbox_age":             rt.inboxAge,
		"retention_ledger_age":            rt.ledgerAge,
		"diagnose_inbox_pending":          dg.inboxPending,
		"diagnose_outbox_dead":            dg.outboxDead,
		"diagnose_inbox_dead":             dg.inboxDead,
		"diagnose_tables":                 dg.tables,
		"diagnose_oldest_transaction":     dg.oldestTx,
		"diagnose_connections":            dg.connections,
		"diagnose_capture":                dg.capture,
	}
}
