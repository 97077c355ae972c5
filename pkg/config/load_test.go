package config

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVariableWinsOverFile(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+"outbox:\n  batchSize: 50\n  concurrency: 4\n", "QUEUEBOX_OUTBOX_BATCHSIZE=25"))
	require.Equal(t, 25, cfg.Outbox.BatchSize)
	require.Equal(t, 4, cfg.Outbox.Concurrency, "a key that no variable sets keeps the file value")
}

func TestFileReplacesPackaged(t *testing.T) {
	t.Parallel()
	opts := testOptions(baseYAML)
	opts.NoPackaged = false
	opts.Packaged = []byte("server:\n  httpPort: 7000\ndatabase:\n  url: jdbc:postgresql://packaged/db\n  username: p\n  password: p\n")
	cfg := mustLoad(t, opts)
	require.Equal(t, 8080, cfg.Server.HTTPPort, "the packaged port does not merge under the file")
	require.Equal(t, "jdbc:postgresql://db:5432/queuebox", cfg.Database.URL)
}

func TestPackagedOnlyWithoutFileAndVariables(t *testing.T) {
	t.Parallel()
	t.Run("no file and no variable reads the embedded default", func(t *testing.T) {
		t.Parallel()
		opts := Options{
			Environ:  []string{"QUEUEBOX_LOG_LEVEL=debug", "QUEUEBOX_TEST_POSTGRES_URL=x", "PATH=/bin"},
			ReadFile: fakeFiles{}.read,
		}
		cfg := mustLoad(t, opts)
		require.Equal(t, 8080, cfg.Server.HTTPPort)
		require.Equal(t, "jdbc:postgresql://localhost:5432/queuebox", cfg.Database.URL)
		require.Equal(t, "queuebox", cfg.Database.Username)
		require.Equal(t, "queuebox", cfg.Database.Password.Reveal())
		require.Empty(t, cfg.Destinations)
		require.Empty(t, cfg.Sources)
		require.Empty(t, cfg.Routes)
	})
	t.Run("a variable turns the packaged configuration off", func(t *testing.T) {
		t.Parallel()
		opts := testOptions("", "QUEUEBOX_SERVER_HTTPPORT=8081")
		opts.NoPackaged = false
		err := loadError(t, opts)
		requireProblems(t, err, "database.url (QUEUEBOX_DATABASE_URL): required", "database.username (QUEUEBOX_DATABASE_USERNAME): required")
	})
	t.Run("a named file that does not exist turns the packaged configuration off", func(t *testing.T) {
		t.Parallel()
		opts := testOptions("", "QUEUEBOX_CONFIG_FILE=/etc/typo.yml")
		opts.NoPackaged = false
		_, err := Load(opts)
		require.Error(t, err)
		require.Contains(t, err.Error(), "the configuration file /etc/typo.yml that QUEUEBOX_CONFIG_FILE names does not exist")
		require.Contains(t, err.Error(), "no QUEUEBOX_ configuration variable is set")
		require.Contains(t, err.Error(), "the packaged queuebox.yml is not read")
	})
	t.Run("a named file that does not exist is a warning", func(t *testing.T) {
		t.Parallel()
		opts := testOptions("", "QUEUEBOX_CONFIG_FILE=/etc/typo.yml", "QUEUEBOX_DATABASE_URL=jdbc:postgresql://db/q",
			"QUEUEBOX_DATABASE_USERNAME=u", "QUEUEBOX_DATABASE_PASSWORD=p")
		cfg := mustLoad(t, opts)
		require.Equal(t, []string{"QUEUEBOX_CONFIG_FILE names /etc/typo.yml, which does not exist"}, cfg.Warnings())
	})
	t.Run("variables alone are a configuration", func(t *testing.T) {
		t.Parallel()
		opts := testOptions("", "QUEUEBOX_DATABASE_URL=jdbc:postgresql://db/q", "QUEUEBOX_DATABASE_USERNAME=u", "QUEUEBOX_DATABASE_PASSWORD=p")
		opts.NoPackaged = false
		cfg := mustLoad(t, opts)
		require.Equal(t, "jdbc:postgresql://db/q", cfg.Database.URL)
	})
}

func TestNoSourceFails(t *testing.T) {
	t.Parallel()
	_, err := Load(Options{Environ: []string{}, ReadFile: fakeFiles{}.read, NoPackaged: true})
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "no QUEUEBOX_ environment variable is set")
	require.Contains(t, msg, "the configuration file "+DefaultConfigFile+" does not exist")
	require.Contains(t, msg, "no packaged queuebox.yml")
}

func TestDefaultFilePath(t *testing.T) {
	t.Parallel()
	opts := Options{
		Environ:    []string{},
		ReadFile:   fakeFiles{DefaultConfigFile: baseYAML + "server:\n  httpPort: 8181\n"}.read,
		NoPackaged: true,
	}
	require.Equal(t, 8181, mustLoad(t, opts).Server.HTTPPort)
}

func TestUnreadableFileFails(t *testing.T) {
	t.Parallel()
	opts := testOptions("")
	opts.ReadFile = func(string) ([]byte, error) { return nil, fs.ErrPermission }
	err := loadError(t, opts)
	require.Contains(t, err.Error(), "read the configuration file "+testConfigFile)
	require.True(t, errors.Is(err, fs.ErrPermission))

	err = loadError(t, testOptions("server: [unclosed\n"))
	require.Contains(t, err.Error(), "parse the configuration file "+testConfigFile)
	err = loadError(t, testOptions("- a list\n"))
	require.Contains(t, err.Error(), "the top level must be a mapping")
}

func TestVariablesMergeIntoMapsKeyByKey(t *testing.T) {
	t.Parallel()
	file := baseYAML + "destinations:\n  orders:\n    type: http\n    baseUrl: https://orders.example.com\n    path: /events\n    headers:\n      X-Team: orders\n"
	cfg := mustLoad(t, testOptions(file,
		"QUEUEBOX_DESTINATIONS_ORDERS_TIMEOUTMS=5000",
		"QUEUEBOX_DESTINATIONS_ORDERS_HEADERS_XENV=prod",
		"QUEUEBOX_DESTINATIONS_NEW_BASEURL=https://new.example.com",
	))
	d := cfg.Destinations["orders"]
	require.Equal(t, 5000, d.TimeoutMs)
	require.Equal(t, "/events", d.Path)
	require.Equal(t, "https://orders.example.com", d.BaseURL)
	require.Equal(t, map[string]string{"X-Team": "orders", "xenv": "prod"}, d.Headers)
	require.Len(t, cfg.Destinations, 2)
}

func TestVariableInListReplacesWholeList(t *testing.T) {
	t.Parallel()
	file := baseYAML + httpDest + `routes:
  - topicPattern: "order.*"
    destination: hook
    routingKeyMissingFieldDefault: none
  - topicPattern: "invoice.*"
    destination: hook
sources:
  orders:
    bootstrapServers: kafka:9092
    groupId: qb
    topics: [a, b, c]
`
	cfg := mustLoad(t, testOptions(file,
		"QUEUEBOX_ROUTES_0_TOPICPATTERN=**",
		"QUEUEBOX_ROUTES_0_DESTINATION=hook",
		"QUEUEBOX_SOURCES_ORDERS_TOPICS_0=z",
	))
	require.Equal(t, []Route{{TopicPattern: "**", Destination: "hook"}}, cfg.Routes)
	require.Equal(t, []string{"z"}, cfg.Sources["orders"].Topics)

	// A variable for one key of an element drops the other keys of the file.
	err := loadError(t, testOptions(file, "QUEUEBOX_ROUTES_1_DESTINATION=hook"))
	requireProblems(t, err,
		"routes[0].topicPattern (QUEUEBOX_ROUTES_0_TOPICPATTERN): required",
		"routes[0].destination (QUEUEBOX_ROUTES_0_DESTINATION): required",
		"routes[1].topicPattern (QUEUEBOX_ROUTES_1_TOPICPATTERN): required")
}

func TestFileKeysMatchInAnyLetterCase(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+"OUTBOX:\n  POLLINTERVALMS: 5\n  Capture:\n    MODE: polling\n"))
	require.Equal(t, 5, cfg.Outbox.PollIntervalMs)

	err := loadError(t, testOptions(baseYAML+"outbox:\n  batchSize: 5\n  BATCHSIZE: 6\n"))
	requireProblems(t, err, "outbox.batchSize (QUEUEBOX_OUTBOX_BATCHSIZE): is written twice, as batchSize and BATCHSIZE")
	err = loadError(t, testOptions(baseYAML+"destinations:\n  a:\n    baseUrl: https://x\n  a:\n    baseUrl: https://y\n"))
	requireProblems(t, err, "destinations.a (QUEUEBOX_DESTINATIONS_A): the key is written twice")
}

func TestUnknownFileKeysAreWarnings(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+"outbox:\n  poll_interval: 5\nmetrics:\n  enabled: true\n"))
	require.Equal(t, []string{"unknown key outbox.poll_interval is ignored", "unknown key metrics is ignored"}, cfg.Warnings())
}

func TestYAMLAnchorsAndMergeKeys(t *testing.T) {
	t.Parallel()
	file := baseYAML + `destinations:
  a: &common
    type: http
    baseUrl: https://a.example.com
    timeoutMs: 1234
  b:
    <<: *common
    baseUrl: https://b.example.com
`
	cfg := mustLoad(t, testOptions(file))
	require.Equal(t, 1234, cfg.Destinations["b"].TimeoutMs)
	require.Equal(t, "https://b.example.com", cfg.Destinations["b"].BaseURL)
}

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	file := `database:
  url: jdbc:postgresql://${DB_HOST}:${DB_PORT:-5432}/queuebox
  username: ${DB_USER:-queuebox}
  password: ${DB_PASSWORD}
server:
  httpPort: ${PORT:-8080}
`
	cfg := mustLoad(t, testOptions(file, "DB_HOST=db.internal", "DB_PASSWORD=s3cret", "DB_USER="))
	require.Equal(t, "jdbc:postgresql://db.internal:5432/queuebox", cfg.Database.URL)
	require.Equal(t, "queuebox", cfg.Database.Username, "an empty variable takes the fallback")
	require.Equal(t, "s3cret", cfg.Database.Password.Reveal())
	require.Equal(t, 8080, cfg.Server.HTTPPort)

	// Variables may hold placeholders too.
	cfg = mustLoad(t, testOptions(baseYAML, "QUEUEBOX_SERVER_HTTPPORT=${APP_PORT}", "APP_PORT=9000"))
	require.Equal(t, 9000, cfg.Server.HTTPPort)

	err := loadError(t, testOptions(file, "DB_HOST=db"))
	requireProblems(t, err,
		"database.password (QUEUEBOX_DATABASE_PASSWORD): the placeholder ${DB_PASSWORD} names the environment variable DB_PASSWORD, which is not set")
	err = loadError(t, testOptions(baseYAML, "QUEUEBOX_DATABASE_USERNAME=${}"))
	requireProblems(t, err, "database.username (QUEUEBOX_DATABASE_USERNAME): holds an empty placeholder")
}

func TestFileSecrets(t *testing.T) {
	t.Parallel()
	files := fakeFiles{
		"/run/secrets/db":      "from-file\n",
		"/run/secrets/crlf":    "crlf-secret\r\n",
		"/run/secrets/two":     "two-lines\n\n",
		"/run/secrets/token":   "admin-token-0123456789",
		testConfigFile:         "database:\n  url: jdbc:postgresql://db/q\n  username: u\n  password: file:/run/secrets/db\n",
		"/run/secrets/dburl":   "jdbc:postgresql://db/q",
		"/run/secrets/nothing": "",
	}
	opts := testOptions("")
	opts.ReadFile = files.read
	withEnv := func(env ...string) Options {
		o := opts
		o.Environ = append(append([]string(nil), opts.Environ...), env...)
		return o
	}

	cfg := mustLoad(t, opts)
	require.Equal(t, "from-file", cfg.Database.Password.Reveal(), "one trailing newline goes")

	cfg = mustLoad(t, withEnv("QUEUEBOX_DATABASE_PASSWORD=file:/run/secrets/crlf", "QUEUEBOX_ADMIN_ENABLED=true",
		"QUEUEBOX_ADMIN_AUTH_TOKEN=file:/run/secrets/token", "QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_PASSWORD=file:/run/secrets/two"))
	require.Equal(t, "crlf-secret", cfg.Database.Password.Reveal())
	require.Equal(t, "admin-token-0123456789", cfg.Admin.Auth.Token.Reveal())
	require.Equal(t, "two-lines\n", cfg.Outbox.Capture.Connection.Password.Reveal(), "only one newline goes")

	err := loadError(t, withEnv("QUEUEBOX_DATABASE_PASSWORD=file:/run/secrets/missing"))
	requireProblems(t, err, "database.password (QUEUEBOX_DATABASE_PASSWORD): cannot read the secret file /run/secrets/missing")

	// database.url takes file: literally, and the literal fails the URL rule.
	err = loadError(t, withEnv("QUEUEBOX_DATABASE_URL=file:/run/secrets/dburl"))
	requireProblems(t, err, `database.url (QUEUEBOX_DATABASE_URL): must start with jdbc:postgresql:// (or postgres:// or postgresql://) to match database.type (QUEUEBOX_DATABASE_TYPE) postgresql, got "file:/run/secrets/dburl"`)

	// So do the RabbitMQ URLs: the text stays as written.
	cfg = mustLoad(t, withEnv("QUEUEBOX_DESTINATIONS_BUS_URL=file:/run/secrets/dburl", "QUEUEBOX_DESTINATIONS_BUS_EXCHANGE=e",
		"QUEUEBOX_SOURCES_Q_QUEUENAME=q", "QUEUEBOX_SOURCES_Q_CONNECTIONURL=file:/run/secrets/dburl"))
	require.Equal(t, "file:/run/secrets/dburl", cfg.Destinations["bus"].URL)
	require.Equal(t, "file:/run/secrets/dburl", cfg.Sources["q"].ConnectionURL)
}

func TestSecretFileErrorNeverPrintsContent(t *testing.T) {
	t.Parallel()
	opts := testOptions(baseYAML, "QUEUEBOX_DATABASE_PASSWORD=file:/run/secrets/db")
	opts.ReadFile = func(path string) ([]byte, error) {
		if path == testConfigFile {
			return []byte(baseYAML), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: os.ErrPermission}
	}
	err := loadError(t, opts)
	require.Contains(t, err.Error(), "/run/secrets/db")
	require.False(t, strings.Contains(err.Error(), "base-db-password"))
}

func TestLoadReturnsAllProblemsSorted(t *testing.T) {
	t.Parallel()
	err := loadError(t, testOptions(baseYAML, "QUEUEBOX_SERVER_HTTPPORT=0", "QUEUEBOX_OUTBOX_BATCHSIZE=0", "QUEUEBOX_ADMIN_MAXPAYLOADBYTES=0"))
	lines := strings.Split(err.Error(), "\n")
	require.Equal(t, []string{
		"admin.maxPayloadBytes (QUEUEBOX_ADMIN_MAXPAYLOADBYTES): must be above 0, got 0",
		"outbox.batchSize (QUEUEBOX_OUTBOX_BATCHSIZE): must be above 0, got 0",
		"server.httpPort (QUEUEBOX_SERVER_HTTPPORT): must be a port from 1 to 65535, got 0",
	}, lines)
	require.Equal(t, strings.Join(lines, "; "), FormatError(err))

	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "admin.maxPayloadBytes", fe.Path)
	require.Equal(t, "QUEUEBOX_ADMIN_MAXPAYLOADBYTES", fe.Env)
}

func TestFormatError(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", FormatError(nil))
	require.Equal(t, "plain", FormatError(errors.New("plain")))
	joined := errors.Join(errors.New("a"), errors.Join(errors.New("b"), errors.New("c")))
	require.Equal(t, "a; b; c", FormatError(joined))
	require.Equal(t, "load: a; b; c", FormatError(errors.New("load: "+joined.Error())))
}
