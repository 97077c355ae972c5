package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// groupAnswer is what one request of TestIngestGroupCommitAnswersEachRequest
// got.
type groupAnswer struct {
	key, body string
	code      int
	err       error
}

func postQuietly(url, body string) groupAnswer {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return groupAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return groupAnswer{code: resp.StatusCode, body: string(b), err: err}
}

// Many clients post at once, each key from several of them, and a few
// bodies that the database refuses: the requests share group commits,
// and still each key is stored once, exactly one request of a key hears
// 202 with the id of the stored row, every other hears 200 duplicate,
// and a refused body gets its 400 without failing the requests that
// shared its group.
func TestIngestGroupCommitAnswersEachRequest(t *testing.T) {
	t.Parallel()
	const clients, perClient, keys = 16, 30, 120
	db := newDatabase(t)
	ingest := startServing(t, "ingest", pullSourceEnv(db.env()))
	url := ingest.url("/inbox/orders")

	answers := make(chan groupAnswer, clients*perClient)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range perClient {
				key := fmt.Sprintf("order-%d", (c*7+i*5)%keys)
				body := fmt.Sprintf(`{"id":%q,"client":%d}`, key, c)
				if i%10 == 9 {
					key = fmt.Sprintf("refused-%d-%d", c, i)
					body = fmt.Sprintf(`{"id":%q,"n":1e999999}`, key)
				}
				a := postQuietly(url, body)
				a.key = key
				answers <- a
			}
		})
	}
	wg.Wait()
	close(answers)

	stored := map[string]string{} // key -> id told with 202
	told := map[string]int{}
	for a := range answers {
		require.NoError(t, a.err)
		told[a.key]++
		switch {
		case strings.HasPrefix(a.key, "refused-"):
			require.Equal(t, http.StatusBadRequest, a.code, a.body)
		case a.code == http.StatusAccepted:
			var got struct{ MessageID string }
			require.NoError(t, json.Unmarshal([]byte(a.body), &got))
			require.NotContains(t, stored, a.key, "a second 202 for %s", a.key)
			stored[a.key] = got.MessageID
		default:
			require.Equal(t, http.StatusOK, a.code, a.body)
			require.JSONEq(t, `{"status":"duplicate"}`, a.body)
		}
	}
	rows, err := db.connect(t).Query(context.Background(), `SELECT idempotency_key, id::text FROM inbox`)
	require.NoError(t, err)
	inTable := map[string]string{}
	for rows.Next() {
		var k, id string
		require.NoError(t, rows.Scan(&k, &id))
		inTable[k] = id
	}
	require.NoError(t, rows.Err())
	require.Equal(t, stored, inTable, "one row per key, under the id its 202 named")
	for k := range told {
		if !strings.HasPrefix(k, "refused-") {
			require.Contains(t, stored, k)
		}
	}
}
