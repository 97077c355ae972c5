package flow

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

type refusal struct{ row bool }

func (refusal) Error() string      { return "refused" }
func (r refusal) RowRefused() bool { return r.row }

type pausing struct{ d time.Duration }

func (pausing) Error() string                           { return "slow down" }
func (p pausing) Pause(time.Time) (time.Duration, bool) { return p.d, p.d > 0 }

func TestClassify(t *testing.T) {
	t.Parallel()
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want Result
	}{
		{"success", live, nil, Result{}},
		{"cancelled at shutdown", ended, errors.New("cancelled"), Result{Skipped: true}},
		{"undeliverable row", live, queuebox.Undeliverable("bad header"), Result{Skipped: true}},
		{"an outage", live, errors.New("connection refused"), Result{Failed: true, Reason: "r"}},
		{"a row refusal", live, refusal{row: true}, Result{Reason: "r"}},
		{"a pause request", live, pausing{d: 3 * time.Second}, Result{Failed: true, Pause: 3 * time.Second, Reason: "r"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Classify(c.ctx, c.err, "r", time.Now()), c.name)
	}
}
