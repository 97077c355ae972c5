package wiring

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/retention"
)

func TestRetentionMapsEveryKey(t *testing.T) {
	t.Parallel()
	keep := 7
	got := Retention(config.RetentionPolicy{Policy: config.PolicyCount, MaxAge: &config.Duration{D: time.Minute},
		MaxCount: &keep, CleanupInterval: config.Duration{D: time.Hour}, BatchSize: 10})
	require.Equal(t, retention.Options{Policy: retention.PolicyCount, MaxAge: time.Minute, KeepCount: 7,
		Interval: time.Hour, BatchSize: 10}, got)
	require.Equal(t, retention.Options{Policy: retention.PolicyDisabled, Interval: time.Hour, BatchSize: 1000},
		Retention(config.Default().Retention.Outbox), "the defaults of the keys are the defaults of the options")
}

// The policy names are the configuration's, so the mapping passes them on
// as they are.
func TestRetentionPolicyNamesAgree(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{config.PolicyAge, config.PolicyCount, config.PolicyDisabled},
		[]string{retention.PolicyAge, retention.PolicyCount, retention.PolicyDisabled})
}
