package httpdest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/secret"
)

// clientSecret has characters that form encoding changes, so a test also
// catches an echo of the encoded form.
const clientSecret = "cl!ent/s3cret+&="

// tokenServer issues tok-1, tok-2, ... and records each token request.
type tokenServer struct {
	calls atomic.Int32
	mu    sync.Mutex
	forms []url.Values
	// expiresIn is written as the expires_in member when not nil.
	expiresIn any
	// before runs first in each request; it may write a response and
	// return true to stop there.
	before func(w http.ResponseWriter, r *http.Request, body string) bool
	srv    *httptest.Server
}

func newTokenServer(t *testing.T, expiresIn any) *tokenServer {
	t.Helper()
	ts := &tokenServer{expiresIn: expiresIn}
	ts.srv = httptest.NewServer(http.HandlerFunc(ts.serve))
	t.Cleanup(ts.srv.Close)
	return ts
}

func (ts *tokenServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(raw))
	form.Set("_content_type", r.Header.Get("Content-Type"))
	form.Set("_authorization", r.Header.Get("Authorization"))
	n := ts.calls.Add(1)
	ts.mu.Lock()
	ts.forms = append(ts.forms, form)
	ts.mu.Unlock()
	if ts.before != nil && ts.before(w, r, string(raw)) {
		return
	}
	resp := map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "Bearer"}
	if ts.expiresIn != nil {
		resp["expires_in"] = ts.expiresIn
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// form returns the i-th token request form.
func (ts *tokenServer) form(i int) url.Values {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.forms[i]
}

func oauth2Auth(tokenURL string) *httpdest.Auth {
	return &httpdest.Auth{
		Kind: httpdest.AuthOAuth2, ClientID: "queuebox", ClientSecret: secret.New(clientSecret),
		TokenURL: tokenURL + "/oauth/token", Scope: "api:write",
		ExtraParams: map[string]string{"audience": "https://api.example.com", "grant_type": "password"},
	}
}

// bearers returns the Authorization header of each recorded request.
func bearers(rec *brokertest.HTTPReceiver) []string {
	var out []string
	for _, r := range rec.Requests() {
		out = append(out, r.Header.Get("Authorization"))
	}
	return out
}

func TestOAuth2TokenRequest(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL)})

	require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
	require.Equal(t, []string{"Bearer tok-1"}, bearers(rec))
	require.EqualValues(t, 1, ts.calls.Load())
	form := ts.form(0)
	require.Equal(t, "application/x-www-form-urlencoded", form.Get("_content_type"))
	require.Empty(t, form.Get("_authorization"), "the client secret travels in the body only")
	require.Equal(t, "client_credentials", form.Get("grant_type"), "an extra parameter cannot replace the grant")
	require.Equal(t, "queuebox", form.Get("client_id"))
	require.Equal(t, clientSecret, form.Get("client_secret"))
	require.Equal(t, "api:write", form.Get("scope"))
	require.Equal(t, "https://api.example.com", form.Get("audience"))
}

func TestOAuth2TokenWithoutScope(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, nil)
	rec := brokertest.NewHTTPReceiver(t, nil)
	auth := oauth2Auth(ts.srv.URL)
	auth.Scope, auth.ExtraParams = "", nil
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: auth})
	require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
	_, hasScope := ts.form(0)["scope"]
	require.False(t, hasScope)
}

func TestOAuth2TokenCachedAcrossPublishes(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL)})
	for i := range 20 {
		require.NoError(t, p.Publish(t.Context(), delivery("", i)))
	}
	require.EqualValues(t, 1, ts.calls.Load())
	for _, b := range bearers(rec) {
		require.Equal(t, "Bearer tok-1", b)
	}
}

func TestOAuth2TokenRefreshedBeforeExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		expiresIn any
		cached    time.Duration // still served at this age
		refreshed time.Duration // replaced at this age
	}{
		{"one hour", 3600, 59 * time.Minute, time.Hour},
		{"margin is 30 s at most", 3600, 59*time.Minute + 29*time.Second, 59*time.Minute + 30*time.Second},
		{"short token uses a tenth", 60, 53 * time.Second, 54 * time.Second},
		{"expires_in as string", "120", 100 * time.Second, 120 * time.Second},
		{"no expires_in", nil, 4 * time.Minute, 5 * time.Minute},
		{"zero expires_in", 0, 4 * time.Minute, 5 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTokenServer(t, tc.expiresIn)
			rec := brokertest.NewHTTPReceiver(t, nil)
			clk := newClock()
			p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL), Now: clk.Now})

			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			clk.Advance(tc.cached)
			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			require.EqualValues(t, 1, ts.calls.Load())
			clk.Advance(tc.refreshed - tc.cached)
			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			require.EqualValues(t, 2, ts.calls.Load())
			require.Equal(t, []string{"Bearer tok-1", "Bearer tok-1", "Bearer tok-2"}, bearers(rec))
		})
	}
}

func TestOAuth2RefreshOn401RetriesOnce(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	rec := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		if r.Header.Get("Authorization") != "Bearer tok-2" {
			return http.StatusUnauthorized
		}
		return http.StatusOK
	}))
	c := counter()
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL), Responses: c})

	d := delivery("k", 3)
	d.Message.Headers = map[string]string{"x-tenant": "acme"}
	require.NoError(t, p.Publish(t.Context(), d))
	require.EqualValues(t, 2, ts.calls.Load())
	reqs := rec.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"Bearer tok-1", "Bearer tok-2"}, bearers(rec))
	require.Equal(t, reqs[0].Body, reqs[1].Body, "the retry sends the same body")
	for _, r := range reqs {
		require.Equal(t, []string{"acme"}, r.Header.Values("X-Tenant"), "each request carries the row headers")
	}
	require.Equal(t, "3", reqs[1].Header.Get("X-Attempt"), "the retry is part of the same attempt")
	require.Equal(t, 1.0, classCount(c, "4xx"))
	require.Equal(t, 1.0, classCount(c, "2xx"))

	// The new token is cached.
	require.NoError(t, p.Publish(t.Context(), delivery("k", 0)))
	require.EqualValues(t, 2, ts.calls.Load())
}

func TestOAuth2Persistent401FailsAfterOneRetry(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	rec := brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
		return brokertest.Answer{Status: http.StatusUnauthorized, Body: "invalid token " + r.Header.Get("Authorization")}
	})
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL)})

	err := p.Publish(t.Context(), delivery("", 0))
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.Equal(t, http.StatusUnauthorized, pubErr.StatusCode)
	require.Len(t, rec.Requests(), 2)
	require.EqualValues(t, 2, ts.calls.Load())
	require.NotContains(t, err.Error(), "tok-2")
	require.NotContains(t, err.Error(), "tok-")
}

func TestOAuth2TokenNeverInErrorText(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	rec := brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		return brokertest.Answer{Status: http.StatusInternalServerError,
			Body: fmt.Sprintf("failed for %s (raw %s)", tok, r.Header.Get("Authorization"))}
	})
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL)})
	err := p.Publish(t.Context(), delivery("", 0))
	require.ErrorContains(t, err, "status 500")
	require.NotContains(t, err.Error(), "tok-1")
}

func TestOAuth2TokenEndpointFailure(t *testing.T) {
	t.Parallel()
	encoded := url.QueryEscape(clientSecret)
	tests := []struct {
		name   string
		before func(w http.ResponseWriter, r *http.Request, body string) bool
		want   string
	}{
		{"401 echoing the secret", func(w http.ResponseWriter, _ *http.Request, body string) bool {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprintf(w, `{"error":"invalid_client","client_secret":"%s","raw":"%s","echo":"%s"}`, "other-"+clientSecret, clientSecret, body)
			return true
		}, "status 401"},
		{"500 with encoded secret", func(w http.ResponseWriter, _ *http.Request, body string) bool {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "bad request "+body+" secret "+encoded)
			return true
		}, "status 500"},
		{"redirect", func(w http.ResponseWriter, r *http.Request, _ string) bool {
			http.Redirect(w, r, "http://169.254.169.254/?client_secret="+encoded, http.StatusTemporaryRedirect)
			return true
		}, "status 307"},
		{"no access token", func(w http.ResponseWriter, _ *http.Request, _ string) bool {
			_, _ = io.WriteString(w, `{"token_type":"Bearer","client_secret":"`+clientSecret+`"}`)
			return true
		}, "invalid token response"},
		{"not json", func(w http.ResponseWriter, _ *http.Request, body string) bool {
			_, _ = io.WriteString(w, "<html>"+body+"</html>")
			return true
		}, "invalid token response"},
		// golang.org/x/oauth2 reads expires_in as a whole number of seconds.
		{"fractional expires_in", func(w http.ResponseWriter, _ *http.Request, _ string) bool {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"tok-`+clientSecret+`","expires_in":60.5}`)
			return true
		}, "invalid token response"},
		{"error member in a 200", func(w http.ResponseWriter, _ *http.Request, body string) bool {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"x","error":"invalid_scope","error_description":"`+body+`"}`)
			return true
		}, "invalid token response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTokenServer(t, 3600)
			ts.before = tc.before
			rec := brokertest.NewHTTPReceiver(t, nil)
			c := counter()
			p := newPublisher(t, httpdest.Options{Name: "api", BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL), Responses: c})

			err := p.Publish(t.Context(), delivery("", 0))
			var pubErr *httpdest.Error
			require.ErrorAs(t, err, &pubErr)
			require.True(t, pubErr.TokenRequest)
			require.Contains(t, err.Error(), "http destination api: oauth2 token request")
			require.Contains(t, err.Error(), tc.want)
			for _, leak := range []string{clientSecret, encoded, "cl!ent", "s3cret"} {
				require.NotContains(t, err.Error(), leak)
			}
			require.Empty(t, rec.Requests(), "no publish without a token")
			require.Zero(t, classCount(c, httpdest.StatusClassOther))
			require.EqualValues(t, 1, ts.calls.Load(), "a redirect of the token endpoint is not followed")
		})
	}
}

func TestOAuth2TokenEndpointDown(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(brokertest.UnreachableURL(t))})
	err := p.Publish(t.Context(), delivery("", 0))
	var pubErr *httpdest.Error
	require.ErrorAs(t, err, &pubErr)
	require.True(t, pubErr.TokenRequest)
	require.Contains(t, err.Error(), "no response")
	require.Empty(t, rec.Requests())
}

func TestOAuth2FailedFetchIsNotCached(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	ts.before = func(w http.ResponseWriter, _ *http.Request, _ string) bool {
		if ts.calls.Load() == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL)})
	require.Error(t, p.Publish(t.Context(), delivery("", 0)))
	require.NoError(t, p.Publish(t.Context(), delivery("", 1)))
	require.Equal(t, []string{"Bearer tok-2"}, bearers(rec))
}

func TestOAuth2ConcurrentPublishesShareOneFetch(t *testing.T) {
	t.Parallel()
	const workers = 16
	ts := newTokenServer(t, 3600)
	entered := make(chan struct{})
	release := make(chan struct{})
	testCtx := t.Context()
	ts.before = func(http.ResponseWriter, *http.Request, string) bool {
		close(entered) // a second token request would panic here
		select {
		case <-release:
		case <-testCtx.Done():
		}
		return false
	}
	rec := brokertest.NewHTTPReceiver(t, nil)
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL)})

	var started, done sync.WaitGroup
	errs := make(chan error, workers)
	for i := range workers {
		started.Add(1)
		done.Go(func() {
			started.Done()
			errs <- p.Publish(t.Context(), delivery("", i))
		})
	}
	started.Wait()
	<-entered
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.EqualValues(t, 1, ts.calls.Load())
	require.Len(t, rec.Requests(), workers)
	for _, b := range bearers(rec) {
		require.Equal(t, "Bearer tok-1", b)
	}
}

func TestStaticAuthDoesNotRetry401(t *testing.T) {
	t.Parallel()
	for _, auth := range []*httpdest.Auth{basicAuth(), headerAuth("X-Api-Key", "key-123")} {
		t.Run(auth.Kind, func(t *testing.T) {
			t.Parallel()
			rec := brokertest.NewHTTPReceiver(t, func(r brokertest.HTTPRequest) brokertest.Answer {
				return brokertest.Answer{Status: http.StatusUnauthorized,
					Body: "got " + r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key")}
			})
			p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: auth})
			err := p.Publish(t.Context(), delivery("", 0))
			require.ErrorContains(t, err, "status 401")
			require.NotContains(t, err.Error(), "key-123")
			require.NotContains(t, err.Error(), "cXVldWVib3g6cGE1NXdvcmQ")
			require.Len(t, rec.Requests(), 1)
		})
	}
}

func TestBasicAuthHeader(t *testing.T) {
	t.Parallel()
	rec := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "queuebox" || pass != "pa55word" {
			return http.StatusForbidden
		}
		return http.StatusOK
	}))
	p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: basicAuth()})
	require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
}

func TestOAuth2TokenResponseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		contentType string
		body        string
		cachedAt    time.Duration
		refreshAt   time.Duration
	}{
		{"form encoded", "application/x-www-form-urlencoded", "access_token=ftok&expires_in=60", 50 * time.Second, 54 * time.Second},
		{"string expires_in", "application/json", `{"access_token":"ftok","expires_in":"60"}`, 50 * time.Second, 54 * time.Second},
		{"null expires_in", "application/json", `{"access_token":"ftok","expires_in":null}`, 4 * time.Minute, 5 * time.Minute},
		{"huge expires_in is capped", "application/json", `{"access_token":"ftok","expires_in":99999999999}`, 23 * time.Hour, 24 * time.Hour},
		{"json without content type", "", `{"access_token":"ftok"}`, 4 * time.Minute, 5 * time.Minute},
		{"json as text/plain", "text/plain; charset=utf-8", `{"access_token":"ftok","expires_in":60}`, 50 * time.Second, 54 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTokenServer(t, nil)
			ts.before = func(w http.ResponseWriter, _ *http.Request, _ string) bool {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				_, _ = io.WriteString(w, tc.body)
				return true
			}
			rec := brokertest.NewHTTPReceiver(t, nil)
			clk := newClock()
			p := newPublisher(t, httpdest.Options{BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL), Now: clk.Now})
			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			clk.Advance(tc.cachedAt)
			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			require.EqualValues(t, 1, ts.calls.Load())
			clk.Advance(tc.refreshAt - tc.cachedAt)
			require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
			require.EqualValues(t, 2, ts.calls.Load())
			require.Equal(t, "Bearer ftok", bearers(rec)[0])
		})
	}
}

func TestOAuth2RetryLogsWithoutSecrets(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts := newTokenServer(t, 3600)
	rec := brokertest.NewHTTPReceiver(t, brokertest.StatusBy(func(r brokertest.HTTPRequest) int {
		if r.Header.Get("Authorization") == "Bearer tok-1" {
			return http.StatusUnauthorized
		}
		return http.StatusOK
	}))
	p := newPublisher(t, httpdest.Options{Name: "api", BaseURL: rec.URL, Auth: oauth2Auth(ts.srv.URL), Logger: logger})
	require.NoError(t, p.Publish(t.Context(), delivery("", 0)))
	out := buf.String()
	require.Contains(t, out, "level=DEBUG")
	require.Contains(t, out, "destination=api")
	require.NotContains(t, out, "level=INFO")
	for _, leak := range []string{"tok-1", "tok-2", clientSecret, url.QueryEscape(clientSecret)} {
		require.NotContains(t, out, leak)
	}
}

// syncBuffer is a bytes.Buffer that a logger and the test can share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
