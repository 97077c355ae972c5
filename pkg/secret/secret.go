// Package secret holds credentials so that no log line, error message or
// JSON document can print them by accident.
package secret

import (
	"fmt"
	"log/slog"
)

// Secret is a credential read from the configuration. Every formatting path
// (fmt verbs, JSON, slog) prints a mask; only Reveal returns the value.
// The zero value is an empty secret. A Secret is immutable and safe for
// concurrent use.
type Secret struct {
	// The value sits behind a pointer: fmt's error paths (a bad verb on an
	// enclosing struct) print fields without calling Format, and a pointer
	// prints as an address, never as the text.
	v *value
}

type value struct{ text string }

// New wraps a credential.
func New(text string) Secret {
	if text == "" {
		return Secret{}
	}
	return Secret{v: &value{text: text}}
}

// Reveal returns the credential itself. Call it only where the value leaves
// the process on purpose: a connection, a signature, an outbound header.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return s.v.text
}

// IsEmpty reports whether the credential is absent.
func (s Secret) IsEmpty() bool { return s.v == nil || s.v.text == "" }

// String prints the mask: Secret(***) or Secret(empty).
func (s Secret) String() string {
	if s.IsEmpty() {
		return "Secret(empty)"
	}
	return "Secret(***)"
}

// GoString keeps %#v masked too.
func (s Secret) GoString() string { return s.String() }

// Format masks every fmt verb, including %+v, %#v, %q and %x.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = fmt.Fprint(f, s.String()) }

// MarshalJSON writes the mask as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// MarshalText writes the mask, so encoders that use TextMarshaler stay safe.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue masks the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }
