package claim_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/claim"
)

// syncBuffer is a log sink that handlers may write from any goroutine.
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

func TestHealthGoesDownWithItsReasonAndLogsOnceWhenUpAgain(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	h := claim.NewHealth(slog.New(slog.NewTextHandler(&out, nil)), "claims fail", "claims succeed again")
	ctx := context.Background()
	require.NoError(t, h.Check(ctx), "a new Health is up")
	h.Up()
	require.Empty(t, out.String(), "an Up while up logs nothing")

	h.Down(errors.New("connection refused"))
	h.Down(errors.New("relation outbox does not exist"))
	require.EqualError(t, h.Check(ctx), "claims fail: relation outbox does not exist")
	h.Up()
	h.Up()
	require.NoError(t, h.Check(ctx))
	require.Equal(t, 1, strings.Count(out.String(), "claims succeed again"))
}

// A failed claim marks the loop's Health down; the next claim that the
// source answers, though it finds no row, marks it up again.
func TestLoopHealthFollowsItsClaims(t *testing.T) {
	t.Parallel()
	src := newSource()
	src.claimErrs = []error{errors.New("connection refused")}
	h := claim.NewHealth(quiet(), "claims fail", "up again")
	l := claim.New(claim.Config{Name: "test", PollInterval: forever, Logger: quiet(), Health: h},
		src, func(context.Context, item) {})
	running(t, l)

	ctx := context.Background()
	require.Eventually(t, func() bool { return h.Check(ctx) != nil }, wait, tick, "down after the failed claim")
	require.EqualError(t, h.Check(ctx), "claims fail: connection refused")
	l.Wake()
	require.Eventually(t, func() bool { return h.Check(ctx) == nil }, wait, tick, "up after an empty claim")
	require.Equal(t, int64(2), src.claimCalls.Load())
}
