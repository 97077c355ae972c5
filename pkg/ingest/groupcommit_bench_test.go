package ingest_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alternayte/queuebox/pkg/ingest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

// BenchmarkGroupCommitPostgres stores b.N rows from 16 concurrent callers
// through a GroupCommit over the real inbox, for each bound on the groups
// committing at once. It shows whether a second group in flight hides
// the commit's WAL flush behind the statement of the next group.
func BenchmarkGroupCommitPostgres(b *testing.B) {
	for _, inFlight := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("inFlight=%d", inFlight), func(b *testing.B) {
			in, _ := pgtest.Inbox(b)
			g := ingest.NewGroupCommit(in, ingest.GroupCommitOptions{MaxInFlight: inFlight})
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range 16 {
				wg.Go(func() {
					for {
						n := next.Add(1)
						if n > int64(b.N) {
							return
						}
						row := queuebox.ReceivedRow{Source: "bench", IdempotencyKey: fmt.Sprintf("%s-%d", b.Name(), n),
							Payload: []byte(`{"id":1,"type":"order.created","amount":42}`)}
						if _, _, err := g.Insert(context.Background(), row); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
