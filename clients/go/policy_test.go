package queuebox

import (
	"errors"
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

func TestSanitizeMasksTheServersShapes(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"password": "hunter2", "user": "bob"}`:              `{"password": "***", "user": "bob"}`,
		`{'token': 'abc'}`:                                    `{'token': '***'}`,
		`{"pwd": 1234}`:                                       `{"pwd": ***}`,
		`grant=x&client_secret=s3cr3t&scope=y`:                `grant=x&client_secret=***&scope=y`,
		`mytoken=keep`:                                        `mytoken=keep`,
		"Authorization: Bearer abc.def\nok":                   "Authorization: Bearer ***\nok",
		`<password>pw</password>`:                             `<password>***</password>`,
		`call failed: Bearer eyJhbGciOi`:                      `call failed: Bearer ***`,
		`Bearer token required`:                               `Bearer token required`,
		`dial postgres://app:pa55@db:5432/x`:                  `dial postgres://app:***@db:5432/x`,
		`{"password": ""}`:                                    `{"password": ""}`,
		`x-api-key: k1` + "\r\n" + `Cookie: session=abc; b=c`: "x-api-key: ***\r\nCookie: ***",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q)\n got %q\nwant %q", in, got, want)
		}
	}
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
