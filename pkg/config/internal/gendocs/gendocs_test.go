package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot is the repository root as seen from this package's folder.
const repoRoot = "../../../.."

// The committed reference, JSON Schema and Helm values schema are what the
// key table generates today.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	files, err := generate(repoRoot)
	require.NoError(t, err)
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(repoRoot, name))
		require.NoError(t, err, "%s is missing: run `make docs` and commit the result", name)
		require.Equal(t, string(want), string(got), "%s differs from what the configuration key table generates: run `make docs` and commit the result", name)
	}
}
