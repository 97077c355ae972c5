package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// webhookResult is the answer to one first send of a webhook.
type webhookResult struct {
	key  string
	code int
	body string
}

// senders post webhooks with fresh idempotency keys from several
// goroutines until stopped, and keep every answer.
type senders struct {
	url     string
	mu      sync.Mutex
	results []webhookResult
	stop    chan struct{}
	wg      sync.WaitGroup
}

func startSenders(t *testing.T, url string, n int) *senders {
	s := &senders{url: url, stop: make(chan struct{})}
	for g := range n {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-s.stop:
					return
				default:
				}
				key := fmt.Sprintf("evt-%d-%d", g, i)
				code, body, err := sendWebhook(url, key)
				if err != nil {
					t.Errorf("send %s: %v", key, err)
					return
				}
				s.mu.Lock()
				s.results = append(s.results, webhookResult{key: key, code: code, body: body})
				s.mu.Unlock()
			}
		}()
	}
	t.Cleanup(s.halt)
	return s
}

func (s *senders) halt() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.wg.Wait()
}

func (s *senders) snapshot() []webhookResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]webhookResult(nil), s.results...)
}

func (s *senders) count(code int) int {
	n := 0
	for _, r := range s.snapshot() {
		if r.code == code {
			n++
		}
	}
	return n
}

var webhookClient = http.Client{Timeout: 60 * time.Second}

func sendWebhook(url, key string) (int, string, error) {
	body := fmt.Sprintf(`{"id":%q,"type":"order.created"}`, key)
	resp, err := webhookClient.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String(), nil
}

// TestIngestAnswersHonestlyThroughADatabaseOutage posts webhooks to
// queuebox-ingest while its database refuses connections and then has
// its sessions terminated again and again. Every answer is a 202 for a
// stored row or the documented 500 Storage failed; a sender that repeats
// a 500 later succeeds; no key is stored twice; readiness reports the
// database down during the block and healthy after.
func TestIngestAnswersHonestlyThroughADatabaseOutage(t *testing.T) {
	t.Parallel()
	db, ingest, send := ingestUnderLoad(t)
	require.Eventually(t, func() bool { return send.count(http.StatusAccepted) >= 20 }, 30*time.Second, 10*time.Millisecond)

	cut := newOutage(t, db)
	cut.block()
	before := send.count(http.StatusInternalServerError)
	require.Eventually(t, func() bool { return send.count(http.StatusInternalServerError) > before },
		30*time.Second, 10*time.Millisecond, "a request during the block gets 500")
	waitDown(t, ingest, "database")
	time.Sleep(time.Second) // the length of the outage
	cut.unblock()
	stop := cut.storm(50 * time.Millisecond)
	time.Sleep(1500 * time.Millisecond) // the length of the termination storm
	stop()
	waitHealthy(t, ingest)
	accepted := send.count(http.StatusAccepted)
	require.Eventually(t, func() bool { return send.count(http.StatusAccepted) > accepted },
		30*time.Second, 10*time.Millisecond, "stores again without a restart")
	send.halt()

	stored := requireHonestAnswers(t, ingest, send.snapshot())
	requireStoredOnce(t, db, stored)
	_, scrape := get(t, ingest.url("/metrics"))
	require.GreaterOrEqual(t, sample(t, scrape, `queuebox_inbox_rejections_total{reason="storage_failed"}`), 1.0)
	requireRunning(t, ingest)
	requireLogged(t, ingest, "inbox write failed")
}

// requireHonestAnswers checks each first answer and repeats every 500
// until the row is stored. It returns the row id of each key: from the
// 202 answer, or "" when only a repeat reported a duplicate.
func requireHonestAnswers(t *testing.T, ingest *process, results []webhookResult) map[string]string {
	t.Helper()
	stored := map[string]string{}
	for _, r := range results {
		switch r.code {
		case http.StatusAccepted:
			var got struct{ MessageID string }
			require.NoError(t, json.Unmarshal([]byte(r.body), &got), r.body)
			require.NotEmpty(t, got.MessageID, r.body)
			stored[r.key] = got.MessageID
		case http.StatusInternalServerError:
			require.JSONEq(t, `{"error":"Storage failed"}`, r.body)
			stored[r.key] = resend(t, ingest, r.key)
		default:
			t.Fatalf("key %s: answer %d %s is neither 202 nor the documented 500", r.key, r.code, r.body)
		}
	}
	return stored
}

// resend repeats a webhook as a sender would after a 500, until it is
// stored (202) or found stored already (200 duplicate: the failed write
// had committed after all).
func resend(t *testing.T, ingest *process, key string) string {
	t.Helper()
	var id string
	require.Eventually(t, func() bool {
		code, body, err := sendWebhook(ingest.url("/inbox/hooks"), key)
		require.NoError(t, err)
		switch code {
		case http.StatusAccepted:
			var got struct{ MessageID string }
			require.NoError(t, json.Unmarshal([]byte(body), &got), body)
			id = got.MessageID
			return true
		case http.StatusOK:
			require.JSONEq(t, `{"status":"duplicate"}`, body)
			return true
		case http.StatusInternalServerError:
			return false
		}
		t.Fatalf("repeat of %s: answer %d %s", key, code, body)
		return false
	}, 30*time.Second, 50*time.Millisecond, "the repeat of %s is stored", key)
	return id
}

// requireStoredOnce checks that the inbox holds exactly one row per key,
// under the id its 202 answer named.
func requireStoredOnce(t *testing.T, db database, stored map[string]string) {
	t.Helper()
	rows, err := db.connect(t).Query(context.Background(),
		`SELECT idempotency_key, id::text FROM inbox WHERE source = 'hooks'`)
	require.NoError(t, err)
	inbox := map[string]string{}
	for rows.Next() {
		var key, id string
		require.NoError(t, rows.Scan(&key, &id))
		inbox[key] = id
	}
	require.NoError(t, rows.Err())
	require.Len(t, inbox, len(stored), "one row per key, and no row for a key never sent")
	for key, id := range stored {
		got, ok := inbox[key]
		require.True(t, ok, "key %s was answered but is not stored", key)
		if id != "" {
			require.Equal(t, id, got, "key %s: the 202 named another row", key)
		}
	}
}

// TestIngestStoresThroughAOneOffTermination ends every session of the
// database once while webhooks arrive, as a failover or a restart does:
// the database answers again at once, so no sender gets a 500 for a
// pooled connection that died while idle, and every key is stored once.
func TestIngestStoresThroughAOneOffTermination(t *testing.T) {
	t.Parallel()
	db, ingest, send := ingestUnderLoad(t)
	require.Eventually(t, func() bool { return send.count(http.StatusAccepted) >= 100 }, 30*time.Second, 10*time.Millisecond)

	require.Positive(t, newOutage(t, db).terminate())
	accepted := send.count(http.StatusAccepted)
	require.Eventually(t, func() bool { return send.count(http.StatusAccepted) >= accepted+100 },
		30*time.Second, 10*time.Millisecond)
	send.halt()

	results := send.snapshot()
	for _, r := range results {
		require.Equal(t, http.StatusAccepted, r.code, "key %s: %s", r.key, r.body)
	}
	requireStoredOnce(t, db, requireHonestAnswers(t, ingest, results))
	require.Equal(t, http.StatusOK, ready(t, ingest).code)
}

// ingestUnderLoad starts queuebox-ingest with one HTTP source on a fresh
// database and four senders posting to it.
func ingestUnderLoad(t *testing.T) (database, *process, *senders) {
	t.Helper()
	db := newDatabase(t)
	env := with(db.env(),
		"QUEUEBOX_SOURCES_HOOKS_TYPE", "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH", "/hooks",
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH", "$.id",
		"QUEUEBOX_SOURCES_HOOKS_EVENTTYPEPATH", "$.type")
	ingest := startServing(t, "ingest", env)
	send := startSenders(t, ingest.url("/inbox/hooks"), 4)
	return db, ingest, send
}
