// Package capture is the change data capture connector of
// queuebox-capture: it reads the database log and wakes delivery when an
// outbox insert commits. It delivers nothing itself; SQL stays the only
// source of truth, so a lost wake-up costs latency, never a message.
package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/pkg/config"
)

// Settings are the capture settings that fix the meaning of a recorded
// log position, plus what the connector needs to connect.
type Settings struct {
	Identity    string
	Slot        string
	Publication string
	Schema      string
	Table       string
	Host        string
	Port        int
	Database    string
	// StateDirectory holds offsets.dat and identity.
	StateDirectory string
	// CaptureConn connects to the capture host (replication is added by
	// the connector); MainConn connects to database.url, where the state
	// table, the owner lock and the wake-ups live. Both hold passwords:
	// never log them.
	CaptureConn string
	MainConn    string
	// DisplayURL is the masked capture connection, for logs and reports.
	DisplayURL string
}

// FromConfig derives the settings: host, port and database come from
// database.url, each replaced by outbox.capture.connection.* when set; the
// user and password likewise. A URL with several hosts needs
// connection.hostname (config validation says so too).
func FromConfig(cfg *config.Config) (Settings, error) {
	c, db := cfg.Outbox.Capture, cfg.Database
	url, err := config.ParseDatabaseURL(db.URL)
	if err != nil {
		return Settings{}, fmt.Errorf("database.url (QUEUEBOX_DATABASE_URL): %w", err)
	}
	s := Settings{Identity: c.Identity, Slot: c.Slot, Publication: c.Publication, Schema: c.Schema,
		Table: db.OutboxTableName, StateDirectory: c.StateDirectory, MainConn: url.PgxConnString(db.Username, db.Password)}
	if s.Schema == "" {
		s.Schema = defaultSchema(db.Type)
	}
	conn := c.Connection
	host := strings.TrimSpace(conn.Hostname)
	if host == "" {
		if len(url.Hosts) != 1 {
			return Settings{}, fmt.Errorf("outbox.capture.connection.hostname (QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_HOSTNAME): required because database.url (QUEUEBOX_DATABASE_URL) names %d hosts and capture reads from one", len(url.Hosts))
		}
		host = url.Hosts[0].Host
	}
	port := defaultPort(db.Type)
	if len(url.Hosts) > 0 && url.Hosts[0].Port != 0 {
		port = url.Hosts[0].Port
	}
	if conn.Port != nil {
		port = *conn.Port
	}
	s.Host, s.Port, s.Database = host, port, url.Database
	if conn.Database != "" {
		s.Database = conn.Database
	}
	captureURL := url
	captureURL.Hosts = []config.HostPort{{Host: host, Port: port}}
	captureURL.Database = s.Database
	user, password := db.Username, db.Password
	if conn.Username != "" {
		user = conn.Username
	}
	if conn.Password != nil && !conn.Password.IsEmpty() {
		password = *conn.Password
	}
	s.CaptureConn = captureURL.PgxConnString(user, password)
	s.DisplayURL = fmt.Sprintf("%s:%d/%s", host, port, s.Database)
	return s, nil
}

func defaultSchema(dbType string) string {
	if dbType == config.DatabaseSQLServer {
		return "dbo"
	}
	return "public"
}

func defaultPort(dbType string) int {
	if dbType == config.DatabaseSQLServer {
		return 1433
	}
	return 5432
}

// Fingerprint is the hash of the settings that make a recorded position
// meaningless when they change: slot, publication, schema, table, host
// and database. The port is left out, so a port moved behind a proxy is
// no fault.
func (s Settings) Fingerprint() string {
	var b strings.Builder
	for _, kv := range [][2]string{{"slot", s.Slot}, {"publication", s.Publication}, {"schema", s.Schema},
		{"table", s.Table}, {"host", strings.ToLower(s.Host)}, {"database", s.Database}} {
		b.WriteString(kv[0] + "=" + strconv.Quote(kv[1]) + "\n")
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "v1:" + hex.EncodeToString(sum[:])
}
