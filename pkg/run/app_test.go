package run_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/buildinfo"
	"github.com/alternayte/queuebox/pkg/run"
)

func noWire(t *testing.T) run.Wire {
	return func(context.Context, *run.App) ([]run.Component, error) {
		t.Error("the wiring ran")
		return nil, nil
	}
}

func TestMainWithVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		var stdout, stderr bytes.Buffer
		code := run.MainWith("queuebox-deliver", args, &stdout, &stderr, noWire(t))
		require.Equal(t, 0, code)
		require.Equal(t, "queuebox-deliver "+buildinfo.Version+"\n", stdout.String())
		require.Empty(t, stderr.String())
	}
}

func TestMainWithBadFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--no-such-flag"}, {"--version=maybe"}} {
		var stdout, stderr bytes.Buffer
		code := run.MainWith("queuebox-relay", args, &stdout, &stderr, noWire(t))
		require.Equal(t, 2, code, "args %v", args)
		require.Empty(t, stdout.String())
		require.NotEmpty(t, stderr.String(), "a bad flag is explained")
	}
}
