package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/buildinfo"
	"github.com/alternayte/queuebox/services/internal/cli"
)

// name is the executable's name, as the command line prints it.
const name = "queuebox"

// The binary wires every role, in the order --version prints them; the
// commands themselves are tested in services/internal/cli.
func TestVersionListsEveryRoleInWiringOrder(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, cli.Main(roles, []string{"--version"}, &stdout, &stderr), stderr.String())
	require.Equal(t, name+" "+buildinfo.Version+"\nroles: ingest,relay,deliver,capture\n", stdout.String())
	require.Empty(t, stderr.String())
}
