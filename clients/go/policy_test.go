package queuebox

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestDefaultPolicyDoublesWithinTheJitterAndDeadLettersAtTheCeiling(t *testing.T) {
	t.Parallel()
	p := NewDefaultRetryPolicy(5, time.Second, 5*time.Minute, 0.2)
	for attempt := 0; attempt < 5; attempt++ {
		base := time.Second << attempt
		for range 50 {
			a := p.Decide(Message{Attempt: attempt}, errors.New("x"))
			if a.dead || a.delay < base*8/10 || a.delay > base*12/10 {
				t.Fatalf("attempt %d: %+v", attempt, a)
			}
		}
	}
	if !p.Decide(Message{Attempt: 5}, errors.New("x")).dead {
		t.Error("attempt 5 is not dead-lettered: the default allows six deliveries")
	}
	capped := NewDefaultRetryPolicy(50, time.Second, 10*time.Second, 0.2)
	if d := capped.Decide(Message{Attempt: 20}, nil).delay; d > 10*time.Second {
		t.Errorf("delay %v above the ceiling", d)
	}
	f := RetryPolicyFunc(func(Message, error) FailureAction { return RetryAfter(-time.Second) })
	if f.Decide(Message{}, nil).delay != 0 {
		t.Error("a negative delay is not zero")
	}
}

// The cases are the server's (pkg/redact/testdata/cases.json), shared by
// both clients; a client knows no secret values, so it runs the cases
// without any. The test runs in the repository, where the file sits.
func TestSanitizeMasksTheServersShapes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../pkg/redact/testdata/cases.json")
	if err != nil {
		t.Fatalf("read the shared redaction cases: %v (run the test in the repository)", err)
	}
	var fixture struct {
		Cases []struct {
			Name    string   `json:"name"`
			Secrets []string `json:"secrets"`
			Input   string   `json:"input"`
			Want    string   `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &fixture); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tc := range fixture.Cases {
		if len(tc.Secrets) > 0 {
			continue
		}
		ran++
		if got := Sanitize(tc.Input); got != tc.Want {
			t.Errorf("%s: Sanitize(%q)\n got %q\nwant %q", tc.Name, tc.Input, got, tc.Want)
		}
	}
	if ran == 0 {
		t.Fatal("no shared case without secrets")
	}
}

func TestSanitizeErrorCutsTheReason(t *testing.T) {
	t.Parallel()
	long := errors.New(strings.Repeat("é", 2000) + " password=x")
	got := SanitizeError(long)
	if len(got) > 2048 || !strings.HasSuffix(got, "é") {
		t.Errorf("SanitizeError cut %d bytes, ending %q", len(got), got[len(got)-4:])
	}
	if SanitizeError(nil) != "" {
		t.Error("nil error")
	}
}

func TestLogFieldsAreRedacted(t *testing.T) {
	t.Parallel()
	f := fields([]any{"err", errors.New("token=abc"), "s", "password=x", "n", 3})
	if f["err"] != "token=***" || f["s"] != "password=***" || f["n"] != 3 {
		t.Errorf("fields: %v", f)
	}
}
