package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
)

func TestPostgresConnString(t *testing.T) {
	t.Parallel()
	u, err := config.ParseDatabaseURL("jdbc:postgresql://h1:5432,h2:5433/queuebox?sslmode=verify-full&ApplicationName=qb&currentSchema=app&prepareThreshold=0")
	require.NoError(t, err)
	require.Equal(t, `application_name=qb dbname=queuebox host=h1,h2 password='it\'s \\ secret' port=5432,5433 search_path=app sslmode=verify-full user=queuebox`,
		PostgresConnString(u, "queuebox", secret.New(`it's \ secret`)))

	// The URL's user and password apply when the configuration sets none.
	u, err = config.ParseDatabaseURL("postgres://app:pw@db/q?ssl=true")
	require.NoError(t, err)
	require.Equal(t, "dbname=q host=db password=pw port=5432 sslmode=verify-full user=app", PostgresConnString(u, "", secret.New("")))
	require.Equal(t, "dbname=q host=db password=cfg port=5432 sslmode=verify-full user=cfguser", PostgresConnString(u, "cfguser", secret.New("cfg")))

	// An empty password stays explicit, so pgx does not read PGPASSWORD.
	u, err = config.ParseDatabaseURL("jdbc:postgresql://db/q")
	require.NoError(t, err)
	require.Equal(t, "dbname=q host=db password='' port=5432 user=u", PostgresConnString(u, "u", secret.New("")))

	u, err = config.ParseDatabaseURL("sqlserver://db?database=q")
	require.NoError(t, err)
	require.Empty(t, PostgresConnString(u, "u", secret.New("p")))
}

func TestSQLServerConnString(t *testing.T) {
	t.Parallel()
	u, err := config.ParseDatabaseURL("jdbc:sqlserver://db:1433;databaseName=queuebox;encrypt=true;trustServerCertificate=false;loginTimeout=5")
	require.NoError(t, err)
	require.Equal(t, "sqlserver://sa:p%40ss@db:1433?TrustServerCertificate=false&database=queuebox&encrypt=true",
		sqlServerConnString(u, "sa", secret.New("p@ss")))
	u, err = config.ParseDatabaseURL(`jdbc:sqlserver://db\SQLEXPRESS;databaseName=q`)
	require.NoError(t, err)
	require.Equal(t, "sqlserver://sa:pw@db/SQLEXPRESS?database=q", sqlServerConnString(u, "sa", secret.New("pw")))
	u, err = config.ParseDatabaseURL("jdbc:postgresql://db/q")
	require.NoError(t, err)
	require.Empty(t, sqlServerConnString(u, "sa", secret.New("pw")))
}
