package migrate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/migrate"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	known, err := migrate.LoadFS(files("V1__a.sql", "V2__b.sql", "V3__c.sql", "V4__d.sql"), "db")
	require.NoError(t, err)
	other := known[1].Checksum + 1
	history := []migrate.Applied{
		{Version: 1, Script: "V1__a.sql", Checksum: &known[0].Checksum, Success: true},
		{Version: 2, Script: "V2__b.sql", Checksum: &other, Success: true},
		{Version: 3, Script: "V3__c.sql", Success: false},
		{Version: 7, Script: "V7__newer.sql", Success: true},
	}
	got := migrate.Status(known, history)
	states := map[int]queuebox.MigrationState{}
	for _, s := range got {
		states[s.Version] = s.State
	}
	require.Equal(t, map[int]queuebox.MigrationState{
		1: queuebox.MigrationApplied, 2: queuebox.MigrationMismatch, 3: queuebox.MigrationFailed,
		4: queuebox.MigrationPending, 7: queuebox.MigrationUnknown,
	}, states)
	require.Equal(t, []int{1, 2, 3, 4, 7}, []int{got[0].Version, got[1].Version, got[2].Version, got[3].Version, got[4].Version})
	require.Equal(t, other, *got[1].AppliedChecksum)
	require.Equal(t, known[1].Checksum, *got[1].FileChecksum)
	require.Nil(t, got[3].AppliedChecksum, "a pending version has no recorded checksum")
	require.Nil(t, got[4].FileChecksum, "an unknown version has no bundled file")
}

func TestStatusOfAnEmptyHistory(t *testing.T) {
	t.Parallel()
	known, err := migrate.LoadFS(files("V1__a.sql", "V2__b.sql"), "db")
	require.NoError(t, err)
	for _, s := range migrate.Status(known, nil) {
		require.Equal(t, queuebox.MigrationPending, s.State, "V%d", s.Version)
	}
}
