package claim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type idleItem string

func (i idleItem) Lease() Lease { return Lease{ID: string(i), Token: "t1"} }

func signalled(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// The idle signal closes when the last held item is released, and a later
// hold needs a new one: a signal that never closed, or closed while items
// are still held, fails here.
func TestIdleSignalClosesWhenTheLastItemIsReleased(t *testing.T) {
	t.Parallel()
	l := New[idleItem](Config{Name: "idle"}, nil, nil)
	require.True(t, signalled(l.idleSignal()), "a loop that holds nothing is idle")

	l.hold("a", time.Now())
	l.hold("b", time.Now())
	idle := l.idleSignal()
	require.True(t, idle == l.idleSignal(), "waiters share one signal")
	l.release(idleItem("a").Lease())
	require.False(t, signalled(idle), "b is still held")
	l.release(Lease{ID: "b", Token: "an older token"})
	require.False(t, signalled(idle), "a release under another token frees nothing")
	l.release(idleItem("b").Lease())
	require.True(t, signalled(idle))

	l.hold("c", time.Now())
	again := l.idleSignal()
	require.False(t, signalled(again), "a new hold needs a new signal")
	l.release(idleItem("c").Lease())
	require.True(t, signalled(again))
}
