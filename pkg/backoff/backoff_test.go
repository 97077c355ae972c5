package backoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/backoff"
)

func TestDelayDoublesUpToTheCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{-1, time.Second}, {0, time.Second}, {1, time.Second}, {2, 2 * time.Second},
		{3, 4 * time.Second}, {5, 16 * time.Second}, {6, 30 * time.Second}, {1000, 30 * time.Second},
	}
	for _, tc := range tests {
		if got := backoff.Delay(time.Second, 30*time.Second, tc.failures); got != tc.want {
			t.Errorf("Delay(1s, 30s, %d) = %s, want %s", tc.failures, got, tc.want)
		}
	}
}

func TestDelayWithMaxBelowMinIsMin(t *testing.T) {
	t.Parallel()
	if got := backoff.Delay(time.Second, time.Millisecond, 4); got != time.Second {
		t.Fatalf("Delay(1s, 1ms, 4) = %s, want 1s", got)
	}
}

func TestDoublingResetStartsAgainAtMin(t *testing.T) {
	t.Parallel()
	b := backoff.Doubling{Min: 250 * time.Millisecond, Max: time.Second}
	var got []time.Duration
	for range 4 {
		got = append(got, b.Next())
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Next #%d = %s, want %s (all: %v)", i+1, got[i], want[i], got)
		}
	}
	if b.Failures() != 4 {
		t.Fatalf("Failures = %d, want 4", b.Failures())
	}
	b.Reset()
	if d := b.Next(); d != 250*time.Millisecond {
		t.Fatalf("Next after Reset = %s, want 250ms", d)
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { done <- backoff.Sleep(ctx, time.Hour) }()
	cancel()
	if <-done {
		t.Fatal("Sleep reported the full hour after its context was cancelled")
	}
}

func TestSleepOnADoneContextReturnsFalseEvenForZero(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if backoff.Sleep(ctx, 0) {
		t.Fatal("Sleep(done ctx, 0) = true")
	}
	if !backoff.Sleep(context.Background(), 0) {
		t.Fatal("Sleep(live ctx, 0) = false")
	}
	if !backoff.Sleep(context.Background(), time.Millisecond) {
		t.Fatal("Sleep(live ctx, 1ms) = false")
	}
}

func TestPacedKeepsASlowReadToItsShare(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct{ interval, took, want time.Duration }{
		{5 * s, 0, 5 * s},
		{5 * s, 100 * time.Millisecond, 5 * s},
		{5 * s, 500 * time.Millisecond, 5 * s},
		{5 * s, 2 * s, 18 * s},
		{5 * s, 3 * s, 27 * s},
	}
	for _, tc := range tests {
		if got := backoff.Paced(tc.interval, tc.took); got != tc.want {
			t.Errorf("Paced(%s, %s) = %s, want %s", tc.interval, tc.took, got, tc.want)
		}
	}
}
