package capturerole

import (
	"fmt"
	"strings"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/store"
)

// captureSettings maps outbox.capture and the database block onto the
// connector's settings: host, port and database come from database.url,
// each replaced by outbox.capture.connection.* when set; the user and
// password likewise. A URL with several hosts needs connection.hostname
// (config validation says so too).
func captureSettings(cfg *config.Config) (capture.Settings, error) {
	c, db := cfg.Outbox.Capture, cfg.Database
	url, err := config.ParseDatabaseURL(db.URL)
	if err != nil {
		return capture.Settings{}, fmt.Errorf("database.url (QUEUEBOX_DATABASE_URL): %w", err)
	}
	s := capture.Settings{Identity: c.Identity, Slot: c.Slot, Publication: c.Publication, Schema: c.Schema,
		Table: db.OutboxTableName, StateDirectory: c.StateDirectory}
	conn := c.Connection
	host := strings.TrimSpace(conn.Hostname)
	if host == "" {
		if len(url.Hosts) != 1 {
			return capture.Settings{}, fmt.Errorf("outbox.capture.connection.hostname (QUEUEBOX_OUTBOX_CAPTURE_CONNECTION_HOSTNAME): required because database.url (QUEUEBOX_DATABASE_URL) names %d hosts and capture reads from one", len(url.Hosts))
		}
		host = url.Hosts[0].Host
	}
	// The parser gives every host of the URL its port, the dialect's
	// default when the URL names none.
	port := 0
	if len(url.Hosts) > 0 {
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
	s.CaptureConn = store.PostgresConnString(captureURL, user, password)
	s.DisplayURL = fmt.Sprintf("%s:%d/%s", host, port, s.Database)
	return s, nil
}
