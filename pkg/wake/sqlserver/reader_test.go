package sqlserver

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/wake"
)

// rowFake answers every read with gen, or ErrNoRows while gen is nil, and
// records the arguments of the last read. It is safe for concurrent use.
type rowFake struct {
	mu   sync.Mutex
	gen  *int64
	args []any
}

func (f *rowFake) QueryRow(_ context.Context, _ string, args []any, dest ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.args = args
	if f.gen == nil {
		return ErrNoRows
	}
	*dest[0].(*int64) = *f.gen
	return nil
}

func (f *rowFake) set(gen int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen = &gen
}

func TestWakeReader(t *testing.T) {
	t.Parallel()
	db := &rowFake{}
	w := NewWakeReader(db)
	changed, err := w.Changed(context.Background())
	require.NoError(t, err)
	require.True(t, changed, "the first read claims once")
	changed, _ = w.Changed(context.Background())
	require.False(t, changed)
	db.set(4)
	changed, _ = w.Changed(context.Background())
	require.True(t, changed)
	require.True(t, strings.Contains(w.sql, "WHERE channel = @p1"))
	require.Equal(t, []any{wake.Channel}, db.args, "the row of the outbox's channel")
}
