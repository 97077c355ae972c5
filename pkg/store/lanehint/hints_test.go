package lanehint

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/scanfloor"
)

func seqHints() *Hints[int64] { return New(func(a, b int64) bool { return a > b }) }

func count(n int64) *int64 { return &n }

func taken(key string, seq int64) Taken[int64] {
	return Taken[int64]{Lane: Lane{Key: key, Destination: "d"}, Place: seq}
}

// hinted returns the plan's hints as a map from key to place.
func hinted(p Plan[int64]) map[string]int64 {
	out := map[string]int64{}
	for i, l := range p.Lanes {
		out[l.Key] = p.Places[i]
	}
	return out
}

func TestHints(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)
	ms := time.Millisecond

	t.Run("a new claimer walks in full until it knows the requeue count", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		p := h.Next(t0)
		require.True(t, p.Full())
		h.Done(p, t0, ms, Seen[int64]{Taken: []Taken[int64]{taken("a", 1)}})
		require.True(t, h.Next(t0).Full(), "a claim that read no count teaches nothing")
	})

	t.Run("a lane claimed twice is hinted at its latest head", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		p := h.Next(t0)
		h.Done(p, t0, ms, Seen[int64]{Count: count(0), Taken: []Taken[int64]{taken("a", 1), taken("b", 2)}})
		p = h.Next(t0)
		require.False(t, p.Full())
		require.Equal(t, int64(0), *p.Count)
		require.Empty(t, p.Lanes, "a lane claimed once is not hinted")
		h.Done(p, t0, ms, Seen[int64]{Count: count(0), Taken: []Taken[int64]{taken("a", 5)}})
		require.Equal(t, map[string]int64{"a": 5}, hinted(h.Next(t0)))
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0), Taken: []Taken[int64]{taken("a", 3)}})
		require.Equal(t, map[string]int64{"a": 5}, hinted(h.Next(t0)), "a hint never moves back")
		require.Equal(t, []string{"a"}, h.Next(t0).Keys())
		require.Equal(t, []string{"d"}, h.Next(t0).Destinations())
	})

	t.Run("another requeue count drops every hint", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(4), Taken: []Taken[int64]{taken("a", 1), taken("a", 2)}})
		require.Len(t, h.Next(t0).Lanes, 1)
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(5), Taken: []Taken[int64]{taken("b", 7)}})
		p := h.Next(t0)
		require.Empty(t, p.Lanes)
		require.Equal(t, int64(5), *p.Count, "the plan carries the count its hints hold under")
	})

	t.Run("a full walk comes every MinFullEvery, or FullShare times its own time", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0)})
		require.False(t, h.Next(t0.Add(scanfloor.MinFullEvery-ms)).Full())
		require.True(t, h.Next(t0.Add(scanfloor.MinFullEvery)).Full())
		at := t0.Add(scanfloor.MinFullEvery)
		h.Done(h.Next(at), at, time.Second, Seen[int64]{Count: count(0)})
		require.False(t, h.Next(at.Add(scanfloor.FullShare*time.Second-ms)).Full())
		require.True(t, h.Next(at.Add(scanfloor.FullShare*time.Second)).Full())
		h.Reset()
		require.True(t, h.Next(at).Full(), "a reset makes the next claim walk in full")
	})

	t.Run("a lane no claim took for a full walk period is forgotten", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		at := t0
		full := func(took ...Taken[int64]) {
			p := h.Next(at)
			require.True(t, p.Full())
			h.Done(p, at, ms, Seen[int64]{Count: count(0), Taken: took})
			at = at.Add(scanfloor.MinFullEvery)
		}
		full(taken("a", 1), taken("b", 1))
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0), Taken: []Taken[int64]{taken("a", 2), taken("b", 2)}})
		full(taken("a", 3))
		require.Equal(t, map[string]int64{"a": 3, "b": 2}, hinted(h.Next(at.Add(-ms))))
		full()
		require.Equal(t, map[string]int64{"a": 3}, hinted(h.Next(at.Add(-ms))), "b was last taken two periods ago")
	})

	t.Run("at most MaxHints lanes, the latest taken", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		for i := range MaxHints + 10 {
			at := t0.Add(time.Duration(i) * time.Microsecond)
			l := taken(string(rune('A'+i%26))+time.Duration(i).String(), int64(i))
			h.Done(h.Next(at), at, 0, Seen[int64]{Count: count(0), Taken: []Taken[int64]{l, l}})
		}
		p := h.Next(t0.Add(time.Millisecond))
		require.Len(t, p.Lanes, MaxHints)
		require.NotContains(t, hinted(p), "A0s", "the lane taken first is left out")
	})

	t.Run("a hinted plan starts the active probe Slack below the oldest active row seen", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		require.Nil(t, h.Next(t0).ActiveFrom, "a full walk reads from the start")
		active := t0.Add(-time.Hour)
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0), Active: &active})
		p := h.Next(t0)
		require.False(t, p.Full())
		require.Equal(t, active.Add(-scanfloor.Slack), *p.ActiveFrom)
		h.Done(p, t0, ms, Seen[int64]{Count: count(0)})
		require.Equal(t, active.Add(-scanfloor.Slack), *h.Next(t0).ActiveFrom, "a claim that read none keeps the bound")
		full := h.Next(t0.Add(scanfloor.MinFullEvery))
		require.True(t, full.Full())
		require.Empty(t, full.Lanes)
		require.Equal(t, int64(0), *full.Count, "a full walk carries the count, which the bound holds under")
		require.Equal(t, active.Add(-scanfloor.Slack), *full.ActiveFrom, "a due full walk starts at the bound too")
	})

	t.Run("a failed full walk schedules the next one as a finished one would", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0), Taken: []Taken[int64]{taken("a", 1), taken("a", 2)}})
		at := t0.Add(scanfloor.MinFullEvery)
		full := h.Next(at)
		require.True(t, full.Full())
		h.Failed(full, at, 30*time.Second)
		p := h.Next(at.Add(time.Second))
		require.False(t, p.Full(), "the claim after a failed full walk is hinted")
		require.Equal(t, map[string]int64{"a": 2}, hinted(p), "the hints stay")
		h.Failed(p, at, time.Hour)
		require.False(t, h.Next(at.Add(2*time.Second)).Full(), "a failed hinted claim changes nothing")
		require.True(t, h.Next(at.Add(scanfloor.FullShare*30*time.Second)).Full())
	})

	t.Run("an active check runs one at a time, paced as the full walks, and only lowers the bound", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		require.False(t, h.StartActiveCheck(t0), "no check before a claim read the count")
		active := t0.Add(-time.Hour)
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0), Active: &active})
		require.True(t, h.StartActiveCheck(t0))
		require.False(t, h.StartActiveCheck(t0), "one check at a time")
		higher := active.Add(time.Minute)
		h.ActiveChecked(t0, time.Second, &higher)
		require.Equal(t, active.Add(-scanfloor.Slack), *h.Next(t0).ActiveFrom, "a check never raises the bound")
		require.False(t, h.StartActiveCheck(t0.Add(scanfloor.FullShare*time.Second-ms)))
		at := t0.Add(scanfloor.FullShare * time.Second)
		require.True(t, h.StartActiveCheck(at))
		late := active.Add(-time.Minute)
		h.ActiveChecked(at, ms, &late)
		p := h.Next(at)
		require.Equal(t, late.Add(-scanfloor.Slack), *p.ActiveFrom, "a row committed late below the bound lowers it")
		require.True(t, h.StartActiveCheck(at.Add(scanfloor.MinFullEvery)))
		h.ActiveChecked(at, ms, nil)
		require.Equal(t, late.Add(-scanfloor.Slack), *h.Next(at).ActiveFrom, "a failed check changes nothing")
	})

	t.Run("a claim planned before a check lowered the bound does not raise it back", func(t *testing.T) {
		t.Parallel()
		h := seqHints()
		active := t0.Add(-time.Hour)
		h.Done(h.Next(t0), t0, ms, Seen[int64]{Count: count(0), Active: &active})
		before := h.Next(t0)
		require.True(t, h.StartActiveCheck(t0))
		late := active.Add(-time.Minute)
		h.ActiveChecked(t0, ms, &late)
		h.Done(before, t0, ms, Seen[int64]{Count: count(0), Active: &active})
		require.Equal(t, late.Add(-scanfloor.Slack), *h.Next(t0).ActiveFrom)
		after := h.Next(t0)
		h.Done(after, t0, ms, Seen[int64]{Count: count(0), Active: &active})
		require.Equal(t, active.Add(-scanfloor.Slack), *h.Next(t0).ActiveFrom,
			"a claim planned after the check sets it as before: the late row went")
	})
}
