package tracing

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExporterKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		want string
		err  bool
	}{
		{name: "nothing set", env: nil, want: "none"},
		{name: "an endpoint turns otlp on", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, want: "otlp"},
		{name: "a traces endpoint too", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, want: "otlp"},
		{name: "explicit none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, want: "none"},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "Console"}, want: "console"},
		{name: "sdk disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, want: "none"},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := exporterKind(func(k string) string { return tc.env[k] })
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestPropagatorFromEnv(t *testing.T) {
	t.Parallel()
	p, err := propagatorFromEnv("")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"traceparent", "tracestate", "baggage"}, p.Fields())
	p, err = propagatorFromEnv("tracecontext")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"traceparent", "tracestate"}, p.Fields())
	p, err = propagatorFromEnv("none")
	require.NoError(t, err)
	require.Empty(t, p.Fields())
	_, err = propagatorFromEnv("tracecontext,b3")
	require.ErrorContains(t, err, `"b3"`)
}

func TestSetupWithNothingSetInstallsNoProvider(t *testing.T) {
	t.Parallel()
	shutdown, err := Setup(t.Context(), "queuebox-deliver", func(string) string { return "" }, nil)
	require.NoError(t, err)
	require.NoError(t, shutdown(t.Context()))
	require.False(t, Active())
}
