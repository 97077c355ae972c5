package flow

import (
	"context"
	"errors"
	"fmt"
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

type unsent struct {
	pausing
	sent bool
}

func (u unsent) Unsent() bool { return !u.sent }

func TestUnsent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		err   error
		pause time.Duration
		ok    bool
	}{
		{"blocked with a pause", unsent{pausing: pausing{d: 5 * time.Second}}, 5 * time.Second, true},
		{"blocked without a pause", unsent{}, DefaultRetryIn, true},
		{"wrapped", fmt.Errorf("publish: %w", unsent{pausing: pausing{d: time.Second}}), time.Second, true},
		{"sent after all", unsent{pausing: pausing{d: time.Second}, sent: true}, 0, false},
		{"a plain pause request", pausing{d: 3 * time.Second}, 0, false},
		{"an outage", errors.New("connection refused"), 0, false},
	}
	for _, c := range cases {
		pause, ok := Unsent(c.err, time.Now())
		require.Equal(t, c.ok, ok, c.name)
		require.Equal(t, c.pause, pause, c.name)
	}
}
