package sqlserver

import (
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
	"github.com/alternayte/queuebox/pkg/schema/schematest"
)

var update = flag.Bool("update", false, "rewrite testdata/*/*.golden from the current templates")

// TestRenderedStatements compares every T-SQL statement, as the stores
// render it for the default layout and for one that renames every table
// and column, with its golden file. No SQL Server runs here: the goldens
// are the review surface, read beside the PostgreSQL store's
// testdata/rendered files of the same names. Run with -update to accept
// a change on purpose.
func TestRenderedStatements(t *testing.T) {
	t.Parallel()
	keyOrder := schematest.MappedLayout(schema.SQLServer)
	keyOrder.O.Lanes = false
	for dir, l := range map[string]schema.Layout{
		"default": schematest.DefaultLayout(schema.SQLServer),
		"mapped":  schematest.MappedLayout(schema.SQLServer),
		// An outbox without the lane columns (a custom table made before
		// them): the key-order claim, no destination written.
		"keyorder": keyOrder,
	} {
		t.Run(dir, func(t *testing.T) {
			got := renderedStatements(t, l)
			if dir == "default" {
				// With the delivery ledger off, the outcome write is the
				// statement of before the ledger.
				off, err := NewOutbox(nil, l.WithoutLedger(), 0)
				require.NoError(t, err)
				got["ledger_off_outbox_finish"] = off.finish
			}
			schematest.Golden(t, filepath.Join("testdata", dir), ".golden", got, *update)
		})
	}
}

// pgOnly are the marks of PostgreSQL text that must never reach a T-SQL
// statement: $n parameters, :: casts, "quoted" identifiers, and the
// functions and clauses T-SQL lacks.
var pgOnly = regexp.MustCompile(`\$[0-9]|::|"[A-Za-z_]+"|\bnow\(\)|clock_timestamp|gen_random_uuid|\bLIMIT\b|SKIP LOCKED|RETURNING|\bunnest\b|\binterval\b|ANY\s*\(`)

// TestStatementsAreTSQL reads every rendered statement of the mapped
// layout, comments dropped, for PostgreSQL text, and checks that each
// mapped name appears only bracket-quoted.
func TestStatementsAreTSQL(t *testing.T) {
	t.Parallel()
	for name, sql := range renderedStatements(t, schematest.MappedLayout(schema.SQLServer)) {
		code := stripComments(sql)
		require.Empty(t, pgOnly.FindAllString(code, -1), "%s holds PostgreSQL text", name)
		bare := regexp.MustCompile(`(^|[^\[A-Za-z_])(ob|ib)_[a-z_]+`).FindAllString(code, -1)
		require.Empty(t, bare, "%s names a mapped column without brackets", name)
	}
}

func stripComments(sql string) string {
	var out []string
	for _, line := range strings.Split(sql, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
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
	out := map[string]string{
		"outbox_claim_lock":               o.lock,
		"outbox_claim_keyed_first":        o.claimKeyedFirst,
		"outbox_claim_unkeyed_first":      o.claimUnkeyedFirst,
		"outbox_finish":                   o.finish,
		"outbox_written":                  o.written,
		"outbox_renew":                    o.renew,
		"outbox_reclaim":                  o.reclaim,
		"outbox_pending_stats":            o.stats,
		"outbox_next_due":                 o.nextDue,
		"outbox_postpone":                 o.postpone,
		"outbox_unrouted":                 o.unrouted,
		"outbox_assign":                   o.assign,
		"destination_pause_record":        o.pauseRecord,
		"inbox_relay_lock":                r.lock,
		"inbox_relay_claim_keyed_first":   r.claimKeyedFirst,
		"inbox_relay_claim_unkeyed_first": r.claimUnkeyedFirst,
		"inbox_relay_forward":             r.forward,
		"inbox_relay_dead":                r.dead,
		"inbox_relay_renew":               r.renew,
		"inbox_relay_reclaim":             r.reclaim,
		"inbox_oldest_pending":            r.oldest,
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
		"diagnose_oldest_transaction":     dg.oldestTx,
		"diagnose_connections":            dg.connections,
	}
	for name, sql := range workbenchStatements(t, l) {
		out[name] = sql
	}
	return out
}

// workbenchStatements renders the workbench's statements through its
// store for each table: the shape without filters, and the shape with
// every filter set (and a cursor, for the lists) under the suffix
// "_filtered".
func workbenchStatements(t *testing.T, l schema.Layout) map[string]string {
	t.Helper()
	w, err := NewWorkbench(nil, l)
	require.NoError(t, err)
	after := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	out := map[string]string{}
	for _, table := range []queuebox.Table{queuebox.TableOutbox, queuebox.TableInbox} {
		every := queuebox.MessageFilter{Table: table, States: table.FinalStates(), Topics: []string{"a"}, Source: "s",
			Key: "k", Error: "e", IDs: []string{"i"}, CreatedAfter: &after, CreatedBefore: &after,
			Destination: "d", UnroutedTopics: []string{"u"}, Message: "m"}
		for _, name := range []string{"wb_list", "wb_get", "wb_resend", "wb_discard", "wb_count", "wb_move",
			"wb_job_step", "wb_overview_states", "wb_overview_oldest", "wb_overview_dead", "wb_state", "wb_topics"} {
			stmt := name
			if name == "wb_list" || name == "wb_get" {
				stmt = name + "_" + string(table)
			}
			if name == "wb_topics" && table == queuebox.TableInbox {
				continue // topics are outbox columns
			}
			plain, err := w.stmt(stmt, queuebox.MessageFilter{Table: table}, false)
			require.NoError(t, err)
			out[name+"_"+string(table)] = plain
			switch name {
			case "wb_list", "wb_count", "wb_move", "wb_job_step", "wb_topics":
				filtered, err := w.stmt(stmt, every, name == "wb_list")
				require.NoError(t, err)
				out[name+"_"+string(table)+"_filtered"] = filtered
			}
		}
	}
	for _, name := range []string{"wb_job_create", "wb_job_claim", "wb_job_fail", "wb_job_get", "wb_job_list", "wb_pauses", "wb_attempts",
		"wb_undelivered_counts", "wb_destination_pending", "wb_destination_minutes"} {
		out[name], err = w.stmt(name, jobFilter, false)
		require.NoError(t, err)
	}
	// The undelivered page after a cursor: the cursor's conditions too.
	out["wb_undelivered"], err = w.stmt("wb_undelivered", jobFilter, true)
	require.NoError(t, err)
	return out
}
