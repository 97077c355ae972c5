package httpdest_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/redact"
	"github.com/alternayte/queuebox/pkg/secret"
)

func TestPublishSendsStandardHeadersAndBody(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{Name: "orders", BaseURL: rec.URL + "/api/", Path: "/events"})

	for attempt := range 3 {
		require.NoError(t, p.Publish(t.Context(), delivery("cust-42", attempt)))
	}
	require.NoError(t, p.Publish(t.Context(), delivery("", 3)))

	reqs := rec.Requests()
	require.Len(t, reqs, 4)
	for i, r := range reqs {
		require.Equal(t, http.MethodPost, r.Method)
		require.Equal(t, "/api/events", r.Path)
		require.Equal(t, `{"orderId":"o-1"}`, r.Body)
		require.Equal(t, []string{"application/json"}, r.Header.Values("Content-Type"))
		require.Equal(t, []string{"0190a8c4-6f0e-7b3c-9d21-5a6b7c8d9e0f"}, r.Header.Values("X-Message-Id"))
		require.Equal(t, []string{"order.created"}, r.Header.Values("X-Topic"))
		require.Equal(t, []string{strconv.Itoa(i)}, r.Header.Values("X-Attempt"))
		require.Empty(t, r.Header.Values("Authorization"))
	}
	for _, r := range reqs[:3] {
		require.Equal(t, []string{"cust-42"}, r.Header.Values("X-Message-Key"))
	}
	_, present := reqs[3].Header["X-Message-Key"]
	require.False(t, present, "a row without key sends no X-Message-Key")
}

func TestPublishHeaderPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		static map[string]string
		auth   *httpdest.Auth
		row    map[string]string
		header string
		want   []string
	}{
		{"static header", map[string]string{"X-Source": "queuebox"}, nil, nil, "X-Source", []string{"queuebox"}},
		{"row wins over static", map[string]string{"X-Team": "static"}, nil, map[string]string{"x-team": "row"}, "X-Team", []string{"row"}},
		{"auth wins over static", map[string]string{"Authorization": "static"}, basicAuth(), nil, "Authorization", []string{"Basic cXVldWVib3g6cGE1NXdvcmQ="}},
		{"row wins over basic auth", nil, basicAuth(), map[string]string{"authorization": "row"}, "Authorization", []string{"row"}},
		{"row wins over header auth", nil, headerAuth("X-Api-Key", "k-1"), map[string]string{"X-API-KEY": "row"}, "X-Api-Key", []string{"row"}},
		{"header auth default name", nil, headerAuth("", "Bearer static-token"), nil, "Authorization", []string{"Bearer static-token"}},
		{"header auth custom name", nil, headerAuth("X-Api-Key", "k-1"), nil, "X-Api-Key", []string{"k-1"}},
		{"row header travels", nil, nil, map[string]string{"x-inbox-id": "in-1"}, "X-Inbox-Id", []string{"in-1"}},
		{"row content type adds a value", nil, nil, map[string]string{"content-type": "text/plain"}, "Content-Type", []string{"application/json", "text/plain"}},
		{"row message id adds a value", nil, nil, map[string]string{"X-Message-Id": "other"}, "X-Message-Id", []string{"0190a8c4-6f0e-7b3c-9d21-5a6b7c8d9e0f", "other"}},
		{"row topic adds a value", nil, nil, map[string]string{"x-topic": "t2"}, "X-Topic", []string{"order.created", "t2"}},
		{"row attempt adds a value", nil, nil, map[string]string{"X-Attempt": "9"}, "X-Attempt", []string{"0", "9"}},
		{"row key adds a value", nil, nil, map[string]string{"X-Message-Key": "k2"}, "X-Message-Key", []string{"k", "k2"}},
		{"static content type adds a value", map[string]string{"Content-Type": "application/cloudevents+json"}, nil, nil, "Content-Type", []string{"application/json", "application/cloudevents+json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, nil)
			p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Headers: tc.static, Auth: tc.auth})
			d := delivery("k", 0)
			d.Message.Headers = tc.row
			require.NoError(t, p.Publish(t.Context(), d))
			reqs := rec.Requests()
			require.Len(t, reqs, 1)
			require.Equal(t, tc.want, reqs[0].Header.Values(tc.header))
		})
	}
}

// A second value of one standard header leaves every other standard
// header as it was: the standard headers' values share storage.
func TestPublishSecondValuesLeaveTheOtherStandardHeaders(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Headers: map[string]string{"content-type": "static"}})
	d := delivery("k", 3)
	d.Message.Headers = map[string]string{"X-Message-Id": "id2", "x-topic": "t2", "X-Attempt": "9"}
	require.NoError(t, p.Publish(t.Context(), d))
	reqs := rec.Requests()
	require.Len(t, reqs, 1)
	want := map[string][]string{
		"User-Agent":    {"QueueBox"},
		"Content-Type":  {"application/json", "static"},
		"X-Message-Id":  {"0190a8c4-6f0e-7b3c-9d21-5a6b7c8d9e0f", "id2"},
		"X-Topic":       {"order.created", "t2"},
		"X-Attempt":     {"3", "9"},
		"X-Message-Key": {"k"},
	}
	for name, values := range want {
		require.Equal(t, values, reqs[0].Header.Values(name), name)
	}
}

func basicAuth() *httpdest.Auth {
	return &httpdest.Auth{Kind: httpdest.AuthBasic, Username: "queuebox", Password: secret.New("pa55word")}
}

func headerAuth(name, value string) *httpdest.Auth {
	return &httpdest.Auth{Kind: httpdest.AuthHeader, HeaderName: name, HeaderValue: secret.New(value)}
}

func TestPublishSucceedsOnEvery2xx(t *testing.T) {
	t.Parallel()
	for _, code := range []int{200, 201, 202, 204, 299} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, brokertest.Status(code))
			c := counter()
			p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Responses: c})
			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			require.Equal(t, 1.0, classCount(c, "2xx"))
		})
	}
}

func TestPublishNeverFollowsRedirect(t *testing.T) {
	t.Parallel()
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			t.Parallel()
			target := brokertest.NewHTTPReceiver(t, nil)
			rec := brokertest.NewHTTPReceiver(t, brokertest.Static(brokertest.Answer{
				Status: code, Header: http.Header{"Location": {target.URL + "/latest/meta-data?token=abc"}},
			}))
			c := counter()
			p := newPublisher(t, httpdest.Options{Name: "partner", BaseURL: rec.URL, Responses: c, Auth: basicAuth()})

			err := p.Publish(t.Context(), delivery("", 0))
			var pubErr *httpdest.Error
			require.ErrorAs(t, err, &pubErr)
			require.Equal(t, code, pubErr.StatusCode)
			require.Contains(t, err.Error(), "http destination partner")
			require.Contains(t, err.Error(), "redirects are not followed")
			require.NotContains(t, err.Error(), "token=abc")
			require.Empty(t, target.Requests(), "the redirect target must never be called")
			require.Equal(t, 1.0, classCount(c, "3xx"))
		})
	}
}

func TestPublishFailsWithStatusAndRedactedBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		body string
	}{
		{400, `{"error":"bad request","password":"p-in-body"}`},
		{401, "Authorization: Bearer echoed-token"},
		{404, "not found: GLOBAL-SECRET-1"},
		{409, "conflict"},
		{429, ""},
		{500, "pa55word leaked by a stack trace"},
		{503, "upstream down"},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.code), func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, status(tc.code, tc.body))
			c := counter()
			p := newPublisher(t, httpdest.Options{
				Name: "billing", BaseURL: rec.URL, Responses: c, Auth: basicAuth(),
				Redactor: redact.New("GLOBAL-SECRET-1"),
			})
			err := p.Publish(t.Context(), delivery("", 0))
			var pubErr *httpdest.Error
			require.ErrorAs(t, err, &pubErr)
			require.Equal(t, tc.code, pubErr.StatusCode)
			require.False(t, pubErr.TokenRequest)
			require.Contains(t, err.Error(), http.StatusText(tc.code))
			require.Contains(t, err.Error(), "status "+strconv.Itoa(tc.code))
			for _, leak := range []string{"p-in-body", "echoed-token", "GLOBAL-SECRET-1", "pa55word", "cXVldWVib3g6cGE1NXdvcmQ"} {
				require.NotContains(t, err.Error(), leak)
			}
			require.Equal(t, 1.0, classCount(c, strconv.Itoa(tc.code/100)+"xx"))
			require.Len(t, rec.Requests(), 1, "only OAuth2 retries a 401")
		})
	}
}

func TestPublishTruncatesErrorBody(t *testing.T) {
	t.Parallel()
	const limit = 100
	const known = "supersecretvalue"
	tests := []struct {
		name string
		body string
	}{
		{"long ascii", strings.Repeat("x", 5000)},
		{"secret split by the limit", strings.Repeat("a", limit-5) + known + strings.Repeat("b", 100)},
		{"multibyte at the limit", strings.Repeat("a", limit-1) + "é" + "tail"},
		{"invalid utf-8 and nul", strings.Repeat("\xff\x00", 200)},
		{"secret value expands", strings.Repeat("s ", 200)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, status(500, tc.body))
			p := newPublisher(t, httpdest.Options{
				BaseURL: rec.URL, MaxErrorBodyBytes: limit, Redactor: redact.New(known, "s"),
			})
			err := p.Publish(t.Context(), delivery("", 0))
			var pubErr *httpdest.Error
			require.ErrorAs(t, err, &pubErr)
			require.LessOrEqual(t, len(pubErr.Body), limit)
			require.True(t, strings.HasSuffix(err.Error(), pubErr.Body))
			require.NotContains(t, pubErr.Body, "super")
			require.NotContains(t, pubErr.Body, "\x00")
			require.True(t, utf8.ValidString(pubErr.Body))
		})
	}
}

func TestPublishDefaultErrorBodyLimit(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, status(502, strings.Repeat("y", 10_000)))
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL})
	err := p.Publish(t.Context(), delivery("", 0))
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.Len(t, pubErr.Body, httpdest.DefaultMaxErrorBodyBytes)
}

func TestPublishTimeout(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	rec.Hold()
	c := counter()
	p := newPublisher(t, httpdest.Options{Name: "slow", BaseURL: rec.URL, Timeout: 50 * time.Millisecond, Responses: c})

	err := p.Publish(t.Context(), delivery("", 0))
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.True(t, pubErr.Timeout())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Zero(t, pubErr.StatusCode)
	require.Contains(t, err.Error(), "timeout 50ms")
	require.Equal(t, 1.0, classCount(c, httpdest.StatusClassOther))
}

func TestPublishCallerCancellation(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := p.Publish(ctx, delivery("", 0))
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
}

func TestPublishConnectionRefused(t *testing.T) {
	t.Parallel()
	c := counter()
	p := newPublisher(t, httpdest.Options{Name: "down", BaseURL: brokertest.UnreachableURL(t), Responses: c})
	err := p.Publish(t.Context(), delivery("", 0))
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.Zero(t, pubErr.StatusCode)
	require.False(t, pubErr.Timeout())
	require.Contains(t, err.Error(), "http destination down: no response")
	require.Contains(t, err.Error(), "refused")
	require.Equal(t, 1.0, classCount(c, httpdest.StatusClassOther))
}

func TestResponsesCounterClasses(t *testing.T) {
	t.Parallel()
	codes := map[string]int{"/ok": 200, "/accepted": 202, "/moved": 302, "/missing": 404, "/gone": 410, "/broken": 500}
	rec := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		return codes[r.Path]
	}))
	c := counter()
	for path := range codes {
		p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Path: path, Responses: c})
		_ = p.Publish(t.Context(), delivery("", 0))
	}
	down := newPublisher(t, httpdest.Options{BaseURL: brokertest.UnreachableURL(t), Responses: c})
	require.Error(t, down.Publish(t.Context(), delivery("", 0)))

	want := map[string]float64{"1xx": 0, "2xx": 2, "3xx": 1, "4xx": 2, "5xx": 1, "other": 1}
	for class, n := range want {
		require.Equal(t, n, classCount(c, class), class)
	}
}

func TestNewResponsesCounterSharesRegistration(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	a := httpdest.NewResponsesCounter(reg)
	b := httpdest.NewResponsesCounter(reg)
	require.Same(t, a, b)
	a.WithLabelValues("2xx").Inc()
	families, err := reg.Gather()
	require.NoError(t, err)
	require.Len(t, families, 1)
	require.Equal(t, httpdest.ResponsesMetric, families[0].GetName())
	require.Equal(t, "status_class", families[0].GetMetric()[0].GetLabel()[0].GetName())
	require.NotNil(t, httpdest.NewResponsesCounter(nil))
}

func TestPublishRefusesInvalidRowHeader(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL})
	for name, value := range map[string]string{"Bad Name": "v", "X-Ok": "line\r\nInjected: yes"} {
		d := delivery("", 0)
		d.Message.Headers = map[string]string{name: value}
		err := p.Publish(t.Context(), d)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "Injected")
	}
	require.Empty(t, rec.Requests())
}

func TestPublishAfterClose(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p, err := httpdest.New(httpdest.Options{BaseURL: rec.URL})
	require.NoError(t, err)
	require.NoError(t, p.Close())
	require.NoError(t, p.Close())
	require.ErrorIs(t, p.Publish(t.Context(), delivery("", 0)), httpdest.ErrClosed)
	require.Error(t, p.Publish(t.Context(), queuebox.Delivery{}))
}

func TestPublishWithCallerClientNeverFollowsRedirect(t *testing.T) {
	t.Parallel()
	target := brokertest.NewHTTPReceiver(t, nil)
	rec := brokertest.NewHTTPReceiver(t, brokertest.Static(brokertest.Answer{
		Status: http.StatusFound, Header: http.Header{"Location": {target.URL}},
	}))
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Client: &http.Client{}})
	err := p.Publish(t.Context(), delivery("", 0))
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.Equal(t, http.StatusFound, pubErr.StatusCode)
	require.Empty(t, target.Requests())
}

func TestNewValidatesOptions(t *testing.T) {
	t.Parallel()
	ok := "https://api.example.com"
	tests := []struct {
		name string
		opts httpdest.Options
		want string
	}{
		{"missing base url", httpdest.Options{}, "baseUrl"},
		{"relative base url", httpdest.Options{BaseURL: "/events"}, "absolute"},
		{"ftp base url", httpdest.Options{BaseURL: "ftp://x.example"}, "absolute"},
		{"user info", httpdest.Options{BaseURL: "https://user:hunter2@api.example.com"}, "user name"},
		{"dot path", httpdest.Options{BaseURL: ok, Path: "/a/../admin"}, `".."`},
		{"negative timeout", httpdest.Options{BaseURL: ok, Timeout: -time.Second}, "timeout"},
		{"negative body limit", httpdest.Options{BaseURL: ok, MaxErrorBodyBytes: -1}, "maxErrorBodyBytes"},
		{"bad static header name", httpdest.Options{BaseURL: ok, Headers: map[string]string{"X Bad": "v"}}, "invalid header name"},
		{"bad static header value", httpdest.Options{BaseURL: ok, Headers: map[string]string{"X-Ok": "a\nb"}}, "invalid header value"},
		{"unknown auth kind", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "digest"}}, "auth kind"},
		{"oauth2 without secret", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "oauth2", ClientID: "c", TokenURL: ok}}, "clientSecret"},
		{"oauth2 bad token url", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "oauth2", ClientID: "c", ClientSecret: secret.New("s"), TokenURL: "https://u:p@auth.example"}}, "tokenUrl"},
		{"basic without password", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "basic", Username: "u"}}, "password"},
		{"basic colon in user", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "basic", Username: "a:b", Password: secret.New("p")}}, "colon"},
		{"header without value", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "header"}}, "headerValue"},
		{"header value with newline", httpdest.Options{BaseURL: ok, Auth: &httpdest.Auth{Kind: "header", HeaderValue: secret.New("a\r\nb: c")}}, "invalid header value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := httpdest.New(tc.opts)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	p := newPublisher(t, httpdest.Options{BaseURL: "https://api.example.com/hooks"})
	require.Equal(t, "https://api.example.com/hooks/", p.Target())
}
