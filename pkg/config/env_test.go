package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnvKeyToPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		want []string
	}{
		{"QUEUEBOX_DATABASE_URL", []string{"database", "url"}},
		{"QUEUEBOX_SERVER_HTTPPORT", []string{"server", "httpport"}},
		{"QUEUEBOX_DESTINATIONS_MY__API_BASEURL", []string{"destinations", "my_api", "baseurl"}},
		{"QUEUEBOX_ROUTES_0_TOPICPATTERN", []string{"routes", "0", "topicpattern"}},
		{"QUEUEBOX_SOURCES_ORDERS_TOPICS_0", []string{"sources", "orders", "topics", "0"}},
		{"QUEUEBOX_SOURCES_ORDERS_FILTER_REQUIRE_0_IN_1", []string{"sources", "orders", "filter", "require", "0", "in", "1"}},
		{"QUEUEBOX_OUTBOX_POLL_INTERVAL_MS", []string{"outbox", "poll", "interval", "ms"}},
		{"QUEUEBOX_A___B", []string{"a_", "b"}},
		{"OTHER_DATABASE_URL", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, EnvKeyToPath(tc.name))
		})
	}
}

func TestPathToEnvKey(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"outbox.pollIntervalMs":                            "QUEUEBOX_OUTBOX_POLLINTERVALMS",
		"routes[0].topicPattern":                           "QUEUEBOX_ROUTES_0_TOPICPATTERN",
		"destinations.my_api.baseUrl":                      "QUEUEBOX_DESTINATIONS_MY__API_BASEURL",
		"sources.orders.topics[0]":                         "QUEUEBOX_SOURCES_ORDERS_TOPICS_0",
		"sources.orders.filter.require[0].in[1]":           "QUEUEBOX_SOURCES_ORDERS_FILTER_REQUIRE_0_IN_1",
		"database.columnMapping.inbox.idempotencyKey":      "QUEUEBOX_DATABASE_COLUMNMAPPING_INBOX_IDEMPOTENCYKEY",
		"outbox.capture.connection.trustServerCertificate": "QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_TRUSTSERVERCERTIFICATE",
	}
	for path, want := range cases {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, PathToEnvKey(path))
			require.Equal(t, want, keyPathFromString(path).env(), "the error paths render the same name")
		})
	}
}

// keyPathFromString builds the keyPath that the validator would build.
func keyPathFromString(path string) keyPath {
	var p keyPath
	cur := ""
	for _, r := range path + "." {
		switch r {
		case '.', '[':
			if cur != "" {
				p = append(p, cur)
			}
			cur = ""
			if r == '[' {
				cur = "["
			}
		default:
			cur += string(r)
		}
	}
	return p
}

func TestVariablesMatchKeysInAnyLetterCase(t *testing.T) {
	t.Parallel()
	file := baseYAML + "SERVER:\n  HttpPort: 9000\ndestinations:\n  My_Api:\n    baseURL: https://old.example.com\n    TimeoutMS: 1000\n"
	cfg := mustLoad(t, testOptions(file,
		"QUEUEBOX_SERVER_HTTPPORT=9100",
		"QUEUEBOX_DESTINATIONS_MY__API_BASEURL=https://new.example.com",
	))
	require.Equal(t, 9100, cfg.Server.HTTPPort)
	require.Len(t, cfg.Destinations, 1, "the variable reached the file's entry, it did not add one")
	d := cfg.Destinations["My_Api"]
	require.Equal(t, "https://new.example.com", d.BaseURL)
	require.Equal(t, 1000, d.TimeoutMs)
	require.Equal(t, "My_Api", d.Name)
}

func TestVariableCreatesLowerCaseMapKeys(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML,
		"QUEUEBOX_DESTINATIONS_MY__API_BASEURL=https://api.example.com",
		"QUEUEBOX_DESTINATIONS_MY__API_HEADERS_XTEAM=orders",
	))
	require.Contains(t, cfg.Destinations, "my_api")
	require.Equal(t, map[string]string{"xteam": "orders"}, cfg.Destinations["my_api"].Headers)
}

func TestUnknownVariablePathHasNoEffect(t *testing.T) {
	t.Parallel()
	file := baseYAML + httpDest + "routes:\n  - topicPattern: a\n    destination: hook\n"
	cfg := mustLoad(t, testOptions(file,
		"QUEUEBOX_OUTBOX_POLL_INTERVAL_MS=1",
		"QUEUEBOX_ROUTES_0_BOGUS=x",          // would replace the list if it counted
		"QUEUEBOX_DATABASE_PASSWORD_EXTRA=x", // below a leaf
		"QUEUEBOX_ADMIN_AUTH=x",              // a block, not a value
		"QUEUEBOX_ROUTES_X_DESTINATION=hook", // not an index
		"QUEUEBOX_ROUTES_5000_DESTINATION=x", // beyond the index bound
		"QUEUEBOX_DESTINATIONS__BASEURL=x",   // blank map key
	))
	require.Equal(t, 100, cfg.Outbox.PollIntervalMs)
	require.Equal(t, []Route{{TopicPattern: "a", Destination: "hook"}}, cfg.Routes)
	require.Equal(t, "base-db-password", cfg.Database.Password.Reveal())
	require.Len(t, cfg.Warnings(), 7)
	require.Contains(t, cfg.Warnings(), "variable QUEUEBOX_OUTBOX_POLL_INTERVAL_MS matches no configuration key and has no effect")
}

func TestVariableValueConversion(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML,
		"QUEUEBOX_SERVER_MANAGEMENTPORT=9090",
		"QUEUEBOX_INBOX_MAXBODYBYTES=2097152",
		"QUEUEBOX_HTTP_BLOCKPRIVATEADDRESSES=TRUE",
		"QUEUEBOX_RETENTION_OUTBOX_CLEANUPINTERVAL=30m",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN=a",
		"QUEUEBOX_ROUTES_0_DESTINATION=hook",
		"QUEUEBOX_ROUTES_0_ROUTINGKEYTEMPLATE={{ key }}",
		"QUEUEBOX_DESTINATIONS_HOOK_BASEURL=https://x.example",
		"QUEUEBOX_SOURCES_ORDERS_BOOTSTRAPSERVERS=k:9092",
		"QUEUEBOX_SOURCES_ORDERS_GROUPID=g",
		"QUEUEBOX_SOURCES_ORDERS_TOPICS=a, b",
	))
	require.Equal(t, 9090, *cfg.Server.ManagementPort)
	require.Equal(t, int64(2097152), cfg.Inbox.MaxBodyBytes)
	require.True(t, cfg.HTTP.BlockPrivateAddresses)
	require.Equal(t, "30m", cfg.Retention.Outbox.CleanupInterval.String())
	require.Equal(t, "{{ key }}", *cfg.Routes[0].RoutingKeyTemplate)
	require.Equal(t, []string{"a", "b"}, cfg.Sources["orders"].Topics, "a comma list sets a list of strings in one variable")

	err := loadError(t, testOptions(baseYAML, "QUEUEBOX_INBOX_MAXBODYBYTES=1MB", "QUEUEBOX_ADMIN_ENABLED=on"))
	requireProblems(t, err,
		`inbox.maxBodyBytes (QUEUEBOX_INBOX_MAXBODYBYTES): must be a whole number, got "1MB"`,
		`admin.enabled (QUEUEBOX_ADMIN_ENABLED): must be true or false, got "on"`)
}

func TestProcessVariablesAreNotConfiguration(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"QUEUEBOX_CONFIG_FILE", "QUEUEBOX_LOG_LEVEL", "QUEUEBOX_LOG_FORMAT", "QUEUEBOX_ROLES", "QUEUEBOX_TEST_POSTGRES_URL"} {
		require.False(t, isConfigVar(name), name)
	}
	require.True(t, isConfigVar("QUEUEBOX_DATABASE_URL"))
	require.False(t, isConfigVar("DATABASE_URL"))
}
