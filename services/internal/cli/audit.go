package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"os/user"
)

// audit writes the one structured line that each CLI write leaves on
// stderr, the counterpart of the admin API's "admin write" line: who ran
// it (the operating-system user, as the CLI has no credential of its
// own), the command and what it moved. Payloads never appear, only their
// SHA-256. stdout keeps the command's answer alone, so a script that
// parses it is not disturbed.
func audit(stderr io.Writer, command string, attrs ...any) {
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	log.Info("cli write", append([]any{"user", operator(), "command", command}, attrs...)...)
}

// operator names the user running the CLI: the account, or $USER when
// the account cannot be looked up (a container with no passwd entry).
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if name := os.Getenv("USER"); name != "" {
		return name
	}
	return "unknown"
}

// payloadDigest is the hexadecimal SHA-256 of a payload's stored text.
func payloadDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
