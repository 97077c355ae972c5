package postgres

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/pkg/secret"
)

// HostPort is one server of a connection: a host name or address and its
// port.
type HostPort struct {
	Host string
	Port int
}

// ConnParams are the parts of database.url that a pgx connection string
// carries, with the user and password that apply. The store factory
// (pkg/store) fills them from the parsed URL; printing them masks the
// password.
type ConnParams struct {
	// Hosts are the servers in the URL's order (pgx tries them in turn).
	Hosts    []HostPort
	Database string
	// Params are the URL's parameters by their pgjdbc or libpq names;
	// those without a libpq meaning are dropped (see ConnString).
	Params   map[string]string
	User     string
	Password secret.Secret
}

// pgParams maps URL parameters to libpq keywords that pgx understands.
// JDBC-only parameters have no libpq meaning and are dropped, because pgx
// would send an unknown keyword to the server as a setting and fail.
var pgParams = map[string]string{
	"sslmode": "sslmode", "sslrootcert": "sslrootcert", "sslcert": "sslcert", "sslkey": "sslkey",
	"connect_timeout": "connect_timeout", "connecttimeout": "connect_timeout",
	"application_name": "application_name", "applicationname": "application_name",
	"target_session_attrs": "target_session_attrs", "search_path": "search_path",
	"currentschema": "search_path", "options": "options",
}

// ConnString returns a libpq keyword/value string for pgx (Options.
// ConnString). pgjdbc's ssl=true becomes sslmode=verify-full unless
// sslmode is set. The password is always present, empty or not, so pgx
// never falls back to PGPASSWORD. The result holds the password in clear:
// pass it to pgx and never log it.
func (p ConnParams) ConnString() string {
	hosts, ports := make([]string, len(p.Hosts)), make([]string, len(p.Hosts))
	for i, h := range p.Hosts {
		hosts[i], ports[i] = h.Host, strconv.Itoa(h.Port)
	}
	kv := map[string]string{"host": strings.Join(hosts, ","), "port": strings.Join(ports, ",")}
	if p.Database != "" {
		kv["dbname"] = p.Database
	}
	for k, v := range p.Params {
		if name, ok := pgParams[strings.ToLower(k)]; ok {
			kv[name] = v
		}
	}
	if _, ok := kv["sslmode"]; !ok {
		if ssl, set := p.Params["ssl"]; set {
			// pgjdbc treats ssl=true as sslmode=verify-full.
			kv["sslmode"] = map[bool]string{true: "verify-full", false: "disable"}[strings.EqualFold(ssl, "true")]
		}
	}
	kv["user"], kv["password"] = p.User, p.Password.Reveal()
	return keywordValueString(kv)
}

// keywordValueString renders key='value' pairs in key order, quoting each
// value that needs it the way libpq reads it.
func keywordValueString(kv map[string]string) string {
	keys := slices.Sorted(maps.Keys(kv))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := kv[k]
		if v == "" && k != "password" {
			continue
		}
		if v == "" || strings.ContainsAny(v, ` '\`) {
			v = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}
