package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Settings are the capture settings that fix the meaning of a recorded
// log position, plus what the connector needs to reach the capture host.
// The wiring maps outbox.capture and database.* onto them: Host, Port,
// Database and CaptureConn are database.url with each
// outbox.capture.connection field replacing one value.
type Settings struct {
	Identity    string
	Slot        string
	Publication string
	// Schema and Table name the outbox table; Schema is public when empty.
	Schema   string
	Table    string
	Host     string
	Port     int
	Database string
	// StateDirectory holds offsets.dat and identity.
	StateDirectory string
	// CaptureConn is the pgx connection string of the capture host
	// (replication is added by the connector). The state table, the owner
	// lock and the wake-ups live on database.url instead, which the store
	// set gives (Options.Database). It holds the password: never log it.
	CaptureConn string
	// DisplayURL is the masked capture connection, for logs and reports.
	DisplayURL string
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
