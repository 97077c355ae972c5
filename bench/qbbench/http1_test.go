package main

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

func TestAppendBodyMatchesFormat(t *testing.T) {
	for _, key := range []int64{0, 7, 999, 1000, 123456789} {
		want := fmt.Sprintf(`{"id":"%s%d","type":"bench.created","customer":"cust-%d","amount":42}`, "r1-http-true-", key, key%1000)
		if got := string(body("r1-http-true-", key)); got != want {
			t.Errorf("body(%d) = %s, want %s", key, got, want)
		}
	}
}

func newTestReceiver(t *testing.T) *receiver {
	t.Helper()
	rc, err := newReceiver(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.close)
	return rc
}

// The lean receiver must serve Go's client, which queuebox-deliver uses:
// keep-alive, chunked bodies, Connection: close and Expect: 100-continue.
func TestLeanReceiverServesNetHTTPClient(t *testing.T) {
	rc := newTestReceiver(t)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
	defer client.CloseIdleConnections()
	var reused int
	send := func(body io.Reader, edit func(*http.Request)) {
		t.Helper()
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
			if i.Reused {
				reused++
			}
		}}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
			http.MethodPost, rc.URL+"/webhook", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Message-Id", "m-1")
		if edit != nil {
			edit(req)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(b) != 0 {
			t.Fatalf("answer %d %q", resp.StatusCode, b)
		}
	}
	for range 3 {
		send(strings.NewReader(`{"n":1}`), nil)
	}
	// No length known: Go sends the body chunked.
	send(io.MultiReader(strings.NewReader(strings.Repeat("x", 40000)), strings.NewReader("y")), nil)
	send(iotest.OneByteReader(strings.NewReader("chunk by chunk")), nil)
	send(strings.NewReader(`{"n":2}`), func(r *http.Request) { r.Header.Set("Expect", "100-continue") })
	send(strings.NewReader(`{"n":3}`), func(r *http.Request) { r.Close = true })
	send(strings.NewReader(`{"n":4}`), nil) // a new connection after the close
	if got := rc.count.Load(); got != 8 {
		t.Errorf("count %d, want 8", got)
	}
	if reused != 6 {
		t.Errorf("%d requests reused a connection, want 6 (all but the first and the one after the close)", reused)
	}
	if !rc.started() {
		t.Error("not started")
	}
}

// An HTTP/1.0 request without keep-alive gets its answer and the close.
func TestLeanReceiverHTTP10(t *testing.T) {
	rc := newTestReceiver(t)
	c, err := net.Dial("tcp", strings.TrimPrefix(rc.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "POST /webhook HTTP/1.0\r\ncontent-length: 5\r\n\r\nhello")
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(all), "HTTP/1.1 200 OK\r\n") || !strings.Contains(string(all), "Connection: close") {
		t.Errorf("answer %q", all)
	}
	if rc.count.Load() != 1 {
		t.Errorf("count %d", rc.count.Load())
	}
}

// recorded is what a test server saw of one request.
type recorded struct {
	host   string
	header http.Header
	body   string
}

// The lean client sends what the net/http client sends (same host, header
// set and body), so queuebox-ingest stores the same rows, and reads the
// answers of Go's server: Content-Length, chunked, Connection: close.
func TestLeanPosterMatchesStdPoster(t *testing.T) {
	var mu sync.Mutex
	var seen []recorded
	status := http.StatusAccepted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, recorded{r.Host, r.Header.Clone(), string(b)})
		st := status
		mu.Unlock()
		switch r.URL.Query().Get("mode") {
		case "chunked":
			w.WriteHeader(st)
			fmt.Fprint(w, `{"messageId":`)
			w.(http.Flusher).Flush()
			fmt.Fprint(w, `"x"}`)
		case "close":
			w.Header().Set("Connection", "close")
			w.WriteHeader(st)
		default:
			w.WriteHeader(st)
			fmt.Fprint(w, `{"messageId":"id"}`)
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	for _, sign := range []bool{false, true} {
		seen = nil
		std, lean := newStdPoster(addr, 1), newLeanPoster(addr, 1)
		for _, p := range []poster{std, lean} {
			if err := p.post(ctx, 0, "/inbox/bench", "k-", 42, sign); err != nil {
				t.Fatal(err)
			}
		}
		std.close()
		lean.close()
		if len(seen) != 2 {
			t.Fatalf("%d requests", len(seen))
		}
		a, b := seen[0], seen[1]
		if a.host != b.host || a.body != b.body || fmt.Sprint(a.header) != fmt.Sprint(b.header) {
			t.Errorf("sign=%v: net/http sent %+v, lean sent %+v", sign, a, b)
		}
		if sign {
			mac := hmac.New(sha256.New, []byte(hmacSecret))
			mac.Write([]byte(b.body))
			if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); b.header.Get("X-Signature") != want {
				t.Errorf("X-Signature %q, want %q", b.header.Get("X-Signature"), want)
			}
		}
	}

	lean := newLeanPoster(addr, 2)
	defer lean.close()
	for i, path := range []string{"/inbox/bench", "/inbox/bench?mode=chunked", "/inbox/bench?mode=close", "/inbox/bench"} {
		if err := lean.post(ctx, i%2, path, "k-", int64(i), false); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	mu.Lock()
	status = http.StatusOK // a duplicate
	mu.Unlock()
	if err := lean.post(ctx, 0, "/inbox/bench", "k-", 1, false); err != nil {
		t.Fatalf("200: %v", err)
	}
	mu.Lock()
	status = http.StatusUnauthorized
	mu.Unlock()
	err := lean.post(ctx, 0, "/inbox/signed", "k-", 1, false)
	if err == nil || !strings.Contains(err.Error(), `401 {"messageId":"id"}`) {
		t.Fatalf("401: %v", err)
	}
}

// A server that closes an idle kept-alive connection: the next request
// goes out again on a new connection.
func TestLeanPosterRetriesStaleConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	lean := newLeanPoster(strings.TrimPrefix(srv.URL, "http://"), 1)
	defer lean.close()
	ctx := context.Background()
	if err := lean.post(ctx, 0, "/a", "k-", 1, false); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections()
	if err := lean.post(ctx, 0, "/a", "k-", 2, true); err != nil {
		t.Fatalf("after the server closed the idle connection: %v", err)
	}
}

// A round trip of the lean client to the lean receiver allocates nothing
// on either side.
func TestLeanRoundTripDoesNotAllocate(t *testing.T) {
	rc := newTestReceiver(t)
	lean := newLeanPoster(strings.TrimPrefix(rc.URL, "http://"), 1)
	defer lean.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := int64(0)
	post := func() {
		key++
		if err := lean.post(ctx, 0, "/webhook", "r1-http-true-", key, true); err != nil {
			t.Fatal(err)
		}
	}
	post() // dial, buffers
	if n := testing.AllocsPerRun(200, post); n > 0 {
		t.Errorf("%.1f allocations per round trip, want 0", n)
	}
}

func TestChunkedBodyFraming(t *testing.T) {
	in := "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 99\r\n\r\n" +
		"5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n" +
		"GET /next HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 48) // smaller than the body: chunks span refills
	h, err := readHead(br, false)
	if err != nil || !h.chunked || h.close {
		t.Fatalf("head %+v, %v", h, err)
	}
	kept, err := skipBody(br, &h, make([]byte, 0, 64))
	if err != nil || string(kept) != "hello0123456789" {
		t.Fatalf("body %q, %v", kept, err)
	}
	h, err = readHead(br, false)
	if err != nil || !h.close || h.contentLength != -1 {
		t.Fatalf("second head %+v, %v", h, err)
	}
	if _, err := skipBody(br, &h, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := readHead(br, false); err != io.EOF {
		t.Fatalf("after the last message: %v, want EOF", err)
	}
}

func TestMalformedHeads(t *testing.T) {
	for _, in := range []string{
		"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
		"POST / HTTP/1.1\r\n folded\r\n\r\n",
		"POST / SPDY/3\r\n\r\n",
		"POST / HTTP/1.1\r\nX-Long: " + strings.Repeat("x", 100) + "\r\n\r\n",
	} {
		br := bufio.NewReaderSize(strings.NewReader(in), 64)
		if _, err := readHead(br, false); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
