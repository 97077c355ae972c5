package admin

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/transform"
)

// testRequest is the body of POST /admin/transform/test. Unknown fields
// are ignored.
type testRequest struct {
	Expression *string         `json:"expression"`
	Payload    json.RawMessage `json:"payload"`
	MockTopic  *string         `json:"mockTopic"`
	MockSource *string         `json:"mockSource"`
	TimeoutMs  *int            `json:"timeoutMs"`
}

type testContext struct {
	MessageID string `json:"messageId"`
	Topic     string `json:"topic"`
	Attempt   int    `json:"attempt"`
	Timestamp string `json:"timestamp"`
}

type testReply struct {
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result,omitempty"`
	Context *testContext    `json:"context,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// defaultTestTimeout is the evaluation timeout when the caller sends none.
const defaultTestTimeout = 100 * time.Millisecond

// MaxTestResultBytes bounds the result of /admin/transform/test, and every
// range, array and string the expression builds on the way
// (docs/security.md). Past it the route answers 400. Evaluation and encoding both
// run inside the clamped timeout.
const MaxTestResultBytes = 1 << 20

// NewTransformTest returns the handler of POST /admin/transform/test: it
// evaluates the caller's expression on the sample payload, sends nothing
// and writes nothing. The timeout is the caller's timeoutMs (default 100)
// clamped to opts.MaxTransformTimeout. It returns an error when opts has
// no credentials and is not Insecure.
func NewTransformTest(opts Options, compile transform.Compiler) (echo.HandlerFunc, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	g := newGuard(opts)
	maxTimeout := opts.MaxTransformTimeout
	return func(c echo.Context) error {
		fail := func(code int, msg string) error { return c.JSON(code, testReply{Error: msg}) }
		body, _, ok, err := g.write(c, fail)
		if !ok {
			return err
		}
		req, problem := parseTestRequest(body)
		if problem != "" {
			return fail(http.StatusBadRequest, "Invalid request: "+problem)
		}
		expr, err := compile(*req.Expression, 100)
		if err != nil {
			return fail(http.StatusBadRequest, "Invalid expression: "+err.Error())
		}
		vars, tc := testVars(req)
		timeout := defaultTestTimeout
		if req.TimeoutMs != nil && *req.TimeoutMs > 0 {
			timeout = time.Duration(*req.TimeoutMs) * time.Millisecond
		}
		timeoutMs := int(min(timeout, maxTimeout).Milliseconds())
		out, err := transform.EvalBounded(c.Request().Context(), expr, timeoutMs, MaxTestResultBytes, req.Payload, vars)
		if errors.Is(err, transform.ErrNoResult) {
			out, err = []byte("null"), nil
		}
		if err != nil {
			return fail(http.StatusBadRequest, err.Error())
		}
		return c.JSON(http.StatusOK, testReply{Success: true, Result: out, Context: &tc})
	}, nil
}

func parseTestRequest(body []byte) (testRequest, string) {
	var req testRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, describeJSONError(err)
	}
	switch {
	case req.Expression == nil:
		return req, "expression is required"
	case len(req.Payload) == 0:
		return req, "payload is required"
	}
	return req, ""
}

// testVars binds the variables of a route stage, with mocks: a random
// $messageId, $topic from mockTopic (default test.topic), $attempt 0,
// $timestamp now, $source from mockSource. No $headers.
func testVars(req testRequest) (map[string]any, testContext) {
	tc := testContext{
		MessageID: uuid.NewString(),
		Topic:     "test.topic",
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
	}
	if req.MockTopic != nil {
		tc.Topic = *req.MockTopic
	}
	vars := map[string]any{"messageId": tc.MessageID, "topic": tc.Topic, "attempt": 0, "timestamp": tc.Timestamp}
	if req.MockSource != nil {
		vars["source"] = *req.MockSource
	}
	return vars, tc
}
