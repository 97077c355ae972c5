package integration

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// chaosAuditSQL records every state change of an outbox row, with the
// application_name of the session that made it. Each replica connects
// under its own name, so the table tells which replica claimed, finished
// or reclaimed a row. A trigger runs inside the writing transaction, and a
// claim can only see a row after the commit that released it, so the
// order of n follows the order of the changes that depend on each other.
const chaosAuditSQL = `
CREATE TABLE chaos_audit (
    n           bigserial PRIMARY KEY,
    id          uuid NOT NULL,
    key         text,
    old_state   text NOT NULL,
    new_state   text NOT NULL,
    token       uuid,
    old_attempt int NOT NULL,
    new_attempt int NOT NULL,
    rescheduled boolean NOT NULL,
    actor       text NOT NULL
);
CREATE FUNCTION chaos_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO chaos_audit (id, key, old_state, new_state, token, old_attempt, new_attempt, rescheduled, actor)
    VALUES (NEW.id, NEW.key, OLD.state, NEW.state,
            -- A dead mark clears the claim; the fence held on the token the row had.
            CASE WHEN NEW.state = 'dead' THEN OLD.claim_token ELSE NEW.claim_token END, OLD.attempt, NEW.attempt,
            OLD.scheduled_at IS DISTINCT FROM NEW.scheduled_at, current_setting('application_name'));
    RETURN NULL;
END $$;
CREATE TRIGGER chaos_audit AFTER UPDATE ON outbox FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION chaos_audit_row();`

type auditEvent struct {
	id, key, from, to, token, actor string
	oldAttempt, newAttempt          int
	// rescheduled tells a deferral (back to pending at a later time, no
	// attempt spent) from a reclaim, which leaves scheduled_at alone.
	rescheduled bool
}

// claimSpan is one claim of a row: who took it, and how it ended.
type claimSpan struct {
	id, key, owner, token string
	// end is sent, dead, retry, defer or reclaim; endActor is who wrote it.
	end, endActor string
}

// auditSummary is what the audit table says about the drain.
type auditSummary struct {
	spans []claimSpan
	// keyOverlaps names claims of a keyed row taken while another row of
	// the key was still processing.
	keyOverlaps []string
}

func readAudit(t *testing.T, db database) []auditEvent {
	t.Helper()
	rows, err := db.connect(t).Query(context.Background(),
		`SELECT id::text, coalesce(key, ''), old_state, new_state, coalesce(token::text, ''),
		        old_attempt, new_attempt, rescheduled, actor
		 FROM chaos_audit ORDER BY n`)
	require.NoError(t, err)
	defer rows.Close()
	var out []auditEvent
	for rows.Next() {
		var e auditEvent
		require.NoError(t, rows.Scan(&e.id, &e.key, &e.from, &e.to, &e.token, &e.oldAttempt, &e.newAttempt, &e.rescheduled, &e.actor))
		out = append(out, e)
	}
	require.NoError(t, rows.Err())
	return out
}

// summarize pairs every claim with the change that ended it, and checks
// on the way that one row of a key at most was processing at any moment.
func summarize(t *testing.T, events []auditEvent) auditSummary {
	t.Helper()
	var s auditSummary
	open := map[string]int{}         // row id -> index of its open span
	keyHolder := map[string]string{} // key -> row id processing now
	for _, e := range events {
		switch {
		case e.from == "pending" && e.to == "processing":
			if held, ok := keyHolder[e.key]; e.key != "" && ok && held != e.id {
				s.keyOverlaps = append(s.keyOverlaps, e.key+": "+e.id+" claimed by "+e.actor+" while "+held+" was processing")
			}
			if e.key != "" {
				keyHolder[e.key] = e.id
			}
			open[e.id] = len(s.spans)
			s.spans = append(s.spans, claimSpan{id: e.id, key: e.key, owner: e.actor, token: e.token})
		case e.from == "processing":
			i, ok := open[e.id]
			require.True(t, ok, "row %s left processing without a claim", e.id)
			delete(open, e.id)
			if keyHolder[e.key] == e.id {
				delete(keyHolder, e.key)
			}
			sp := &s.spans[i]
			require.Equal(t, sp.token, e.token, "row %s ended under another token than its claim", e.id)
			sp.end, sp.endActor = endKind(e), e.actor
		default:
			t.Fatalf("unexpected transition %s -> %s of row %s", e.from, e.to, e.id)
		}
	}
	require.Empty(t, open, "claims that never ended")
	return s
}

func endKind(e auditEvent) string {
	switch {
	case e.to == "pending" && e.newAttempt == e.oldAttempt+1:
		return "retry"
	case e.to == "pending" && e.rescheduled:
		// Flow control put the row back without an attempt: the owner's
		// outcome like any other, checked as such.
		return "defer"
	case e.to == "pending":
		return "reclaim"
	default:
		return e.to
	}
}
