package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// The header names of the scheme, in the lower case that the
// specification writes them in. HTTP matches them in any letter case.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Scheme is the one signing scheme that a destination accepts.
const Scheme = "standard-webhooks"

// The rules of a key and of a rotation.
const (
	SecretPrefix       = "whsec_"
	MinKeyBytes        = 24
	MaxKeyBytes        = 64
	MaxPreviousSecrets = 10
	// version tags an HMAC-SHA256 entry of webhook-signature.
	version = "v1"
)

// ErrSecretFormat is the error of a key that is not "whsec_" and the
// base64 of MinKeyBytes to MaxKeyBytes bytes. Its text never quotes the
// key.
var ErrSecretFormat = fmt.Errorf("must be %s followed by the base64 of %d to %d bytes", SecretPrefix, MinKeyBytes, MaxKeyBytes)

// ParseSecret decodes a "whsec_" key into the bytes that the HMAC uses.
// The error wraps ErrSecretFormat and never holds the key.
func ParseSecret(s string) ([]byte, error) {
	text, ok := strings.CutPrefix(strings.TrimSpace(s), SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: the %s prefix is missing", ErrSecretFormat, SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("%w: the text after %s is not base64", ErrSecretFormat, SecretPrefix)
	}
	if len(key) < MinKeyBytes || len(key) > MaxKeyBytes {
		return nil, fmt.Errorf("%w: it decodes to %d bytes", ErrSecretFormat, len(key))
	}
	return key, nil
}

// Keys are the keys of one signer or verifier, the current one first. A
// Keys value is immutable and safe for concurrent use.
type Keys struct {
	keys [][]byte
}

// NewKeys parses the current key and up to MaxPreviousSecrets previous
// ones. The error names the position of a bad key ("secret",
// "previousSecrets[i]") and never holds a key.
func NewKeys(current string, previous []string) (*Keys, error) {
	if len(previous) > MaxPreviousSecrets {
		return nil, fmt.Errorf("previousSecrets: at most %d, got %d", MaxPreviousSecrets, len(previous))
	}
	k := &Keys{keys: make([][]byte, 0, 1+len(previous))}
	key, err := ParseSecret(current)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	k.keys = append(k.keys, key)
	for i, p := range previous {
		key, err := ParseSecret(p)
		if err != nil {
			return nil, fmt.Errorf("previousSecrets[%d]: %w", i, err)
		}
		k.keys = append(k.keys, key)
	}
	return k, nil
}

// Sign returns the webhook-signature value of one message: one
// "v1,<base64>" entry per key, the current key first, separated by one
// space.
func (k *Keys) Sign(id string, timestamp int64, body []byte) string {
	ts := strconv.FormatInt(timestamp, 10)
	var b strings.Builder
	for i, key := range k.keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(version)
		b.WriteByte(',')
		b.WriteString(base64.StdEncoding.EncodeToString(mac(key, id, ts, body)))
	}
	return b.String()
}

// Match reports whether any v1 entry of the webhook-signature value
// header is the HMAC of "<id>.<timestamp>.<body>" under any key. Entries
// of other versions, and entries that do not decode, are skipped. Every
// comparison runs in constant time.
func (k *Keys) Match(id, timestamp string, body []byte, header string) bool {
	sigs := ParseSignatures(header)
	if len(sigs) == 0 {
		return false
	}
	found := false
	for _, key := range k.keys {
		want := mac(key, id, timestamp, body)
		for _, got := range sigs {
			// No early return: the time does not tell which key matched.
			if hmac.Equal(got, want) {
				found = true
			}
		}
	}
	return found
}

// ParseSignatures returns the decoded v1 entries of a webhook-signature
// value. Entries are separated by spaces; each is "<version>,<base64>".
// Other versions, empty entries and entries whose base64 does not decode
// are left out.
func ParseSignatures(header string) [][]byte {
	var out [][]byte
	for _, entry := range strings.Fields(header) {
		v, sig, ok := strings.Cut(entry, ",")
		if !ok || v != version {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(sig)
		if err != nil || len(raw) != sha256.Size {
			continue
		}
		out = append(out, raw)
	}
	return out
}

// mac is the HMAC-SHA256 of "<id>.<timestamp>.<body>" under key.
func mac(key []byte, id, timestamp string, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write([]byte(timestamp))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}
