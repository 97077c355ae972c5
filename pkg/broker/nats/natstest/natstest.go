// Package natstest holds what the NATS tests share: the URL of the NATS
// server to test against (NATS_URL, default nats://127.0.0.1:4222),
// connections and streams with random names that a test removes when it
// ends, and Server, a nats-server process of a test's own that the test
// can stop, kill and restart. It imports testing; import it from tests
// only.
package natstest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// URL returns the server the tests use: NATS_URL, or the local server.
func URL() string {
	if u := os.Getenv("NATS_URL"); u != "" {
		return u
	}
	return "nats://127.0.0.1:4222"
}

// Suffix returns a random name part, unique enough for parallel tests:
// upper-case letters and digits, valid in stream, consumer and subject
// names.
func Suffix() string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 10)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}

// Connect opens a connection to url and its JetStream context; the
// connection closes when t ends.
func Connect(t testing.TB, url string) (*gonats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := gonats.Connect(url, gonats.Name("queuebox test "+t.Name()), gonats.MaxReconnects(-1),
		gonats.ReconnectWait(50*time.Millisecond))
	require.NoError(t, err, "connect to %s", url)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return nc, js
}

// Stream creates a stream with a random name whose subjects are
// <prefix>.> for a random prefix, and deletes it when t ends. It returns
// the stream and the subject prefix.
func Stream(t testing.TB, js jetstream.JetStream) (jetstream.Stream, string) {
	t.Helper()
	sfx := Suffix()
	prefix := "qbtest." + strings.ToLower(sfx)
	return StreamOn(t, js, "QBTEST_"+sfx, prefix+".>"), prefix
}

// StreamOn creates the stream name on the subjects, file storage, and
// deletes it when t ends.
func StreamOn(t testing.TB, js jetstream.JetStream, name string, subjects ...string) jetstream.Stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := CreateStream(ctx, js, jetstream.StreamConfig{Name: name, Subjects: subjects, Storage: jetstream.FileStorage})
	require.NoError(t, err, "create stream %s", name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = js.DeleteStream(ctx, name)
	})
	return s
}

// Publish publishes body with headers to subject through JetStream and
// fails t unless the stream acknowledges it.
func Publish(t testing.TB, js jetstream.JetStream, subject string, body []byte, headers map[string]string) {
	t.Helper()
	msg := &gonats.Msg{Subject: subject, Data: body, Header: gonats.Header{}}
	for k, v := range headers {
		msg.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := js.PublishMsg(ctx, msg)
	require.NoError(t, err, "publish to %s", subject)
}

// Messages returns every message the stream holds, in sequence order.
func Messages(t testing.TB, s jetstream.Stream) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := s.Info(ctx)
	require.NoError(t, err)
	var out []*jetstream.RawStreamMsg
	if info.State.Msgs == 0 {
		return nil
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			require.ErrorIs(t, err, jetstream.ErrMsgNotFound, "read message %d", seq)
			continue
		}
		out = append(out, m)
	}
	return out
}

// Pending returns the consumer's messages not yet delivered and those
// delivered but not acknowledged.
func Pending(t testing.TB, s jetstream.Stream, durable string) (pending uint64, ackPending int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := s.Consumer(ctx, durable)
	require.NoError(t, err, "consumer %s", durable)
	info, err := c.Info(ctx)
	require.NoError(t, err)
	return info.NumPending, info.NumAckPending
}

// String describes a message for a failure text.
func String(m *jetstream.RawStreamMsg) string {
	return fmt.Sprintf("seq %d %s %v %s", m.Sequence, m.Subject, m.Header, m.Data)
}

// ErrStoreCreate is JetStream's "error creating store for stream". The
// nats-server 2.9 of Debian removes an account's store directory when its
// last stream is deleted, and a stream created at that moment fails with
// this code (the server log says "could not create storage directory").
// With tests creating and deleting streams in parallel on one server,
// that is a race inside the server, not a refusal of the stream.
const ErrStoreCreate jetstream.ErrorCode = 10049

// CreateStream is js.CreateStream, tried again while the server answers
// ErrStoreCreate, until ctx ends.
func CreateStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	for {
		s, err := js.CreateStream(ctx, cfg)
		var api *jetstream.APIError
		if err == nil || !errors.As(err, &api) || api.ErrorCode != ErrStoreCreate {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}
