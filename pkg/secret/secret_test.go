package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSecretNeverPrints(t *testing.T) {
	t.Parallel()
	type inner struct{ Token Secret }
	type holder struct {
		Password Secret
		Ptr      *Secret
		Auth     *inner
	}
	s := New("hunter2")
	h := holder{Password: s, Ptr: &s, Auth: &inner{Token: s}}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%t"} {
		out := fmt.Sprintf(format, h)
		require.NotContains(t, out, "hunter2", format)
		require.NotContains(t, fmt.Sprintf(format, h.Auth), "hunter2", format)
	}
	require.Contains(t, fmt.Sprintf("%+v", h), "Secret(***)")
	js, err := json.Marshal(h)
	require.NoError(t, err)
	require.NotContains(t, string(js), "hunter2")
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("cfg", "secret", s, "holder", h)
	require.NotContains(t, buf.String(), "hunter2")
	require.Equal(t, "Secret(empty)", New("").String())
	require.Equal(t, "hunter2", s.Reveal())
}

func TestMaskURL(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"postgres://qb:pw@db:5432/queuebox":                                 "postgres://qb:***@db:5432/queuebox",
		"amqp://guest:guest@rabbit:5672/vhost":                              "amqp://guest:***@rabbit:5672/vhost",
		"jdbc:postgresql://db:5432/queuebox?user=qb&password=pw&ssl=true":   "jdbc:postgresql://db:5432/queuebox?user=qb&password=***&ssl=true",
		"jdbc:sqlserver://db:1433;databaseName=qb;password=pw;encrypt=true": "jdbc:sqlserver://db:1433;databaseName=qb;password=***;encrypt=true",
		"jdbc:postgresql://db:5432/queuebox":                                "jdbc:postgresql://db:5432/queuebox",
		"jdbc:sqlserver://db;password={a;b};user=x":                         "jdbc:sqlserver://db;password=***;user=x",
		"amqp://rabbit:5672":                                                "amqp://rabbit:5672",
		"postgres://user@db/x":                                              "postgres://user@db/x",
		// Characters that a password should percent-encode but often does
		// not (base64 holds "/") must not end the masking early.
		"postgres://u:hun/ter2==@db:5432/x":  "postgres://u:***@db:5432/x",
		"postgres://u:hunter2#x@db/x":        "postgres://u:***@db/x",
		"postgres://u:hun?ter2@db/x?a=1":     "postgres://u:***@db/x?a=1",
		"amqp://guest:hun;ter2@rabbit:5672/": "amqp://guest:***@rabbit:5672/",
	}
	for in, want := range cases {
		require.Equal(t, want, MaskURL(in), in)
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	type inner struct{ Token Secret }
	type cfg struct {
		Password Secret
		Empty    Secret
		Map      map[string]*inner
		List     []inner
		Nil      *inner
	}
	got := Values(cfg{Password: New("a1"), Map: map[string]*inner{"x": {Token: New("b2")}}, List: []inner{{Token: New("c3")}}})
	require.ElementsMatch(t, []string{"a1", "b2", "c3"}, got)
}
