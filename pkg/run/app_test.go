package run_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/buildinfo"
	"github.com/alternayte/queuebox/pkg/run"
)

func noWire(t *testing.T, name string, roles ...string) run.Binary {
	return run.Binary{Name: name, Roles: roles, About: name + " runs " + strings.Join(roles, " and ") + ".",
		Wire: func(context.Context, *run.App) ([]run.Component, error) {
			t.Error("the wiring ran")
			return nil, nil
		}}
}

func TestMainWithVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		var stdout, stderr bytes.Buffer
		code := run.MainWith(noWire(t, "queuebox-deliver", "deliver"), args, &stdout, &stderr)
		require.Equal(t, 0, code)
		require.Equal(t, "queuebox-deliver "+buildinfo.Version+"\nroles: deliver\n", stdout.String())
		require.Empty(t, stderr.String())
	}
}

func TestMainWithBadFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--no-such-flag"}, {"--version=maybe"}} {
		var stdout, stderr bytes.Buffer
		code := run.MainWith(noWire(t, "queuebox-relay", "relay"), args, &stdout, &stderr)
		require.Equal(t, 2, code, "args %v", args)
		require.Empty(t, stdout.String())
		require.True(t, strings.HasPrefix(stderr.String(), "queuebox-relay: "), "a bad flag is explained after the name: %q", stderr.String())
		require.Contains(t, stderr.String(), "run queuebox-relay --help for the flags")
	}
}

// --help says what the binary runs, lists its roles and its flags, and
// exits 0 without wiring anything.
func TestMainWithHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}} {
		var stdout, stderr bytes.Buffer
		code := run.MainWith(noWire(t, "queuebox", "ingest", "relay"), args, &stdout, &stderr)
		require.Equal(t, 0, code)
		require.Contains(t, stdout.String(), "queuebox runs ingest and relay.")
		require.Contains(t, stdout.String(), "Roles: ingest, relay")
		require.Contains(t, stdout.String(), "-version")
		require.Empty(t, stderr.String())
	}
}
