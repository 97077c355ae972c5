package nats

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	gonats "github.com/nats-io/nats.go"

	"github.com/alternayte/queuebox/pkg/backoff"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/secret"
)

// The client's wait before a reconnect: the first wait and the longest
// one.
const (
	minReconnect = time.Second
	maxReconnect = 30 * time.Second
	// connectTimeout bounds one dial and handshake of a server.
	connectTimeout = 5 * time.Second
)

// Conn holds what a publisher or a consumer needs to reach the servers.
type Conn struct {
	// Servers are the server URLs, separated by commas.
	Servers string
	// Username with Password, or Token, are the credentials; all empty for
	// none.
	Username string
	Password secret.Secret
	Token    secret.Secret
}

func (c Conn) validate() error {
	if len(c.urls()) == 0 {
		return errors.New("servers: at least one server URL is required")
	}
	hasUser := strings.TrimSpace(c.Username) != ""
	switch {
	case hasUser != !c.Password.IsEmpty():
		return errors.New("username and password go together")
	case hasUser && !c.Token.IsEmpty():
		return errors.New("set a token or a user name, not both")
	}
	return nil
}

func (c Conn) urls() []string {
	var out []string
	for _, u := range strings.Split(c.Servers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// secrets are the values a redactor masks: the credentials, and any
// password a server URL carries.
func (c Conn) secrets() []string {
	out := []string{c.Password.Reveal(), c.Token.Reveal()}
	for _, u := range c.urls() {
		if masked := secret.MaskURL(u); masked != u {
			out = append(out, u)
		}
	}
	return out
}

// connOptions are the client options both sides share: retry the first
// connect, reconnect for ever with the backoff, and log state changes
// without a URL that could hold a password.
func (c Conn) connOptions(name string, log *slog.Logger, r *redact.Redactor) []gonats.Option {
	opts := []gonats.Option{
		gonats.Name(name),
		gonats.RetryOnFailedConnect(true),
		gonats.MaxReconnects(-1),
		gonats.CustomReconnectDelay(func(attempts int) time.Duration {
			return backoff.Delay(minReconnect, maxReconnect, attempts)
		}),
		gonats.Timeout(connectTimeout),
		gonats.DisconnectErrHandler(func(_ *gonats.Conn, err error) {
			if err != nil {
				log.Warn("nats connection lost; reconnecting", "err", r.Redact(err.Error()))
			}
		}),
		gonats.ReconnectHandler(func(*gonats.Conn) { log.Info("nats connection restored") }),
		gonats.ErrorHandler(func(_ *gonats.Conn, _ *gonats.Subscription, err error) {
			log.Warn("nats client error", "err", r.Redact(err.Error()))
		}),
	}
	switch {
	case c.Username != "":
		opts = append(opts, gonats.UserInfo(c.Username, c.Password.Reveal()))
	case !c.Token.IsEmpty():
		opts = append(opts, gonats.Token(c.Token.Reveal()))
	}
	return opts
}

// dial connects to the servers. With RetryOnFailedConnect it returns a
// connection that keeps trying in the background when no server answers
// yet; it fails only on options it cannot use.
func (c Conn) dial(name string, log *slog.Logger, r *redact.Redactor, extra ...gonats.Option) (*gonats.Conn, error) {
	opts := append(c.connOptions(name, log, r), extra...)
	nc, err := gonats.Connect(strings.Join(c.urls(), ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to nats: %s", r.Redact(err.Error()))
	}
	return nc, nil
}
