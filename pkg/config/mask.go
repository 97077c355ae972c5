package config

import (
	"encoding/json"
	"fmt"
)

// Three keys hold a URL whose password is not a secret.Secret, because the
// URL also carries the host that a log needs: database.url, the RabbitMQ
// destination url and the RabbitMQ source connectionUrl. The types below
// mask those URLs in every fmt verb, in JSON (which slog's JSON handler
// uses) and in YAML, so printing a whole Config never shows a password.
//
// fmt has a trap: a verb that does not fit a pointer field (%s, %d, %x on
// a *SourceAuth) prints that field through its error path, which calls no
// Format or String method, so a secret.Secret below it would print in
// clear. Every type here that holds such a pointer therefore prints itself
// with %v (keeping the + and # flags), which prints a nested pointer as an
// address.
//
// Each *Fields type has the fields of its struct and none of its methods,
// so formatting it cannot recurse.
type (
	configFields            Config
	adminFields             Admin
	captureConnectionFields CaptureConnection
	databaseFields          Database
	destinationFields       Destination
	sourceFields            Source
)

// safeVerb returns %v with the flags of f that change a struct's layout.
func safeVerb(f fmt.State) string {
	verb := "%"
	if f.Flag('+') {
		verb += "+"
	}
	if f.Flag('#') {
		verb += "#"
	}
	return verb + "v"
}

// Format prints the configuration with every secret and URL password
// masked, whatever the verb.
func (c Config) Format(f fmt.State, _ rune) { _, _ = fmt.Fprintf(f, safeVerb(f), configFields(c)) }

// Format prints the admin block; the auth block prints as a pointer.
func (a Admin) Format(f fmt.State, _ rune) { _, _ = fmt.Fprintf(f, safeVerb(f), adminFields(a)) }

// Format prints the capture connection; the password prints as a pointer.
func (c CaptureConnection) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, safeVerb(f), captureConnectionFields(c))
}

func (d Database) masked() databaseFields {
	m := databaseFields(d)
	m.URL = maskURL(d.URL)
	return m
}

// Format prints the database block with the URL password masked.
func (d Database) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, safeVerb(f), d.masked())
}

// MarshalJSON writes the database block with the URL password masked.
func (d Database) MarshalJSON() ([]byte, error) { return json.Marshal(d.masked()) }

// MarshalYAML writes the database block with the URL password masked, so a
// YAML dump of the configuration is safe too.
func (d Database) MarshalYAML() (any, error) { return d.masked(), nil }

func (d Destination) masked() destinationFields {
	m := destinationFields(d)
	m.URL = maskURL(d.URL)
	return m
}

// Format prints the destination with the AMQP URI password masked.
func (d Destination) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, safeVerb(f), d.masked())
}

// MarshalJSON writes the destination with the AMQP URI password masked.
func (d Destination) MarshalJSON() ([]byte, error) { return json.Marshal(d.masked()) }

// MarshalYAML writes the destination with the AMQP URI password masked.
func (d Destination) MarshalYAML() (any, error) { return d.masked(), nil }

func (s Source) masked() sourceFields {
	m := sourceFields(s)
	m.ConnectionURL = maskURL(s.ConnectionURL)
	return m
}

// Format prints the source with the AMQP URI password masked.
func (s Source) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, safeVerb(f), s.masked())
}

// MarshalJSON writes the source with the AMQP URI password masked.
func (s Source) MarshalJSON() ([]byte, error) { return json.Marshal(s.masked()) }

// MarshalYAML writes the source with the AMQP URI password masked.
func (s Source) MarshalYAML() (any, error) { return s.masked(), nil }
