package postgres

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
)

func TestCheckOffset(t *testing.T) {
	t.Parallel()
	confirmed, current := pglogrepl.LSN(0x1000), pglogrepl.LSN(0x2000)
	tests := []struct {
		name, stored string
		want         pglogrepl.LSN
		fault        bool
	}{
		{"at the slot", "0/1000", 0x1000, false},
		{"between the slot and the server", "0/1800", 0x1800, false},
		{"at the server", "0/2000", 0x2000, false},
		{"behind the slot starts from the slot", "0/800", 0x1000, false},
		{"ahead of the server", "0/2001", 0, true},
		{"the end of the log", "FFFF/FFFFFFFF", 0, true},
		{"not a position", "garbage", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, fault := checkOffset("offsets.dat", tt.stored, confirmed, current)
			if tt.fault {
				require.NotNil(t, fault)
				require.Equal(t, capture.FaultStateCorrupt, fault.Kind)
				require.Contains(t, fault.Error(), "offsets.dat")
				return
			}
			require.Nil(t, fault)
			require.Equal(t, tt.want, got)
		})
	}
}

// TestStartPositionChecksTheSlotAndTheServer runs the check against a slot
// of the local PostgreSQL: a position past the server's WAL is a
// state-corrupt fault and leaves the slot where it was.
func TestStartPositionChecksTheSlotAndTheServer(t *testing.T) {
	t.Parallel()
	schema := pgtest.NewSchema(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, slot := tempSlot(ctx, t, schema)
	s := capture.Settings{Slot: schema.Name, Identity: "test", StateDirectory: t.TempDir()}
	log := slog.New(slog.DiscardHandler)
	confirmedNow := func() string {
		rows, err := queryRows(ctx, rep, slotPositionSQL, s)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		return rows[0][0]
	}
	before := confirmedNow()

	_, err := startPosition(ctx, rep, s, "FFFF/FFFFFFFF", log)
	var fault *capture.Fault
	require.True(t, errors.As(err, &fault), "got %v", err)
	require.Equal(t, capture.FaultStateCorrupt, fault.Kind)
	require.Equal(t, before, confirmedNow(), "the slot did not move")

	start, err := startPosition(ctx, rep, s, "0/1", log)
	require.NoError(t, err)
	require.Equal(t, before, start.String(), "a position behind the slot starts from the slot")

	start, err = startPosition(ctx, rep, s, slot.ConsistentPoint, log)
	require.NoError(t, err)
	require.Equal(t, slot.ConsistentPoint, start.String())

	start, err = startPosition(ctx, rep, s, "", log)
	require.NoError(t, err)
	require.Zero(t, start, "no recorded position starts from the slot's own")

	_, err = startPosition(ctx, rep, capture.Settings{Slot: schema.Name + "_gone"}, "0/1", log)
	require.True(t, errors.As(err, &fault), "got %v", err)
	require.Equal(t, capture.FaultSlotMissing, fault.Kind)
}
