package config

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDatabaseURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw      string
		typ      string
		hosts    []HostPort
		db       string
		instance string
		params   map[string]string
		user     string
		password string
	}{
		{raw: "jdbc:postgresql://db:5433/queuebox", typ: DatabasePostgres, hosts: []HostPort{{"db", 5433}}, db: "queuebox", params: map[string]string{}},
		{raw: "jdbc:postgresql://db/queuebox?sslmode=require&user=app&password=pw", typ: DatabasePostgres,
			hosts: []HostPort{{"db", 5432}}, db: "queuebox", params: map[string]string{"sslmode": "require"}, user: "app", password: "pw"},
		{raw: "jdbc:postgresql://h1:5432,h2:5433,[::1]/db", typ: DatabasePostgres,
			hosts: []HostPort{{"h1", 5432}, {"h2", 5433}, {"::1", 5432}}, db: "db", params: map[string]string{}},
		{raw: "postgres://app:p%40ss@db:6432/queuebox?sslmode=disable", typ: DatabasePostgres,
			hosts: []HostPort{{"db", 6432}}, db: "queuebox", params: map[string]string{"sslmode": "disable"}, user: "app", password: "p@ss"},
		{raw: "postgresql://db", typ: DatabasePostgres, hosts: []HostPort{{"db", 5432}}, params: map[string]string{}},
		{raw: "jdbc:sqlserver://db.internal:1433;databaseName=queuebox;encrypt=true;user=sa;password={p;w}}d}", typ: DatabaseSQLServer,
			hosts: []HostPort{{"db.internal", 1433}}, db: "queuebox", params: map[string]string{"encrypt": "true"}, user: "sa", password: "p;w}d"},
		{raw: `jdbc:sqlserver://db\SQLEXPRESS;DatabaseName=q`, typ: DatabaseSQLServer,
			hosts: []HostPort{{"db", 0}}, db: "q", instance: "SQLEXPRESS", params: map[string]string{}},
		{raw: "jdbc:sqlserver://;serverName=db;portNumber=1500;database=q", typ: DatabaseSQLServer,
			hosts: []HostPort{{"db", 1500}}, db: "q", params: map[string]string{"servername": "db", "portnumber": "1500"}},
		{raw: "jdbc:sqlserver://db;database=q;PWD=secret", typ: DatabaseSQLServer,
			hosts: []HostPort{{"db", 1433}}, db: "q", params: map[string]string{}, password: "secret"},
		{raw: "sqlserver://sa:pw@db:1434?database=queuebox&encrypt=disable", typ: DatabaseSQLServer,
			hosts: []HostPort{{"db", 1434}}, db: "queuebox", params: map[string]string{"encrypt": "disable"}, user: "sa", password: "pw"},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			u, err := ParseDatabaseURL(tc.raw)
			require.NoError(t, err)
			require.Equal(t, tc.typ, u.Type)
			require.Equal(t, tc.hosts, u.Hosts)
			require.Equal(t, tc.db, u.Database)
			require.Equal(t, tc.instance, u.Instance)
			require.Equal(t, tc.params, u.Params)
			require.Equal(t, tc.user, u.User)
			require.Equal(t, tc.password, u.Password.Reveal())
		})
	}
}

func TestParseDatabaseURLRefuses(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"mysql://db/q":                             "must start with jdbc:postgresql://",
		"file:/run/secrets/url":                    "must start with jdbc:postgresql://",
		"jdbc:postgresql:///q":                     "names no valid host",
		"jdbc:postgresql://db:99999/q":             "names a port that is not a number from 1 to 65535",
		"jdbc:postgresql://db:x/q":                 "names a port that is not a number from 1 to 65535",
		"postgres://u:hunter2@:5432/q":             "names no valid host",
		"jdbc:sqlserver://db;databaseName":         "property 1 after the host has no =",
		"jdbc:sqlserver://;password=hunter2":       "names no valid host",
		"postgres://u:hunter2@db/q?bad=%zz&x=1":    "the parameters are not valid",
		"sqlserver://u:hunter2@db:0?database=q":    "names a port that is not a number from 1 to 65535",
		"jdbc:postgresql://db/q?password=hunter2":  "",
		"jdbc:sqlserver://;password={hun;ter2}}x}": "names no valid host",
		// Each of these once quoted part of the password in the error.
		"jdbc:postgresql://user:hunter2@db:5432/q": "must not hold a user name or a password before the host",
		"jdbc:sqlserver://u:hunter2@db;database=q": "must not hold a user name or a password before the host",
		"postgres://u:hun?ter2@db/q":               "names a port that is not a number",
		"jdbc:sqlserver://db;databaseName=q;oops":  "property 2 after the host has no =",
		"postgres://u:pw@db/q?password=hun%zzter2": "the parameters are not valid URL text",
	} {
		t.Run(raw, func(t *testing.T) {
			t.Parallel()
			_, err := ParseDatabaseURL(raw)
			if want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, want)
			require.NotContains(t, err.Error(), "ter2")
		})
	}
}

// A password with an unencoded "/" (base64) still parses and stays masked.
func TestDatabaseURLPasswordWithSlash(t *testing.T) {
	t.Parallel()
	u, err := ParseDatabaseURL("postgres://app:hun/ter2==@db:5432/q")
	require.NoError(t, err)
	require.Equal(t, "hun/ter2==", u.Password.Reveal())
	require.Equal(t, []HostPort{{"db", 5432}}, u.Hosts)
	require.Equal(t, "q", u.Database)
	require.Equal(t, "postgres://app:***@db:5432/q", u.Masked())
}

func TestDatabaseURLMasked(t *testing.T) {
	t.Parallel()
	u, err := ParseDatabaseURL("postgres://app:hunter2@db:5432/q?password=hunter3")
	require.NoError(t, err)
	require.Equal(t, "postgres://app:***@db:5432/q?password=***", u.Masked())
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, u)
		require.NotContains(t, out, "hunter")
	}
}
