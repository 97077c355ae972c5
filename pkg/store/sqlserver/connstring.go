package sqlserver

import (
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"

	"github.com/alternayte/queuebox/pkg/secret"
)

// ConnParams are the parts of database.url that a go-mssqldb connection
// URL carries, with the user and password that apply. The store factory
// (pkg/store) fills them from the parsed URL; printing them masks the
// password.
type ConnParams struct {
	Host string
	// Port is 0 for a named instance reached without a port (the SQL
	// Server Browser finds it).
	Port     int
	Instance string
	Database string
	// Params are the URL's parameters with lower case keys; those that
	// go-mssqldb does not read are dropped (see ConnString).
	Params   map[string]string
	User     string
	Password secret.Secret
}

// driverParams maps the URL parameters that reach the driver to the names
// go-mssqldb reads.
var driverParams = map[string]string{"encrypt": "encrypt", "trustservercertificate": "TrustServerCertificate",
	"hostnameincertificate": "hostNameInCertificate", "applicationname": "app name"}

// ConnString returns a sqlserver:// URL for go-mssqldb (Options.
// ConnString). It holds the password in clear: pass it to the driver and
// never log it.
func (p ConnParams) ConnString() string {
	q := url.Values{}
	if p.Database != "" {
		q.Set("database", p.Database)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Params)) {
		if name, ok := driverParams[k]; ok {
			q.Set(name, p.Params[k])
		}
	}
	host := p.Host
	if p.Port != 0 {
		host = net.JoinHostPort(p.Host, strconv.Itoa(p.Port))
	}
	out := url.URL{Scheme: "sqlserver", User: url.UserPassword(p.User, p.Password.Reveal()), Host: host, RawQuery: q.Encode()}
	if p.Instance != "" {
		out.Path = "/" + p.Instance
	}
	return out.String()
}
