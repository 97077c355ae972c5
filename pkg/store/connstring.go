package store

import (
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/store/postgres"
	"github.com/alternayte/queuebox/pkg/store/sqlserver"
)

// credentials applies the rule of database.username and
// database.password: each one set in the configuration wins over the
// URL's.
func credentials(u config.DatabaseURL, user string, password secret.Secret) (string, secret.Secret) {
	if user == "" {
		user = u.User
	}
	if password.IsEmpty() {
		password = u.Password
	}
	return user, password
}

// PostgresConnString returns the pgx connection string of a PostgreSQL
// database.url with the configured user and password (each wins over the
// URL's when set); it is empty for a SQL Server URL. It holds the password
// in clear: pass it to pgx and never log it. The capture role builds the
// capture host's connection with it too.
func PostgresConnString(u config.DatabaseURL, user string, password secret.Secret) string {
	if u.Type != config.DatabasePostgres {
		return ""
	}
	p := postgres.ConnParams{Database: u.Database, Params: u.Params}
	for _, h := range u.Hosts {
		p.Hosts = append(p.Hosts, postgres.HostPort{Host: h.Host, Port: h.Port})
	}
	p.User, p.Password = credentials(u, user, password)
	return p.ConnString()
}

// sqlServerConnString returns the go-mssqldb connection URL of a SQL
// Server database.url, with the user and password rule of
// PostgresConnString; it is empty for a PostgreSQL URL. It holds the
// password in clear.
func sqlServerConnString(u config.DatabaseURL, user string, password secret.Secret) string {
	if u.Type != config.DatabaseSQLServer || len(u.Hosts) == 0 {
		return ""
	}
	p := sqlserver.ConnParams{Host: u.Hosts[0].Host, Port: u.Hosts[0].Port, Instance: u.Instance,
		Database: u.Database, Params: u.Params}
	p.User, p.Password = credentials(u, user, password)
	return p.ConnString()
}
