package address

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Kind names the broker address whose rules Check applies.
type Kind int

const (
	// NATSSubject is the subject of a NATS destination.
	NATSSubject Kind = iota + 1
	// RabbitMQExchange is the exchange of a RabbitMQ destination.
	RabbitMQExchange
	// KafkaTopic is the topic of a Kafka destination.
	KafkaTopic
)

// The length caps of the addresses, in bytes. An AMQP exchange name and
// routing key are short strings (at most 255 bytes); Kafka refuses a topic
// name past 249 characters; NATS sets no limit of its own below its
// 4 KiB control line, so QueueBox takes the AMQP cap.
const (
	MaxNATSSubject = 255
	MaxExchange    = 255
	MaxRoutingKey  = 255
	MaxKafkaTopic  = 249
)

// Check reports why the broker of kind must not receive a message at
// addr, or nil. It refuses the names each broker keeps for itself and the
// names it would reject:
//   - NATS: a token that starts with $ ($JS, $SYS, $KV…), the _INBOX.
//     reply subjects, a * or >, an empty token, white space or a control
//     character, invalid UTF-8, more than MaxNATSSubject bytes;
//   - RabbitMQ: an exchange that starts with amq., a control character,
//     invalid UTF-8, more than MaxExchange bytes;
//   - Kafka: a topic that starts with __ (__consumer_offsets,
//     __transaction_state), "." and "..", a character outside
//     [a-zA-Z0-9._-], more than MaxKafkaTopic bytes.
//
// Check is safe for concurrent use.
func Check(kind Kind, addr string) error {
	switch kind {
	case NATSSubject:
		return checkSubject(addr)
	case RabbitMQExchange:
		return checkExchange(addr)
	case KafkaTopic:
		return checkTopic(addr)
	}
	return fmt.Errorf("unknown address kind %d", kind)
}

// CheckRoutingKey reports a RabbitMQ routing key that AMQP cannot carry:
// one longer than MaxRoutingKey bytes.
func CheckRoutingKey(key string) error {
	if len(key) > MaxRoutingKey {
		return fmt.Errorf("it is %d bytes long, above the AMQP limit of %d", len(key), MaxRoutingKey)
	}
	return nil
}

func checkSubject(s string) error {
	if err := checkText(s, MaxNATSSubject); err != nil {
		return err
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return errors.New("it holds white space")
	}
	for i, tok := range strings.Split(s, ".") {
		switch {
		case tok == "":
			return errors.New("it has an empty token (a leading, trailing or double dot)")
		case strings.ContainsAny(tok, "*>"):
			return errors.New("it holds a wildcard (* or >)")
		case tok[0] == '$':
			return errors.New("a token starts with $, which NATS keeps for its own APIs ($JS, $SYS, $KV…)")
		case i == 0 && tok == "_INBOX":
			return errors.New("it starts with _INBOX., the reply subjects of NATS requests")
		}
	}
	return nil
}

func checkExchange(s string) error {
	if err := checkText(s, MaxExchange); err != nil {
		return err
	}
	if strings.HasPrefix(s, "amq.") {
		return errors.New("it starts with amq., which RabbitMQ keeps for its own exchanges")
	}
	return nil
}

func checkTopic(s string) error {
	if len(s) > MaxKafkaTopic {
		return fmt.Errorf("it is %d bytes long, above the Kafka limit of %d", len(s), MaxKafkaTopic)
	}
	switch {
	case s == "." || s == "..":
		return errors.New("it is . or .., which Kafka refuses")
	case strings.HasPrefix(s, "__"):
		return errors.New("it starts with __, which Kafka keeps for its internal topics")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return errors.New("it holds a character outside [a-zA-Z0-9._-]")
		}
	}
	return nil
}

// checkText refuses invalid UTF-8, a control character and a text longer
// than limit bytes.
func checkText(s string, limit int) error {
	switch {
	case len(s) > limit:
		return fmt.Errorf("it is %d bytes long, above the limit of %d", len(s), limit)
	case !utf8.ValidString(s):
		return errors.New("it is not valid UTF-8")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return errors.New("it holds a control character")
	}
	return nil
}

// maxShown is how much of a refused address a reason quotes.
const maxShown = 200

// Refused returns the *queuebox.UndeliverableError of a refused address:
// the row goes dead at once. dest is the destination's prefix
// (failure.Prefix), what names the address (subject, exchange, topic,
// routing key), err says why. The reason quotes the address, cut at 200
// bytes, with every control character escaped.
func Refused(dest, what, addr string, err error) error {
	shown := addr
	if len(shown) > maxShown {
		shown = strings.ToValidUTF8(shown[:maxShown], "") + "…"
	}
	return &queuebox.UndeliverableError{
		Reason: fmt.Sprintf("%s: the rendered %s %q is refused: %v", dest, what, shown, err),
		Err:    err,
	}
}

// Rendered reports whether the address comes from the row: a *From column
// or a template with a placeholder. A literal address is the operator's,
// spelled out in the configuration; the publishers check only rendered
// ones, so a configuration that names a reserved address on purpose keeps
// working.
func (t Template) Rendered() bool {
	if t.from != "" {
		return true
	}
	for _, p := range t.parts {
		if !p.literal() {
			return true
		}
	}
	return false
}

// Refuse checks addr, which t rendered, by the rules of kind, and returns
// the *queuebox.UndeliverableError of Refused when they refuse it. A
// literal template is not checked (see Rendered).
func (t Template) Refuse(kind Kind, addr, dest, what string) error {
	if !t.Rendered() {
		return nil
	}
	if err := Check(kind, addr); err != nil {
		return Refused(dest, what, addr, err)
	}
	return nil
}
