package scanfloor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFloor(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	row := t0.Add(-time.Minute) // the time of a row a scan took
	type step struct {
		do     string // "beside", "next", "done", "failed", "reset", "start", "checked"
		at     time.Time
		took   time.Duration
		oldest time.Time
		want   *time.Time // for next: the bound, nil for a full scan
		starts bool       // for start: whether a check starts
	}
	ptr := func(t time.Time) *time.Time { return &t }
	cases := []struct {
		name  string
		steps []step
	}{
		{"a new floor asks for a full scan", []step{{do: "next", at: t0}}},
		{"a full scan that took rows sets the bound below the oldest", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0.Add(time.Millisecond), want: ptr(row.Add(-Slack))},
		}},
		{"a full scan that took no row keeps the next scans full", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond},
			{do: "next", at: t0.Add(time.Millisecond)},
		}},
		{"a full scan comes again after MinFullEvery", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0.Add(MinFullEvery - time.Millisecond), want: ptr(row.Add(-Slack))},
			{do: "next", at: t0.Add(MinFullEvery)},
		}},
		{"a slow full scan spaces the next one out", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Second, oldest: row},
			{do: "next", at: t0.Add(FullShare*time.Second - time.Millisecond), want: ptr(row.Add(-Slack))},
			{do: "next", at: t0.Add(FullShare * time.Second)},
		}},
		{"a bounded scan raises the bound, never lowers it", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0, want: ptr(row.Add(-Slack))},
			{do: "done", at: t0, took: time.Millisecond, oldest: row.Add(time.Minute)},
			{do: "next", at: t0, want: ptr(row.Add(time.Minute - Slack))},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0, want: ptr(row.Add(time.Minute - Slack))},
		}},
		{"a full scan may lower the bound", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0.Add(MinFullEvery)},
			{do: "done", at: t0.Add(MinFullEvery), took: time.Millisecond, oldest: row.Add(-time.Hour)},
			{do: "next", at: t0.Add(MinFullEvery), want: ptr(row.Add(-time.Hour - Slack))},
		}},
		{"a reset makes the next scan full", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "reset"},
			{do: "next", at: t0.Add(time.Millisecond)},
		}},
		{"without checks beside, no check starts", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "start", at: t0.Add(time.Hour)},
		}},
		{"with checks beside, the scans stay bounded", []step{
			{do: "beside"},
			{do: "start", at: t0},
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Second, oldest: row},
			{do: "next", at: t0.Add(time.Hour), want: ptr(row.Add(-Slack))},
		}},
		{"a check runs one at a time, paced as the full scans were, and never raises the bound", []step{
			{do: "beside"},
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "start", at: t0, starts: true},
			{do: "start", at: t0},
			{do: "checked", at: t0, took: time.Second, oldest: row.Add(time.Minute)},
			{do: "next", at: t0, want: ptr(row.Add(-Slack))},
			{do: "start", at: t0.Add(FullShare*time.Second - time.Millisecond)},
			{do: "start", at: t0.Add(FullShare * time.Second), starts: true},
			{do: "checked", at: t0.Add(FullShare * time.Second), took: time.Millisecond},
			{do: "next", at: t0, want: ptr(row.Add(-Slack))},
		}},
		{"a check that finds an older row lowers the bound", []step{
			{do: "beside"},
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "start", at: t0, starts: true},
			{do: "checked", at: t0, took: time.Millisecond, oldest: row.Add(-time.Hour)},
			{do: "next", at: t0, want: ptr(row.Add(-time.Hour - Slack))},
		}},
		{"a failed full scan is not repeated by the next claim", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0.Add(MinFullEvery)},
			{do: "failed", at: t0.Add(MinFullEvery), took: 30 * time.Second},
			{do: "next", at: t0.Add(MinFullEvery + time.Second), want: ptr(row.Add(-Slack))},
			{do: "next", at: t0.Add(MinFullEvery + FullShare*30*time.Second)},
		}},
		{"a failed bounded scan changes nothing", []step{
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "next", at: t0, want: ptr(row.Add(-Slack))},
			{do: "failed", at: t0, took: 30 * time.Second},
			{do: "next", at: t0.Add(MinFullEvery)},
		}},
		{"with checks beside, a failed full scan after a reset gives way to a check", []step{
			{do: "beside"},
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "reset"},
			{do: "next", at: t0},
			{do: "failed", at: t0, took: 30 * time.Second},
			{do: "next", at: t0, want: ptr(row.Add(-Slack))},
			{do: "start", at: t0, starts: true},
		}},
		{"with checks beside, a reset still makes the next scan full, once", []step{
			{do: "beside"},
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row},
			{do: "reset"},
			{do: "next", at: t0},
			{do: "done", at: t0, took: time.Millisecond, oldest: row.Add(-time.Hour)},
			{do: "next", at: t0, want: ptr(row.Add(-time.Hour - Slack))},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var f Floor
			var bound *time.Time
			for i, s := range tc.steps {
				switch s.do {
				case "next":
					bound = f.Next(s.at)
					require.Equal(t, s.want, bound, "step %d", i)
				case "done":
					f.Done(bound, s.at, s.took, s.oldest)
				case "failed":
					f.Failed(bound, s.at, s.took)
				case "reset":
					f.Reset()
				case "beside":
					f.CheckBeside()
				case "start":
					require.Equal(t, s.starts, f.StartCheck(s.at), "step %d", i)
				case "checked":
					f.Checked(s.at, s.took, s.oldest)
				}
			}
		})
	}
}

func TestSeq(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	var s Seq
	require.Nil(t, s.Next(t0), "a new floor asks for a full scan")
	s.Done(nil, t0, time.Millisecond, 0, false)
	require.Nil(t, s.Next(t0), "a full scan that took no row keeps the next scans full")

	s.Done(nil, t0, time.Millisecond, 50_000, true)
	b := s.Next(t0.Add(time.Millisecond))
	require.NotNil(t, b)
	require.Equal(t, int64(50_000-SeqSlack), *b, "the bound is the slack below the lowest sequence taken")

	s.Done(b, t0, time.Millisecond, 40_000, true)
	require.Equal(t, int64(50_000-SeqSlack), *s.Next(t0), "a bounded scan never lowers the bound")
	s.Done(b, t0, time.Millisecond, 70_000, true)
	require.Equal(t, int64(70_000-SeqSlack), *s.Next(t0), "a bounded scan raises it")

	require.Nil(t, s.Next(t0.Add(MinFullEvery)), "a full scan comes again after MinFullEvery")
	s.Done(nil, t0.Add(MinFullEvery), time.Millisecond, 20_000, true)
	require.Equal(t, int64(20_000-SeqSlack), *s.Next(t0.Add(MinFullEvery)), "a full scan may lower it")
	s.Reset()
	require.Nil(t, s.Next(t0.Add(MinFullEvery)), "a reset makes the next scan full")
	s.Failed(nil, t0.Add(MinFullEvery), 30*time.Second)
	require.NotNil(t, s.Next(t0.Add(MinFullEvery+time.Second)), "a failed full scan is not repeated at once")
	require.Nil(t, s.Next(t0.Add(MinFullEvery+FullShare*30*time.Second)), "but after FullShare times its time")
}
