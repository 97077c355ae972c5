package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func (f *fakeWorkbench) Overview(context.Context) (queuebox.Overview, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.overview, nil
}

// With 20,000 dead topics the store gives the top 50 and the rest summed:
// the answer stays small and says how many topics and rows it left out.
func TestOverviewCountsTheOtherTopics(t *testing.T) {
	t.Parallel()
	o := queuebox.Overview{DeadByTopic: map[string]int64{}, OldestPendingByTopic: map[string]time.Duration{},
		DeadByTopicOther:          queuebox.OverviewOther{Names: 19_950, Rows: 19_950},
		OldestPendingByTopicOther: queuebox.OverviewOther{Names: 70, Rows: 140, OldestPending: 1500 * time.Millisecond}}
	for i := range queuebox.OverviewTop {
		o.DeadByTopic[fmt.Sprintf("junk.%05d", i)] = 2
		o.OldestPendingByTopic[fmt.Sprintf("billing.%05d", i)] = time.Hour
	}
	e, _ := workbench(t, &fakeWorkbench{overview: o})
	code, body := call(e, http.MethodGet, "/admin/overview", "Bearer s3cret", "")
	require.Equal(t, http.StatusOK, code, body)
	require.Less(t, len(body), 8<<10, "the answer is bounded")
	var got struct {
		OldestPending struct {
			Destinations map[string]float64
			OtherTopics  map[string]float64
		}
		DeadByTopic      map[string]int64
		DeadByTopicOther map[string]int64
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got.DeadByTopic, queuebox.OverviewTop)
	require.Equal(t, map[string]int64{"topics": 19_950, "rows": 19_950}, got.DeadByTopicOther)
	require.Equal(t, map[string]float64{"billing": 3600}, got.OldestPending.Destinations)
	require.Equal(t, map[string]float64{"topics": 70, "rows": 140, "oldest": 1.5}, got.OldestPending.OtherTopics)
}
