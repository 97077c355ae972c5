package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/alternayte/queuebox/pkg/capture"
)

// offsetsFile is the file of the state directory that holds the recorded
// position (capture.StateDir); a report names it.
const offsetsFile = "offsets.dat"

// startPosition returns where the stream starts: the position of
// offsets.dat (stored) once it is checked against the slot and the
// server, or 0 (the slot's own position) when none was recorded. A stored
// position that does not parse, or that lies ahead of the server's current
// WAL position, is a FaultStateCorrupt: streaming from it would confirm a
// position the server has not reached, and the slot would skip every
// change to come. A position behind the slot's confirmed one starts from
// the slot's, which is where the server would start anyway.
func startPosition(ctx context.Context, conn *pgconn.PgConn, s capture.Settings, stored string, log *slog.Logger) (pglogrepl.LSN, error) {
	if stored == "" {
		return 0, nil
	}
	rows, err := queryRows(ctx, conn, slotPositionSQL, s)
	if err != nil {
		return 0, fmt.Errorf("read the position of the replication slot: %w", err)
	}
	if len(rows) == 0 {
		return 0, &capture.Fault{Kind: capture.FaultSlotMissing, Detail: fmt.Sprintf(
			"the replication slot %s is gone while the state of identity %s remains (position %s)",
			quote(s.Slot), quote(s.Identity), stored)}
	}
	confirmed, err := pglogrepl.ParseLSN(rows[0][0])
	if err != nil {
		// A logical slot always has a confirmed position; read none as
		// the start of the log.
		confirmed = 0
	}
	current, err := pglogrepl.ParseLSN(rows[0][1])
	if err != nil {
		return 0, fmt.Errorf("read the current WAL position: %w", err)
	}
	start, fault := checkOffset(filepath.Join(s.StateDirectory, offsetsFile), stored, confirmed, current)
	if fault != nil {
		return 0, fault
	}
	if start != 0 && start.String() != stored {
		log.Warn("offsets.dat is behind the replication slot; streaming from the slot's position",
			"slot", s.Slot, "stored", stored, "from", start.String())
	}
	return start, nil
}

// checkOffset decides on the stored position (file names offsets.dat in
// the report): the stored position, the slot's confirmed position when
// stored is behind it, or the fault. It is pure.
func checkOffset(file, stored string, confirmed, current pglogrepl.LSN) (pglogrepl.LSN, *capture.Fault) {
	pos, err := pglogrepl.ParseLSN(stored)
	if err != nil {
		return 0, &capture.Fault{Kind: capture.FaultStateCorrupt, Detail: fmt.Sprintf(
			"%s holds %q, which is not a WAL position", file, stored)}
	}
	if pos > current {
		return 0, &capture.Fault{Kind: capture.FaultStateCorrupt, Detail: fmt.Sprintf(
			"%s holds position %s, ahead of the server's current WAL position %s: the file was changed or belongs to another server; the slot was not moved (its confirmed position is %s)",
			file, pos, current, confirmed)}
	}
	return max(pos, confirmed), nil
}
