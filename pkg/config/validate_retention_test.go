package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetentionRules(t *testing.T) {
	t.Parallel()
	on := []string{"QUEUEBOX_RETENTION_ENABLED=true"}
	with := func(env ...string) []string { return append(append([]string(nil), on...), env...) }
	runRefusals(t, []refusal{
		{name: "outbox policy lower case", env: []string{"QUEUEBOX_RETENTION_OUTBOX_POLICY=age"},
			want: []string{`retention.outbox.policy (QUEUEBOX_RETENTION_OUTBOX_POLICY): must be one of AGE, COUNT, DISABLED (in this letter case), got "age"`}},
		{name: "inbox policy COUNT", env: []string{"QUEUEBOX_RETENTION_INBOX_POLICY=COUNT"},
			want: []string{`retention.inbox.policy (QUEUEBOX_RETENTION_INBOX_POLICY): must be one of AGE, DISABLED (in this letter case), got "COUNT"`}},
		{name: "AGE without maxAge", env: with("QUEUEBOX_RETENTION_OUTBOX_POLICY=AGE"),
			want: []string{"retention.outbox.maxAge (QUEUEBOX_RETENTION_OUTBOX_MAXAGE): required by policy AGE while retention.enabled (QUEUEBOX_RETENTION_ENABLED) is true"}},
		{name: "inbox AGE without maxAge", env: with("QUEUEBOX_RETENTION_INBOX_POLICY=AGE"),
			want: []string{"retention.inbox.maxAge (QUEUEBOX_RETENTION_INBOX_MAXAGE): required by policy AGE"}},
		{name: "COUNT without maxCount", env: with("QUEUEBOX_RETENTION_OUTBOX_POLICY=COUNT"),
			want: []string{"retention.outbox.maxCount (QUEUEBOX_RETENTION_OUTBOX_MAXCOUNT): required by policy COUNT"}},
		{name: "maxCount zero", env: with("QUEUEBOX_RETENTION_OUTBOX_POLICY=COUNT", "QUEUEBOX_RETENTION_OUTBOX_MAXCOUNT=0"),
			want: []string{"retention.outbox.maxCount (QUEUEBOX_RETENTION_OUTBOX_MAXCOUNT): must be above 0, got 0"}},
		{name: "batchSize zero", env: []string{"QUEUEBOX_RETENTION_INBOX_BATCHSIZE=0"},
			want: []string{"retention.inbox.batchSize (QUEUEBOX_RETENTION_INBOX_BATCHSIZE): must be above 0"}},
		{name: "maxAge without unit", env: with("QUEUEBOX_RETENTION_OUTBOX_POLICY=AGE", "QUEUEBOX_RETENTION_OUTBOX_MAXAGE=7"),
			want: []string{`retention.outbox.maxAge (QUEUEBOX_RETENTION_OUTBOX_MAXAGE): "7" is not a duration`}},
		{name: "cleanupInterval in weeks", env: []string{"QUEUEBOX_RETENTION_OUTBOX_CLEANUPINTERVAL=1w"},
			want: []string{`retention.outbox.cleanupInterval (QUEUEBOX_RETENTION_OUTBOX_CLEANUPINTERVAL): "1w" is not a duration`}},
		{name: "cleanupInterval zero", env: with("QUEUEBOX_RETENTION_OUTBOX_POLICY=AGE", "QUEUEBOX_RETENTION_OUTBOX_MAXAGE=7d", "QUEUEBOX_RETENTION_OUTBOX_CLEANUPINTERVAL=0s"),
			want: []string{`retention.outbox.cleanupInterval (QUEUEBOX_RETENTION_OUTBOX_CLEANUPINTERVAL): must be above 0`}},
		// The job of the table still runs on its interval with DISABLED.
		{name: "cleanupInterval zero with policy DISABLED", env: with("QUEUEBOX_RETENTION_INBOX_CLEANUPINTERVAL=0s"),
			want: []string{`retention.inbox.cleanupInterval (QUEUEBOX_RETENTION_INBOX_CLEANUPINTERVAL): must be above 0`}},
		// The ledger's cleanup runs with the ledger, retention.enabled or not.
		{name: "ledger policy COUNT", env: []string{"QUEUEBOX_RETENTION_LEDGER_POLICY=COUNT"},
			want: []string{`retention.ledger.policy (QUEUEBOX_RETENTION_LEDGER_POLICY): must be one of AGE, DISABLED (in this letter case), got "COUNT"`}},
		{name: "ledger maxAge zero", env: []string{"QUEUEBOX_RETENTION_LEDGER_MAXAGE=0d"},
			want: []string{`retention.ledger.maxAge (QUEUEBOX_RETENTION_LEDGER_MAXAGE): must be above 0 with policy AGE, got "0d"`}},
		{name: "ledger cleanupInterval zero", env: []string{"QUEUEBOX_RETENTION_LEDGER_CLEANUPINTERVAL=0s"},
			want: []string{`retention.ledger.cleanupInterval (QUEUEBOX_RETENTION_LEDGER_CLEANUPINTERVAL): must be above 0 with policy AGE`}},
		{name: "ledger batchSize zero", env: []string{"QUEUEBOX_RETENTION_LEDGER_BATCHSIZE=0"},
			want: []string{"retention.ledger.batchSize (QUEUEBOX_RETENTION_LEDGER_BATCHSIZE): must be above 0"}},
	})
}

// The ledger is on by default with a cleanup of its own that deletes
// attempts older than seven days, whatever retention.enabled says; with
// the ledger off, its cleanup's settings go unchecked, as the cleanup
// does not run.
func TestLedgerDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML))
	require.True(t, cfg.Outbox.Ledger.Enabled)
	require.False(t, cfg.Retention.Enabled)
	require.Equal(t, PolicyAge, cfg.Retention.Ledger.Policy)
	require.Equal(t, 7*24*time.Hour, cfg.Retention.Ledger.MaxAge.D)
	require.Equal(t, time.Hour, cfg.Retention.Ledger.CleanupInterval.D)
	require.Equal(t, 1000, cfg.Retention.Ledger.BatchSize)
	require.True(t, cfg.LedgerCleanupRuns())

	cfg = mustLoad(t, testOptions(baseYAML, "QUEUEBOX_OUTBOX_LEDGER_ENABLED=false", "QUEUEBOX_RETENTION_LEDGER_MAXAGE=0d"))
	require.False(t, cfg.LedgerCleanupRuns())
	cfg = mustLoad(t, testOptions(baseYAML, "QUEUEBOX_RETENTION_LEDGER_POLICY=DISABLED"))
	require.False(t, cfg.LedgerCleanupRuns())
}

func TestRetentionAccepts(t *testing.T) {
	t.Parallel()
	// The policy blocks apply only when retention is on.
	cfg := mustLoad(t, testOptions(baseYAML, "QUEUEBOX_RETENTION_OUTBOX_POLICY=AGE"))
	require.Nil(t, cfg.Retention.Outbox.MaxAge)

	cfg = mustLoad(t, testOptions(baseYAML+"retention:\n  enabled: true\n  outbox:\n    policy: COUNT\n    maxCount: 1000\n  inbox:\n    policy: AGE\n    maxAge: 30d\n"))
	require.Equal(t, 1000, *cfg.Retention.Outbox.MaxCount)
	require.Equal(t, 30*24*time.Hour, cfg.Retention.Inbox.MaxAge.D)
	require.Equal(t, time.Hour, cfg.Retention.Inbox.CleanupInterval.D)
	require.Equal(t, 1000, cfg.Retention.Inbox.BatchSize)
}
