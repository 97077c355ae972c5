package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/pkg/secret"
)

// HostPort is one host of a database URL. Port holds the default of the
// database (5432, 1433) when the URL names none, and 0 for a SQL Server
// named instance without a port.
type HostPort struct {
	Host string
	Port int
}

// String renders host:port, with brackets around an IPv6 address.
func (h HostPort) String() string { return net.JoinHostPort(h.Host, strconv.Itoa(h.Port)) }

// DatabaseURL is a parsed database.url. It never holds the URL text with
// its password: String and Masked print the masked form.
type DatabaseURL struct {
	Type     string // DatabasePostgres or DatabaseSQLServer
	Hosts    []HostPort
	Database string
	// Instance is the SQL Server named instance, if any.
	Instance string
	// Params holds the URL parameters without user and password. SQL
	// Server keys are lower case, because SQL Server matches them in any
	// letter case.
	Params   map[string]string
	User     string
	Password secret.Secret
	masked   string
}

// Masked returns the URL as written with every password replaced by ***.
func (u DatabaseURL) Masked() string { return u.masked }

// String returns the masked URL, so printing a DatabaseURL is safe.
func (u DatabaseURL) String() string { return u.masked }

// GoString keeps %#v masked too.
func (u DatabaseURL) GoString() string { return "config.DatabaseURL(" + u.masked + ")" }

const (
	postgresDefaultPort  = 5432
	sqlServerDefaultPort = 1433
)

// ParseDatabaseURL parses the forms that database.url accepts:
//
//	jdbc:postgresql://host[:port][,host2[:port]]/db[?params]
//	postgres://user:pass@host[:port][,host2[:port]]/db[?params] (also postgresql://)
//	jdbc:sqlserver://host[\instance][:port][;databaseName=db;key=value...]
//	sqlserver://user:pass@host[:port][/instance]?database=db[&params]
//
// A user or password parameter moves into User and Password. Errors print
// the URL masked.
func ParseDatabaseURL(raw string) (DatabaseURL, error) {
	lower := strings.ToLower(raw)
	var u DatabaseURL
	var err error
	switch {
	case strings.HasPrefix(lower, "jdbc:postgresql://"):
		u, err = parsePostgresURL(raw[len("jdbc:postgresql://"):], false)
	case strings.HasPrefix(lower, "postgres://"):
		u, err = parsePostgresURL(raw[len("postgres://"):], true)
	case strings.HasPrefix(lower, "postgresql://"):
		u, err = parsePostgresURL(raw[len("postgresql://"):], true)
	case strings.HasPrefix(lower, "jdbc:sqlserver://"):
		u, err = parseJDBCSQLServerURL(raw[len("jdbc:sqlserver://"):])
	case strings.HasPrefix(lower, "sqlserver://"):
		u, err = parseNativeSQLServerURL(raw)
	default:
		err = fmt.Errorf("must start with jdbc:postgresql://, jdbc:sqlserver://, postgres://, postgresql:// or sqlserver://")
	}
	if err != nil {
		return DatabaseURL{}, fmt.Errorf("database URL %s: %w", maskURL(raw), err)
	}
	u.masked = maskURL(raw)
	return u, nil
}

// bracedPassword matches a JDBC password in braces, which may hold ";" and
// "}}": password={a;b}}c}. secret.MaskURL stops at the first ";", so the
// braces are masked here first.
var bracedPassword = regexp.MustCompile(`(?i)((?:^|[;?&])(?:password|pwd)=)\{(?:[^}]|\}\})*\}?`)

// maskURL masks every password of a database or AMQP URL.
func maskURL(raw string) string {
	return secret.MaskURL(bracedPassword.ReplaceAllString(raw, "${1}***"))
}

// errUserInfoInJDBC refuses user information before the host of a JDBC URL:
// the JDBC form carries the user and password as parameters, and reading
// the user information as a host would echo the password in an error.
var errUserInfoInJDBC = errors.New("must not hold a user name or a password before the host: " +
	"set database.username and database.password (or the user and password parameters)")

// parsePostgresURL parses what follows the scheme. Only the native form
// carries user information before "@". Its password may hold a "/" that
// the writer did not percent-encode (base64 passwords do), so the user
// information ends at the last "@" before the parameters.
func parsePostgresURL(rest string, native bool) (DatabaseURL, error) {
	u := DatabaseURL{Type: DatabasePostgres, Params: map[string]string{}}
	rest, query, _ := strings.Cut(rest, "?")
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		if !native {
			return u, errUserInfoInJDBC
		}
		if err := u.setUserInfo(rest[:at]); err != nil {
			return u, err
		}
		rest = rest[at+1:]
	}
	authority, db, _ := strings.Cut(rest, "/")
	for _, h := range strings.Split(authority, ",") {
		hp, err := parseHostPort(h, postgresDefaultPort)
		if err != nil {
			return u, err
		}
		u.Hosts = append(u.Hosts, hp)
	}
	var err error
	if u.Database, err = url.PathUnescape(db); err != nil {
		return u, fmt.Errorf("the database name is not valid: %w", err)
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		// The parser's message quotes the bad escape, which may sit inside
		// a password parameter.
		return u, errors.New("the parameters are not valid URL text")
	}
	for k, vs := range values {
		u.setParam(k, vs[len(vs)-1], false)
	}
	return u, nil
}

func (u *DatabaseURL) setUserInfo(info string) error {
	user, pass, hasPass := strings.Cut(info, ":")
	var err error
	if u.User, err = url.PathUnescape(user); err != nil {
		return fmt.Errorf("the user name is not valid")
	}
	if hasPass {
		p, err := url.PathUnescape(pass)
		if err != nil {
			return fmt.Errorf("the password is not valid URL text")
		}
		u.Password = secret.New(p)
	}
	return nil
}

// setParam stores a parameter, moving user and password into their fields.
func (u *DatabaseURL) setParam(key, value string, sqlServer bool) {
	switch strings.ToLower(key) {
	case "user", "username":
		u.User = value
	case "password", "pwd":
		u.Password = secret.New(value)
	default:
		if sqlServer {
			key = strings.ToLower(key)
		}
		u.Params[key] = value
	}
}

// parseHostPort parses host, host:port, [v6] or [v6]:port. Its messages
// quote none of the text: a URL that the parser misreads can put part of a
// password where the host should be, and the caller prints the masked URL.
func parseHostPort(s string, defaultPort int) (HostPort, error) {
	s = strings.TrimSpace(s)
	host, portText := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, portText = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	if host == "" || strings.ContainsAny(host, "/@[]") {
		return HostPort{}, errors.New("names no valid host")
	}
	port := defaultPort
	if portText != "" {
		p, err := strconv.Atoi(portText)
		if err != nil || p < 1 || p > 65535 {
			return HostPort{}, errors.New("names a port that is not a number from 1 to 65535")
		}
		port = p
	}
	return HostPort{Host: host, Port: port}, nil
}

// parseJDBCSQLServerURL parses host[\instance][:port];key=value;... . The
// host may also come from the serverName property.
func parseJDBCSQLServerURL(rest string) (DatabaseURL, error) {
	u := DatabaseURL{Type: DatabaseSQLServer, Params: map[string]string{}}
	parts := splitJDBCProperties(rest)
	if strings.Contains(parts[0], "@") {
		return u, errUserInfoInJDBC
	}
	for i, prop := range parts[1:] {
		if strings.TrimSpace(prop) == "" {
			continue
		}
		k, v, ok := strings.Cut(prop, "=")
		if !ok {
			// Not quoted: an unbraced password holding ";" splits into
			// pieces that land here.
			return u, fmt.Errorf("property %d after the host has no =", i+1)
		}
		u.setParam(strings.TrimSpace(k), unbrace(strings.TrimSpace(v)), true)
	}
	server := parts[0]
	if server == "" {
		server = u.Params["servername"]
	}
	for _, key := range []string{"databasename", "database"} {
		if db, ok := u.Params[key]; ok {
			u.Database = db
			delete(u.Params, key)
		}
	}
	return u, u.setSQLServerHost(server)
}

// splitJDBCProperties splits at ";" outside braces: a braced value such as
// {a;b} may hold ";" and an escaped "}}".
func splitJDBCProperties(s string) []string {
	var parts []string
	start, braced := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '{' && !braced:
			braced = true
		case s[i] == '}' && braced && i+1 < len(s) && s[i+1] == '}':
			i++
		case s[i] == '}' && braced:
			braced = false
		case s[i] == ';' && !braced:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// unbrace removes the braces of a JDBC value and undoes the "}}" escape.
func unbrace(v string) string {
	if len(v) >= 2 && v[0] == '{' && v[len(v)-1] == '}' {
		return strings.ReplaceAll(v[1:len(v)-1], "}}", "}")
	}
	return v
}

// setSQLServerHost parses host[\instance][:port] of a JDBC URL.
func (u *DatabaseURL) setSQLServerHost(server string) error {
	host, portText, hasPort := strings.Cut(server, ":")
	host, u.Instance, _ = strings.Cut(host, `\`)
	if u.Instance == "" {
		u.Instance = u.Params["instancename"]
	}
	if p, ok := u.Params["portnumber"]; ok && !hasPort {
		portText, hasPort = p, true
	}
	defaultPort := sqlServerDefaultPort
	if u.Instance != "" {
		defaultPort = 0
	}
	hostPort := host
	if hasPort {
		hostPort = net.JoinHostPort(host, portText)
	}
	hp, err := parseHostPort(hostPort, defaultPort)
	if err != nil {
		return err
	}
	u.Hosts = []HostPort{hp}
	return nil
}

// parseNativeSQLServerURL parses sqlserver://user:pass@host:port/instance?database=db.
func parseNativeSQLServerURL(raw string) (DatabaseURL, error) {
	u := DatabaseURL{Type: DatabaseSQLServer, Params: map[string]string{}}
	parsed, err := url.Parse(raw)
	if err != nil {
		return u, fmt.Errorf("is not a valid URL")
	}
	if parsed.User != nil {
		u.User = parsed.User.Username()
		if p, ok := parsed.User.Password(); ok {
			u.Password = secret.New(p)
		}
	}
	u.Instance = strings.Trim(parsed.Path, "/")
	for k, vs := range parsed.Query() {
		u.setParam(k, vs[len(vs)-1], true)
	}
	if db, ok := u.Params["database"]; ok {
		u.Database = db
		delete(u.Params, "database")
	}
	defaultPort := sqlServerDefaultPort
	if u.Instance != "" {
		defaultPort = 0
	}
	hp, err := parseHostPort(parsed.Host, defaultPort)
	if err != nil {
		return u, err
	}
	u.Hosts = []HostPort{hp}
	return u, nil
}

// hostNames lists the hosts for a message.
func (u DatabaseURL) hostNames() string {
	names := make([]string, len(u.Hosts))
	for i, h := range u.Hosts {
		names[i] = h.String()
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
