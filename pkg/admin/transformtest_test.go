package admin_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/transform"
)

func transformTest(t *testing.T, cfg admin.Options) func(body string, header ...string) (int, map[string]any) {
	t.Helper()
	h, err := admin.NewTransformTest(cfg, transform.JSONata)
	require.NoError(t, err)
	e := echo.New()
	admin.Mount(e, cfg, admin.Routes{TransformTest: h}, quiet())
	return func(body string, header ...string) (int, map[string]any) {
		req := httptest.NewRequest(http.MethodPost, "/admin/transform/test", strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		var out map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
		return rec.Code, out
	}
}

func TestTransformTestEvaluates(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	cfg.MaxPayloadBytes, cfg.MaxTransformTimeout = 65536, time.Second
	post := transformTest(t, cfg)
	code, out := post(`{"expression":"{ \"total\": $sum(items.(price * qty)), \"topic\": $topic, \"source\": $source }",
		"payload":{"items":[{"price":10,"qty":2},{"price":5,"qty":3}]},"mockTopic":"order.created","mockSource":"shop"}`, authz...)
	require.Equal(t, http.StatusOK, code, out)
	require.Equal(t, true, out["success"])
	require.Equal(t, map[string]any{"total": 35.0, "topic": "order.created", "source": "shop"}, out["result"])
	ctx := out["context"].(map[string]any)
	require.Equal(t, "order.created", ctx["topic"])
	require.Equal(t, 0.0, ctx["attempt"])
	require.Regexp(t, `^[0-9a-f-]{36}$`, ctx["messageId"])
	require.NotEmpty(t, ctx["timestamp"])

	code, out = post(`{"expression":"$topic","payload":{}}`, authz...)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "test.topic", out["result"], "the default mock topic")
}

func TestTransformTestAnswers(t *testing.T) {
	t.Parallel()
	cfg := enabled()
	cfg.MaxPayloadBytes, cfg.MaxTransformTimeout = 512, 50*time.Millisecond
	post := transformTest(t, cfg)
	cases := []struct {
		name, body string
		header     []string
		code       int
		prefix     string
	}{
		{"no expression", `{"payload":{}}`, authz, 400, "Invalid request: "},
		{"no payload", `{"expression":"$"}`, authz, 400, "Invalid request: "},
		{"not json", `{`, authz, 400, "Invalid request: the body is not valid JSON"},
		{"expression not a string", `{"expression":5,"payload":{}}`, authz, 400, "Invalid request: expression must be a string, got number"},
		{"fractional timeout", `{"expression":"$","payload":{},"timeoutMs":1.5}`, authz, 400, "Invalid request: timeoutMs must be an integer"},
		{"does not compile", `{"expression":"{ \"a\": ","payload":{}}`, authz, 400, "Invalid expression: "},
		{"evaluation error", `{"expression":"$error(\"boom\")","payload":{}}`, authz, 400, ""},
		{"clamped timeout", `{"expression":"($f := function($x){ $f($x + 1) }; $f(0))","payload":{},"timeoutMs":600000}`, authz, 400, ""},
		{"runs out of time", `{"expression":"$sum([1..1000].($sum([1..5000].($ * 2))))","payload":{},"timeoutMs":1}`, authz, 400, "the evaluation ran past timeoutMs (1 ms)"},
		{"no credentials", `{"expression":"$","payload":{}}`, nil, 401, ""},
		{"too large", `{"expression":"$","payload":"` + strings.Repeat("x", 600) + `"}`, authz, 413, "Request body exceeds 512 bytes"},
	}
	for _, tc := range cases {
		code, out := post(tc.body, tc.header...)
		require.Equal(t, tc.code, code, "%s: %v", tc.name, out)
		require.Equal(t, false, out["success"], tc.name)
		msg, _ := out["error"].(string)
		require.NotEmpty(t, msg, tc.name)
		require.True(t, strings.HasPrefix(msg, tc.prefix), "%s: %q", tc.name, msg)
	}
}
