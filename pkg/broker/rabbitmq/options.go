package rabbitmq

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/alternayte/queuebox/pkg/broker/address"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/secret"
)

// Defaults that New applies to zero fields of Options.
const (
	DefaultExchangeType = "topic"
	DefaultDeliveryMode = "persistent"
	DefaultTimeout      = 30 * time.Second
)

// Options configure one RabbitMQ destination. They mirror the destination
// block of the configuration, so this package needs no configuration
// package.
type Options struct {
	// Name is the destination name; errors and logs carry it.
	Name string
	// URL is the AMQP URI of the broker. It may hold a password, which no
	// error or log line shows.
	URL string
	// Exchange is the exchange name or an address template; ExchangeFrom,
	// when set, names the row column that holds the exchange instead
	// (aggregate_type, topic or key).
	Exchange, ExchangeFrom string
	// ExchangeType is the type the publisher declares: topic (default),
	// direct or fanout.
	ExchangeType string
	// RoutingKeyTemplate is the routing key when the matched route sets
	// none. Default {{ topic }}.
	RoutingKeyTemplate string
	// DeliveryMode is persistent (default) or transient.
	DeliveryMode string
	// Headers are the static headers of every message.
	Headers map[string]string
	// Timeout bounds one Publish: the dial when there is no connection,
	// the exchange declaration and the wait for the confirm. Default 30 s.
	Timeout time.Duration
	// BlockPrivateAddresses refuses, in the dialer, every connection to a
	// loopback, private, link-local, carrier-grade NAT, NAT64 or
	// IPv4-mapped inside address (package netguard), whatever the host of
	// URL resolved to (http.blockPrivateAddresses). Such a publish fails
	// with an error that matches queuebox.ErrUndeliverable.
	BlockPrivateAddresses bool
	// Redactor knows the secrets of the whole configuration; the
	// publisher adds the password of URL. May be nil.
	Redactor *redact.Redactor
	// Logger receives connection events. May be nil.
	Logger *slog.Logger
}

func (opts Options) withDefaults() (Options, error) {
	if opts.ExchangeType == "" {
		opts.ExchangeType = DefaultExchangeType
	}
	if opts.DeliveryMode == "" {
		opts.DeliveryMode = DefaultDeliveryMode
	}
	if opts.RoutingKeyTemplate == "" {
		opts.RoutingKeyTemplate = address.DefaultRoutingKey
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var errs []error
	switch opts.ExchangeType {
	case "topic", "direct", "fanout":
	default:
		errs = append(errs, fmt.Errorf("exchangeType %q: want topic, direct or fanout", opts.ExchangeType))
	}
	switch opts.DeliveryMode {
	case "persistent", "transient":
	default:
		errs = append(errs, fmt.Errorf("deliveryMode %q: want persistent or transient", opts.DeliveryMode))
	}
	if opts.Timeout < 0 {
		errs = append(errs, errors.New("timeout must be above 0"))
	}
	if err := CheckURL(opts.URL); err != nil {
		errs = append(errs, fmt.Errorf("url: %w", err))
	}
	return opts, errors.Join(errs...)
}

// CheckURL reports whether raw is an AMQP URI that the client can dial.
// The error shows the URI with its password masked.
func CheckURL(raw string) error {
	if raw == "" {
		return errors.New("required")
	}
	if _, err := amqp.ParseURI(raw); err != nil {
		// The parser's own text can quote the whole URI, password included.
		return fmt.Errorf("%s is not an AMQP URI (amqp:// or amqps://)", secret.MaskURL(raw))
	}
	return nil
}

// urlPassword returns the password of an AMQP URI, or "".
func urlPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

// redactorFor returns r extended with the password of the URL. A nil r
// is valid.
func redactorFor(r *redact.Redactor, rawURL string) *redact.Redactor {
	if pw := urlPassword(rawURL); pw != "" {
		return r.With(pw)
	}
	return r
}
