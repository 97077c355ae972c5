package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFlowControlDefaults(t *testing.T) {
	t.Parallel()
	for _, dest := range []string{httpDest, rabbitDest, kafkaDest, natsDest} {
		cfg := mustLoad(t, testOptions(baseYAML+dest, "QUEUEBOX_OUTBOX_CONCURRENCY=9"))
		for _, d := range cfg.Destinations {
			f := d.FlowControl
			require.Nil(t, f.MaxInFlight, d.Kind)
			require.Equal(t, 4, f.EffectiveMaxInFlight(cfg.Outbox.Concurrency), "half of outbox.concurrency")
			require.Zero(t, f.RatePerSecond)
			require.Equal(t, CircuitBreaker{Enabled: true, FailureThreshold: 5, OpenMs: 30000}, f.CircuitBreaker)
			require.True(t, f.HonorRetryAfter)
			require.Equal(t, 3600000, f.MaxRetryAfterMs)
		}
	}
	require.Equal(t, 1, FlowControl{}.EffectiveMaxInFlight(1), "at least 1")
}

func TestFlowControlFromVariables(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML+httpDest,
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_MAXINFLIGHT=3",
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_RATEPERSECOND=50",
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_CIRCUITBREAKER_ENABLED=false",
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD=2",
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_CIRCUITBREAKER_OPENMS=1000",
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_HONORRETRYAFTER=false",
		"QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_MAXRETRYAFTERMS=5000"))
	f := cfg.Destinations["hook"].FlowControl
	require.Equal(t, 3, f.EffectiveMaxInFlight(cfg.Outbox.Concurrency))
	require.Equal(t, 50, f.RatePerSecond)
	require.Equal(t, CircuitBreaker{Enabled: false, FailureThreshold: 2, OpenMs: 1000}, f.CircuitBreaker)
	require.False(t, f.HonorRetryAfter)
	require.Equal(t, 5000, f.MaxRetryAfterMs)
}

func TestFlowControlRefusals(t *testing.T) {
	t.Parallel()
	const fc = "destinations.hook.flowControl."
	const env = "QUEUEBOX_DESTINATIONS_HOOK_FLOWCONTROL_"
	runRefusals(t, []refusal{
		{name: "maxInFlight zero", extra: httpDest, env: []string{env + "MAXINFLIGHT=0"},
			want: []string{fc + "maxInFlight (" + env + "MAXINFLIGHT): must be above 0, got 0"}},
		{name: "negative rate", extra: httpDest, env: []string{env + "RATEPERSECOND=-1"},
			want: []string{fc + "ratePerSecond (" + env + "RATEPERSECOND): must not be negative, got -1"}},
		{name: "failureThreshold zero", extra: httpDest, env: []string{env + "CIRCUITBREAKER_FAILURETHRESHOLD=0"},
			want: []string{fc + "circuitBreaker.failureThreshold (" + env + "CIRCUITBREAKER_FAILURETHRESHOLD): must be above 0, got 0"}},
		{name: "openMs zero", extra: httpDest, env: []string{env + "CIRCUITBREAKER_OPENMS=0"},
			want: []string{fc + "circuitBreaker.openMs (" + env + "CIRCUITBREAKER_OPENMS): must be above 0, got 0"}},
		{name: "openMs above ten minutes", extra: httpDest, env: []string{env + "CIRCUITBREAKER_OPENMS=600001"},
			want: []string{fc + "circuitBreaker.openMs (" + env + "CIRCUITBREAKER_OPENMS): must be at most 600000"}},
		{name: "maxRetryAfterMs zero", extra: httpDest, env: []string{env + "MAXRETRYAFTERMS=0"},
			want: []string{fc + "maxRetryAfterMs (" + env + "MAXRETRYAFTERMS): must be above 0, got 0"}},
		{name: "maxInFlight not a number", extra: httpDest, env: []string{env + "MAXINFLIGHT=many"},
			want: []string{fc + "maxInFlight (" + env + "MAXINFLIGHT)"}},
		{name: "broker destination too", extra: natsDest, env: []string{"QUEUEBOX_DESTINATIONS_SUBJ_FLOWCONTROL_MAXINFLIGHT=-2"},
			want: []string{"destinations.subj.flowControl.maxInFlight (QUEUEBOX_DESTINATIONS_SUBJ_FLOWCONTROL_MAXINFLIGHT): must be above 0, got -2"}},
	})
}
