package webhooksig_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// recorder is a fake publisher that keeps every delivery it is handed.
type recorder struct {
	mu     sync.Mutex
	got    []queuebox.Delivery
	err    error
	closed bool
}

func (r *recorder) Publish(_ context.Context, d queuebox.Delivery) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, d)
	return r.err
}

func (r *recorder) Close() error { r.closed = true; return nil }

func verifyWith(t *testing.T, secret string, d queuebox.Delivery) error {
	t.Helper()
	h := http.Header{}
	for name, v := range d.Message.Headers {
		h.Set(name, v)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	return wh.Verify(d.Body, h)
}

func TestPublisherSignsEveryAttempt(t *testing.T) {
	t.Parallel()
	current, previous := key(32, 'c'), key(32, 'p')
	next := &recorder{}
	clock := time.Now()
	p, err := webhooksig.Wrap(next, webhooksig.Options{
		Secret: secret.New(current), PreviousSecrets: []secret.Secret{secret.New(previous)},
		Now: func() time.Time { return clock },
	})
	require.NoError(t, err)
	row := &queuebox.OutboxMessage{ID: "row-1", Topic: "order.created", Headers: map[string]string{
		"X-Inbox-Id": "in-1", "Webhook-Signature": "v1,forged", "WEBHOOK-ID": "other", "x-tenant": "t1",
	}}
	body := []byte(`{"order":1}`)
	require.NoError(t, p.Publish(context.Background(), queuebox.Delivery{Message: row, Body: body}))
	clock = clock.Add(7 * time.Second)
	row.Attempt = 1
	require.NoError(t, p.Publish(context.Background(), queuebox.Delivery{Message: row, Body: body}))

	require.Len(t, next.got, 2)
	first, second := next.got[0].Message.Headers, next.got[1].Message.Headers
	require.Equal(t, "row-1", first[webhooksig.HeaderID])
	require.Equal(t, first[webhooksig.HeaderID], second[webhooksig.HeaderID], "a retry keeps webhook-id")
	require.NotEqual(t, first[webhooksig.HeaderTimestamp], second[webhooksig.HeaderTimestamp])
	require.NotEqual(t, first[webhooksig.HeaderSignature], second[webhooksig.HeaderSignature])
	require.Equal(t, strconv.FormatInt(clock.Unix(), 10), second[webhooksig.HeaderTimestamp])
	require.Equal(t, "t1", first["x-tenant"], "other row headers travel on")
	for _, h := range []map[string]string{first, second} {
		n := 0
		for name := range h {
			if webhooksig.Reserved(name) {
				n++
			}
		}
		require.Equal(t, 3, n, "the row's own signing headers are gone, in any letter case")
	}
	require.NoError(t, verifyWith(t, current, next.got[0]))
	require.NoError(t, verifyWith(t, previous, next.got[0]))
	require.Equal(t, "v1,forged", row.Headers["Webhook-Signature"], "the caller's row is not changed")
}

func TestPublisherPassesErrorsAndClose(t *testing.T) {
	t.Parallel()
	boom := errors.New("broker down")
	next := &recorder{err: boom}
	p, err := webhooksig.Wrap(next, webhooksig.Options{Scheme: webhooksig.Scheme, Secret: secret.New(key(24, 'k'))})
	require.NoError(t, err)
	err = p.Publish(context.Background(), queuebox.Delivery{Message: &queuebox.OutboxMessage{ID: "r"}, Body: []byte(`{}`)})
	require.ErrorIs(t, err, boom)
	require.NoError(t, p.Close())
	require.True(t, next.closed)
}

func TestWrapRefusesBadOptions(t *testing.T) {
	t.Parallel()
	const bad = "whsec_dG9vc2hvcnQ="
	cases := map[string]struct {
		opts webhooksig.Options
		want string
	}{
		"scheme":    {webhooksig.Options{Scheme: "svix", Secret: secret.New(key(32, 'a'))}, `signing.scheme: "svix" is not standard-webhooks`},
		"no secret": {webhooksig.Options{}, "signing.secret: must be whsec_"},
		"short":     {webhooksig.Options{Secret: secret.New(bad)}, "signing.secret: must be whsec_ followed by the base64 of 24 to 64 bytes: it decodes to 8 bytes"},
		"previous":  {webhooksig.Options{Secret: secret.New(key(32, 'a')), PreviousSecrets: []secret.Secret{secret.New(bad)}}, "signing.previousSecrets[0]"},
		"too many":  {webhooksig.Options{Secret: secret.New(key(32, 'a')), PreviousSecrets: make([]secret.Secret, 11)}, "signing.previousSecrets: at most 10"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := webhooksig.Wrap(&recorder{}, tc.opts)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), bad)
		})
	}
}

// Several goroutines share one publisher: each delivery gets the
// signature of its own row and body.
func TestPublisherConcurrent(t *testing.T) {
	t.Parallel()
	current := key(32, 'c')
	next := &recorder{}
	p, err := webhooksig.Wrap(next, webhooksig.Options{Secret: secret.New(current)})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "row-" + strconv.Itoa(i)
			_ = p.Publish(context.Background(), queuebox.Delivery{Message: &queuebox.OutboxMessage{ID: id}, Body: []byte(`{"n":` + strconv.Itoa(i) + `}`)})
		}()
	}
	wg.Wait()
	require.Len(t, next.got, 8)
	for _, d := range next.got {
		require.NoError(t, verifyWith(t, current, d))
	}
}
