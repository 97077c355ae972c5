package claim

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFailureLogWritesOneLinePerOperationAndInterval(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f := newFailureLog(func() time.Time { return clock })
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	boom := errors.New("connection refused")

	steps := []struct {
		advance time.Duration
		op      string
		logged  bool
	}{
		{0, "claim", true}, // the first failure
		{100 * time.Millisecond, "claim", false},
		{100 * time.Millisecond, "renew", true}, // another operation has its own budget
		{10 * time.Second, "claim", false},
		{20 * time.Second, "claim", true}, // 30.2 s after the first line
		{time.Second, "claim", false},
	}
	lines := 0
	for i, st := range steps {
		clock = clock.Add(st.advance)
		f.record(log, "outbox", st.op, boom)
		got := strings.Count(out.String(), "\n")
		require.Equal(t, st.logged, got > lines, "step %d (%s)", i, st.op)
		lines = got
	}
	all := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, all, 3)
	require.Contains(t, all[0], "failures_not_logged=0")
	require.Contains(t, all[2], `msg="claim failed"`)
	require.Contains(t, all[2], "failures_not_logged=2", "the failures between the two lines")
}
