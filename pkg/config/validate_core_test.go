package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refusal is one documented rule that stops the start. The file is
// baseYAML plus extra sections; env adds variables. Every want must appear
// and every problem line must match one want.
type refusal struct {
	name  string
	extra string
	env   []string
	want  []string
}

func runRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := loadError(t, testOptions(baseYAML+tc.extra, tc.env...))
			requireProblems(t, err, tc.want...)
		})
	}
}

func TestBaseConfigurationLoads(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML))
	require.Equal(t, 8080, cfg.Server.HTTPPort)
	require.Equal(t, "base-db-password", cfg.Database.Password.Reveal())
	require.Empty(t, cfg.Warnings())
}

func TestServerRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "httpPort zero", env: []string{"QUEUEBOX_SERVER_HTTPPORT=0"},
			want: []string{"server.httpPort (QUEUEBOX_SERVER_HTTPPORT): must be a port from 1 to 65535, got 0"}},
		{name: "httpPort above 65535", env: []string{"QUEUEBOX_SERVER_HTTPPORT=65536"},
			want: []string{"server.httpPort (QUEUEBOX_SERVER_HTTPPORT): must be a port from 1 to 65535, got 65536"}},
		{name: "managementPort out of range", extra: "server:\n  managementPort: 0\n",
			want: []string{"server.managementPort (QUEUEBOX_SERVER_MANAGEMENTPORT): must be a port"}},
		{name: "managementPort equals httpPort", extra: "server:\n  httpPort: 9000\n  managementPort: 9000\n",
			want: []string{"server.managementPort (QUEUEBOX_SERVER_MANAGEMENTPORT): must differ from server.httpPort (QUEUEBOX_SERVER_HTTPPORT)"}},
		{name: "port is not a number", env: []string{"QUEUEBOX_SERVER_HTTPPORT=eighty"},
			want: []string{`server.httpPort (QUEUEBOX_SERVER_HTTPPORT): must be a whole number, got "eighty"`}},
	})
}

func TestDatabaseRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "unknown type", env: []string{"QUEUEBOX_DATABASE_TYPE=mysql"},
			want: []string{`database.type (QUEUEBOX_DATABASE_TYPE): must be one of postgresql, sqlserver (in this letter case), got "mysql"`}},
		{name: "url of another database", env: []string{"QUEUEBOX_DATABASE_URL=jdbc:mysql://db/queuebox"},
			want: []string{"database.url (QUEUEBOX_DATABASE_URL): must start with jdbc:postgresql://"}},
		{name: "url does not match type", env: []string{"QUEUEBOX_DATABASE_TYPE=sqlserver"},
			want: []string{"database.url (QUEUEBOX_DATABASE_URL): must start with jdbc:sqlserver://", "to match database.type (QUEUEBOX_DATABASE_TYPE) sqlserver"}},
		{name: "url without host", env: []string{"QUEUEBOX_DATABASE_URL=jdbc:postgresql:///queuebox"},
			want: []string{"database.url (QUEUEBOX_DATABASE_URL): database URL jdbc:postgresql:///queuebox: names no valid host"}},
		{name: "blank username", env: []string{"QUEUEBOX_DATABASE_USERNAME= "},
			want: []string{"database.username (QUEUEBOX_DATABASE_USERNAME): required"}},
		{name: "poolSize zero", env: []string{"QUEUEBOX_DATABASE_POOLSIZE=0"},
			want: []string{"database.poolSize (QUEUEBOX_DATABASE_POOLSIZE): must be above 0, got 0"}},
		{name: "table name not an identifier", env: []string{"QUEUEBOX_DATABASE_MIGRATE=false", "QUEUEBOX_DATABASE_OUTBOXTABLENAME=1outbox"},
			want: []string{`database.outboxTableName (QUEUEBOX_DATABASE_OUTBOXTABLENAME): must be a SQL identifier (a letter or _ first, then letters, digits and _), got "1outbox"`}},
		{name: "inbox table name with a quote", env: []string{"QUEUEBOX_DATABASE_MIGRATE=false", `QUEUEBOX_DATABASE_INBOXTABLENAME=inbox"; drop`},
			want: []string{"database.inboxTableName (QUEUEBOX_DATABASE_INBOXTABLENAME): must be a SQL identifier"}},
		{name: "column not an identifier", env: []string{"QUEUEBOX_DATABASE_MIGRATE=false", "QUEUEBOX_DATABASE_COLUMNMAPPING_INBOX_IDEMPOTENCYKEY=dedup-key"},
			want: []string{"database.columnMapping.inbox.idempotencyKey (QUEUEBOX_DATABASE_COLUMNMAPPING_INBOX_IDEMPOTENCYKEY): must be a SQL identifier"}},
		{name: "renamed settings with migrate true", env: []string{
			"QUEUEBOX_DATABASE_OUTBOXTABLENAME=qb_outbox",
			"QUEUEBOX_DATABASE_COLUMNMAPPING_OUTBOX_PAYLOAD=body",
			"QUEUEBOX_DATABASE_COLUMNMAPPING_INBOX_IDEMPOTENCYKEY=dedup_key",
		}, want: []string{
			`database.outboxTableName (QUEUEBOX_DATABASE_OUTBOXTABLENAME): renames "outbox" to "qb_outbox" while database.migrate (QUEUEBOX_DATABASE_MIGRATE) is true`,
			`database.columnMapping.outbox.payload (QUEUEBOX_DATABASE_COLUMNMAPPING_OUTBOX_PAYLOAD): renames "payload" to "body"`,
			`database.columnMapping.inbox.idempotencyKey (QUEUEBOX_DATABASE_COLUMNMAPPING_INBOX_IDEMPOTENCYKEY): renames "idempotency_key" to "dedup_key"`,
		}},
		{name: "migrate is not a boolean", env: []string{"QUEUEBOX_DATABASE_MIGRATE=yes"},
			want: []string{`database.migrate (QUEUEBOX_DATABASE_MIGRATE): must be true or false, got "yes"`}},
	})
}

func TestPartitioningRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "interval below 5m", env: []string{"QUEUEBOX_DATABASE_PARTITIONING_INTERVAL=4m"},
			want: []string{`database.partitioning.interval (QUEUEBOX_DATABASE_PARTITIONING_INTERVAL): must be from 5m to 7d, got "4m"`}},
		{name: "interval above 7d", env: []string{"QUEUEBOX_DATABASE_PARTITIONING_INTERVAL=8d"},
			want: []string{`database.partitioning.interval (QUEUEBOX_DATABASE_PARTITIONING_INTERVAL): must be from 5m to 7d, got "8d"`}},
		{name: "premake zero", env: []string{"QUEUEBOX_DATABASE_PARTITIONING_PREMAKE=0"},
			want: []string{"database.partitioning.premake (QUEUEBOX_DATABASE_PARTITIONING_PREMAKE): must be from 1 to 100, got 0"}},
		{name: "sqlserver", env: []string{"QUEUEBOX_DATABASE_PARTITIONING_ENABLED=true",
			"QUEUEBOX_DATABASE_TYPE=sqlserver", "QUEUEBOX_DATABASE_URL=jdbc:sqlserver://db:1433;databaseName=q"},
			want: []string{`database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED): true needs database.type (QUEUEBOX_DATABASE_TYPE) postgresql, got "sqlserver"`}},
		{name: "custom tables", env: []string{"QUEUEBOX_DATABASE_PARTITIONING_ENABLED=true",
			"QUEUEBOX_DATABASE_MIGRATE=false", "QUEUEBOX_DATABASE_OUTBOXTABLENAME=qb_outbox"},
			want: []string{"database.partitioning.enabled (QUEUEBOX_DATABASE_PARTITIONING_ENABLED): true needs the default table and column names"}},
	})
}

func TestPartitioningDefaultsAndBounds(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML))
	require.False(t, cfg.Database.Partitioning.Enabled)
	require.Equal(t, "1d", cfg.Database.Partitioning.Interval.Text)
	require.Equal(t, 3, cfg.Database.Partitioning.Premake)
	for _, interval := range []string{"5m", "1h", "7d"} {
		cfg := mustLoad(t, testOptions(baseYAML, "QUEUEBOX_DATABASE_PARTITIONING_ENABLED=true",
			"QUEUEBOX_DATABASE_PARTITIONING_INTERVAL="+interval))
		require.True(t, cfg.Database.Partitioning.Enabled, interval)
	}
}

func TestDatabaseRequiredKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		file string
		want []string
	}{
		{"no url", "database:\n  username: u\n  password: p\n", []string{"database.url (QUEUEBOX_DATABASE_URL): required"}},
		{"no username", "database:\n  url: jdbc:postgresql://db/q\n  password: p\n", []string{"database.username (QUEUEBOX_DATABASE_USERNAME): required"}},
		{"empty file", "", []string{"database.url (QUEUEBOX_DATABASE_URL)", "database.username (QUEUEBOX_DATABASE_USERNAME)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions("x")
			opts.ReadFile = fakeFiles{testConfigFile: tc.file}.read
			requireProblems(t, loadError(t, opts), tc.want...)
		})
	}
}

// TestNoPasswordIsAnEmptyOne: a server with trust or peer
// authentication asks for no password, so none need be set, not even
// an empty QUEUEBOX_DATABASE_PASSWORD; a written empty one is the same.
func TestNoPasswordIsAnEmptyOne(t *testing.T) {
	t.Parallel()
	file := "database:\n  url: jdbc:postgresql://db/q\n  username: u\n  password: \"\"\n"
	cfg := mustLoad(t, testOptions(file))
	require.True(t, cfg.Database.Password.IsEmpty())

	file = "database:\n  url: jdbc:postgresql://db/q\n  username: u\n"
	cfg = mustLoad(t, testOptions(file, "QUEUEBOX_DATABASE_PASSWORD="))
	require.True(t, cfg.Database.Password.IsEmpty())

	cfg = mustLoad(t, testOptions("", "QUEUEBOX_DATABASE_URL=jdbc:postgresql://db/q", "QUEUEBOX_DATABASE_USERNAME=u"))
	require.True(t, cfg.Database.Password.IsEmpty())
}

func TestDatabaseURLForms(t *testing.T) {
	t.Parallel()
	cases := []struct{ typ, url string }{
		{"postgresql", "jdbc:postgresql://db:5432/queuebox"},
		{"postgresql", "postgres://app:pw@db:5432/queuebox?sslmode=disable"},
		{"postgresql", "postgresql://db/queuebox"},
		{"postgresql", "jdbc:postgresql://h1:5432,h2:5433/queuebox"},
		{"sqlserver", "jdbc:sqlserver://db:1433;databaseName=queuebox;encrypt=true"},
		{"sqlserver", "sqlserver://app:pw@db:1433?database=queuebox"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoad(t, testOptions(baseYAML, "QUEUEBOX_DATABASE_TYPE="+tc.typ, "QUEUEBOX_DATABASE_URL="+tc.url))
			require.Equal(t, tc.url, cfg.Database.URL)
		})
	}
}

func TestOutboxRules(t *testing.T) {
	t.Parallel()
	var cases []refusal
	for _, key := range []string{"POLLINTERVALMS", "BATCHSIZE", "CONCURRENCY", "MAXATTEMPTS", "CLAIMTIMEOUTMS", "SHUTDOWNTIMEOUTMS", "PENDINGGAUGEINTERVALMS"} {
		path := map[string]string{
			"POLLINTERVALMS": "pollIntervalMs", "BATCHSIZE": "batchSize", "CONCURRENCY": "concurrency", "MAXATTEMPTS": "maxAttempts",
			"CLAIMTIMEOUTMS": "claimTimeoutMs", "SHUTDOWNTIMEOUTMS": "shutdownTimeoutMs", "PENDINGGAUGEINTERVALMS": "pendingGaugeIntervalMs",
		}[key]
		cases = append(cases, refusal{name: path + " zero", env: []string{"QUEUEBOX_OUTBOX_" + key + "=0"},
			want: []string{"outbox." + path + " (QUEUEBOX_OUTBOX_" + key + "): must be above 0, got 0"}})
	}
	cases = append(cases,
		refusal{name: "retryBaseDelayMs negative", env: []string{"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS=-1"},
			want: []string{"outbox.retryBaseDelayMs (QUEUEBOX_OUTBOX_RETRYBASEDELAYMS): must not be negative, got -1"}},
		refusal{name: "maxErrorBodyBytes zero", env: []string{"QUEUEBOX_HTTP_MAXERRORBODYBYTES=0"},
			want: []string{"http.maxErrorBodyBytes (QUEUEBOX_HTTP_MAXERRORBODYBYTES): must be above 0, got 0"}},
		refusal{name: "milliseconds are whole numbers", extra: "outbox:\n  pollIntervalMs: 1.5\n",
			want: []string{`outbox.pollIntervalMs (QUEUEBOX_OUTBOX_POLLINTERVALMS): must be a whole number of milliseconds, got "1.5"`}},
	)
	runRefusals(t, cases)
}

func TestMillisecondsAcceptDigitStrings(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+"outbox:\n  pollIntervalMs: \"250\"\n  retryBaseDelayMs: 0\n"))
	require.Equal(t, 250, cfg.Outbox.PollIntervalMs)
	require.Equal(t, 0, cfg.Outbox.RetryBaseDelayMs)
}

func TestCaptureRules(t *testing.T) {
	t.Parallel()
	capture := func(body string) string { return "outbox:\n  capture:\n" + body }
	runRefusals(t, []refusal{
		{name: "unknown mode", extra: capture("    mode: debezium\n"),
			want: []string{`outbox.capture.mode (QUEUEBOX_OUTBOX_CAPTURE_MODE): must be one of polling, postgres-logical, sqlserver-cdc`}},
		{name: "enabled with polling", extra: capture("    enabled: true\n    stateDirectory: /var/lib/queuebox\n"),
			want: []string{"outbox.capture.enabled (QUEUEBOX_OUTBOX_CAPTURE_ENABLED): true needs outbox.capture.mode (QUEUEBOX_OUTBOX_CAPTURE_MODE) postgres-logical or sqlserver-cdc"}},
		{name: "postgres-logical on sqlserver", extra: capture("    mode: postgres-logical\n"),
			env:  []string{"QUEUEBOX_DATABASE_TYPE=sqlserver", "QUEUEBOX_DATABASE_URL=jdbc:sqlserver://db;databaseName=q"},
			want: []string{"outbox.capture.mode (QUEUEBOX_OUTBOX_CAPTURE_MODE): postgres-logical needs database.type (QUEUEBOX_DATABASE_TYPE) postgresql"}},
		{name: "sqlserver-cdc on postgresql", extra: capture("    mode: sqlserver-cdc\n"),
			want: []string{"outbox.capture.mode (QUEUEBOX_OUTBOX_CAPTURE_MODE): sqlserver-cdc needs database.type (QUEUEBOX_DATABASE_TYPE) sqlserver"}},
		{name: "identity with upper case", extra: capture("    identity: QueueBox\n"),
			want: []string{`outbox.capture.identity (QUEUEBOX_OUTBOX_CAPTURE_IDENTITY): must be a lower case letter`}},
		{name: "slot starting with a digit", extra: capture("    slot: 1slot\n"),
			want: []string{`outbox.capture.slot (QUEUEBOX_OUTBOX_CAPTURE_SLOT): must be a lower case letter`}},
		{name: "publication of 64 characters", extra: capture("    publication: p" + strings.Repeat("a", 63) + "\n"),
			want: []string{`outbox.capture.publication (QUEUEBOX_OUTBOX_CAPTURE_PUBLICATION): must be a lower case letter`}},
		{name: "enabled without stateDirectory", extra: capture("    mode: postgres-logical\n    enabled: true\n"),
			want: []string{"outbox.capture.stateDirectory (QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY): required"}},
		{name: "reconciliationIntervalMs zero", extra: capture("    reconciliationIntervalMs: 0\n"),
			want: []string{"outbox.capture.reconciliationIntervalMs (QUEUEBOX_OUTBOX_CAPTURE_RECONCILIATIONINTERVALMS): must be above 0"}},
		{name: "connection port out of range", extra: capture("    connection:\n      port: 70000\n"),
			want: []string{"outbox.capture.connection.port (QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PORT): must be a port from 1 to 65535, got 70000"}},
		{name: "several hosts without hostname", extra: capture("    mode: postgres-logical\n    enabled: true\n    stateDirectory: /var/lib/queuebox/capture\n"),
			env:  []string{"QUEUEBOX_DATABASE_URL=jdbc:postgresql://h1:5432,h2:5432/db"},
			want: []string{"outbox.capture.connection.hostname (QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_HOSTNAME): required because database.url (QUEUEBOX_DATABASE_URL) names 2 hosts"}},
	})
}

func TestCaptureAccepts(t *testing.T) {
	t.Parallel()
	extra := "outbox:\n  capture:\n    mode: postgres-logical\n    enabled: true\n    stateDirectory: /var/lib/queuebox/capture\n" +
		"    connection:\n      hostname: h1\n      port: 5433\n"
	cfg := mustLoad(t, testOptions(baseYAML+extra, "QUEUEBOX_DATABASE_URL=jdbc:postgresql://h1:5432,h2:5432/db"))
	require.Equal(t, CapturePostgresLogical, cfg.Outbox.Capture.Mode)
	require.Equal(t, 5433, *cfg.Outbox.Capture.Connection.Port)
	// Polling ignores the hosts: a multi-host URL is fine for delivery.
	mustLoad(t, testOptions(baseYAML, "QUEUEBOX_DATABASE_URL=jdbc:postgresql://h1:5432,h2:5432/db"))
}

func TestInboxAndRelayRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "maxBodyBytes zero", env: []string{"QUEUEBOX_INBOX_MAXBODYBYTES=0"},
			want: []string{"inbox.maxBodyBytes (QUEUEBOX_INBOX_MAXBODYBYTES): must be above 0, got 0"}},
		{name: "basePath without slash", env: []string{"QUEUEBOX_INBOX_BASEPATH=inbox"},
			want: []string{`inbox.basePath (QUEUEBOX_INBOX_BASEPATH): must start with /, got "inbox"`}},
		{name: "relay batchSize zero", env: []string{"QUEUEBOX_INBOX_RELAY_BATCHSIZE=0"},
			want: []string{"inbox.relay.batchSize (QUEUEBOX_INBOX_RELAY_BATCHSIZE): must be above 0"}},
		{name: "relay pollIntervalMs zero", env: []string{"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS=0"},
			want: []string{"inbox.relay.pollIntervalMs (QUEUEBOX_INBOX_RELAY_POLLINTERVALMS): must be above 0"}},
		{name: "relay claimTimeoutMs zero", env: []string{"QUEUEBOX_INBOX_RELAY_CLAIMTIMEOUTMS=0"},
			want: []string{"inbox.relay.claimTimeoutMs (QUEUEBOX_INBOX_RELAY_CLAIMTIMEOUTMS): must be above 0"}},
		// The relay refreshes its gauge on a ticker, which needs a period.
		{name: "relay pendingGaugeIntervalMs zero", env: []string{"QUEUEBOX_INBOX_RELAY_PENDINGGAUGEINTERVALMS=0"},
			want: []string{"inbox.relay.pendingGaugeIntervalMs (QUEUEBOX_INBOX_RELAY_PENDINGGAUGEINTERVALMS): must be above 0, got 0"}},
		{name: "relay maxAttempts zero", env: []string{"QUEUEBOX_INBOX_RELAY_MAXATTEMPTS=0"},
			want: []string{"inbox.relay.maxAttempts (QUEUEBOX_INBOX_RELAY_MAXATTEMPTS): must be above 0, got 0"}},
	})
}

func TestRelayMaxAttemptsFallsBackToOutbox(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML, "QUEUEBOX_OUTBOX_MAXATTEMPTS=7"))
	require.Nil(t, cfg.Inbox.Relay.MaxAttempts)
	require.Equal(t, 7, cfg.EffectiveMaxAttempts())
	cfg = mustLoad(t, testOptions(baseYAML, "QUEUEBOX_INBOX_RELAY_MAXATTEMPTS=3"))
	require.Equal(t, 3, cfg.EffectiveMaxAttempts())
}

func TestAdminRules(t *testing.T) {
	t.Parallel()
	runRefusals(t, []refusal{
		{name: "enabled without auth", extra: "admin:\n  enabled: true\n",
			want: []string{"admin.auth (QUEUEBOX_ADMIN_AUTH): is required when admin.enabled (QUEUEBOX_ADMIN_ENABLED) is true"}},
		{name: "maxPayloadBytes zero", env: []string{"QUEUEBOX_ADMIN_MAXPAYLOADBYTES=0"},
			want: []string{"admin.maxPayloadBytes (QUEUEBOX_ADMIN_MAXPAYLOADBYTES): must be above 0"}},
		{name: "maxTransformTimeoutMs zero", env: []string{"QUEUEBOX_ADMIN_MAXTRANSFORMTIMEOUTMS=0"},
			want: []string{"admin.maxTransformTimeoutMs (QUEUEBOX_ADMIN_MAXTRANSFORMTIMEOUTMS): must be above 0"}},
		{name: "auth of no kind", extra: "admin:\n  enabled: true\n  auth:\n    type: bearer\n",
			want: []string{"admin.auth.token (QUEUEBOX_ADMIN_AUTH_TOKEN): required, because type names the bearer kind"}},
		{name: "hmac with another algorithm", extra: "admin:\n  enabled: true\n  auth:\n    secret: admin-hmac-secret-0123\n    algorithm: HmacSHA1\n",
			want: []string{`admin.auth.algorithm (QUEUEBOX_ADMIN_AUTH_ALGORITHM): must be one of HmacSHA256, HmacSHA512 (in this letter case), got "HmacSHA1"`}},
		{name: "viewer of no kind", extra: "admin:\n  enabled: true\n  auth:\n    token: admin-token-0123456789\n  viewer:\n    type: bearer\n",
			want: []string{"admin.viewer.token (QUEUEBOX_ADMIN_VIEWER_TOKEN): required, because type names the bearer kind"}},
		{name: "viewer without auth", env: []string{"QUEUEBOX_ADMIN_INSECURE=false", "QUEUEBOX_ADMIN_VIEWER_TOKEN=viewer-token-0123456789"},
			want: []string{"admin.viewer (QUEUEBOX_ADMIN_VIEWER): needs admin.auth (QUEUEBOX_ADMIN_AUTH)"}},
	})
}

// A preset secret or an admin credential that is blank or shorter than
// 16 bytes stops the load with a problem that names the key, never the
// value: a whitespace-only preset secret and a 4-character admin token
// used to load.
func TestShortOrBlankSecretsAreRefused(t *testing.T) {
	t.Parallel()
	const msg = ": must be at least 16 bytes and not blank"
	preset := func(typ, secret string) string {
		return "sources:\n  hooks:\n    path: /hooks\n    auth:\n      type: " + typ + "\n      secret: \"" + secret + "\"\n"
	}
	runRefusals(t, []refusal{
		{name: "blank github secret", extra: preset("github", "                    "),
			want: []string{"sources.hooks.auth.secret (QUEUEBOX_SOURCES_HOOKS_AUTH_SECRET)" + msg}},
		{name: "short stripe secret", extra: preset("stripe", "whsec_short"),
			want: []string{"sources.hooks.auth.secret (QUEUEBOX_SOURCES_HOOKS_AUTH_SECRET)" + msg}},
		{name: "short previous shopify secret", extra: preset("shopify", "shopify-secret-0123456789") + "      previousSecrets: [old]\n",
			want: []string{"sources.hooks.auth.previousSecrets[0] (QUEUEBOX_SOURCES_HOOKS_AUTH_PREVIOUSSECRETS_0)" + msg}},
		{name: "4-character admin token", env: []string{"QUEUEBOX_ADMIN_ENABLED=true", "QUEUEBOX_ADMIN_AUTH_TOKEN=abcd"},
			want: []string{"admin.auth.token (QUEUEBOX_ADMIN_AUTH_TOKEN)" + msg}},
		{name: "blank admin key", extra: "admin:\n  enabled: true\n  auth:\n    key: \"                    \"\n",
			want: []string{"admin.auth.key (QUEUEBOX_ADMIN_AUTH_KEY)" + msg}},
		{name: "short admin hmac secret", env: []string{"QUEUEBOX_ADMIN_ENABLED=true", "QUEUEBOX_ADMIN_AUTH_SECRET=s3cret"},
			want: []string{"admin.auth.secret (QUEUEBOX_ADMIN_AUTH_SECRET)" + msg}},
		{name: "short viewer token", env: []string{"QUEUEBOX_ADMIN_ENABLED=true", "QUEUEBOX_ADMIN_AUTH_TOKEN=admin-token-0123456789",
			"QUEUEBOX_ADMIN_VIEWER_TOKEN=look"}, want: []string{"admin.viewer.token (QUEUEBOX_ADMIN_VIEWER_TOKEN)" + msg}},
	})
}

func TestAdminAccepts(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+"admin:\n  enabled: true\n  insecure: true\n"))
	require.Nil(t, cfg.Admin.Auth)
	cfg = mustLoad(t, testOptions(baseYAML, "QUEUEBOX_ADMIN_ENABLED=true", "QUEUEBOX_ADMIN_AUTH_KEY=admin-key-0123456789"))
	require.Equal(t, AuthAPIKey, cfg.Admin.Auth.Kind)
	require.Equal(t, "X-API-Key", cfg.Admin.Auth.HeaderName)
	cfg = mustLoad(t, testOptions(baseYAML, "QUEUEBOX_ADMIN_ENABLED=true", "QUEUEBOX_ADMIN_AUTH_TOKEN=admin-token-0123456789",
		"QUEUEBOX_ADMIN_VIEWER_TOKEN=viewer-token-0123456789"))
	require.Equal(t, AuthBearer, cfg.Admin.Viewer.Kind)
	require.Equal(t, "viewer-token-0123456789", cfg.Admin.Viewer.Token.Reveal())
}

// server.allowedHosts takes host names and IP addresses only: a URL or a
// host with a port would never match a Host header and would lock every
// caller out.
func TestAllowedHostsRules(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+"server:\n  allowedHosts: [queuebox.example.com, localhost, 127.0.0.1, \"::1\", \"[::1]\"]\n"))
	require.Equal(t, []string{"queuebox.example.com", "localhost", "127.0.0.1", "::1", "[::1]"}, cfg.Server.AllowedHosts)
	const msg = ": must be a host name or an IP address without scheme, port or path"
	runRefusals(t, []refusal{
		{name: "a URL", extra: "server:\n  allowedHosts: [\"https://q.example.com\"]\n",
			want: []string{"server.allowedHosts[0] (QUEUEBOX_SERVER_ALLOWEDHOSTS_0)" + msg}},
		{name: "a port", extra: "server:\n  allowedHosts: [localhost, \"localhost:8080\"]\n",
			want: []string{"server.allowedHosts[1] (QUEUEBOX_SERVER_ALLOWEDHOSTS_1)" + msg}},
		{name: "blank", extra: "server:\n  allowedHosts: [\"\"]\n",
			want: []string{"server.allowedHosts[0] (QUEUEBOX_SERVER_ALLOWEDHOSTS_0)" + msg}},
	})
}
