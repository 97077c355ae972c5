package capture

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStateDirRoundTrip(t *testing.T) {
	t.Parallel()
	d := StateDir{path: filepath.Join(t.TempDir(), "capture")} // created on first write
	empty, err := d.Empty()
	require.NoError(t, err)
	require.True(t, empty)
	id, err := d.ReadIdentity()
	require.NoError(t, err)
	require.Nil(t, id)
	off, err := d.ReadOffset()
	require.NoError(t, err)
	require.Empty(t, off)

	s := testSettings()
	require.NoError(t, d.WriteIdentity("queuebox", "i-1", s))
	require.NoError(t, d.WriteOffset("0/16B3748"))
	require.NoError(t, d.WriteOffset("0/16B3800"))
	id, err = d.ReadIdentity()
	require.NoError(t, err)
	require.Equal(t, &Identity{Name: "queuebox", Instance: "i-1", Settings: settingsMap(s)}, id)
	off, err = d.ReadOffset()
	require.NoError(t, err)
	require.Equal(t, "0/16B3800", off)
	empty, err = d.Empty()
	require.NoError(t, err)
	require.False(t, empty)

	entries, err := os.ReadDir(d.path)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{"identity", "offsets.dat"}, names, "no temp file stays behind")
}

func TestStateDirRefusesAGarbledIdentity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "identity"), []byte("garbage\n"), 0o600))
	_, err := StateDir{path: dir}.ReadIdentity()
	require.ErrorContains(t, err, "holds no identity and instance")
}
