package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/alternayte/queuebox/pkg/capture"
)

// statusInterval is how often the stream records its position and sends
// standby status, so the slot advances and the server releases WAL.
const statusInterval = time.Second

// connectReplication opens the replication connection to the capture
// host.
func connectReplication(ctx context.Context, s capture.Settings) (*pgconn.PgConn, error) {
	conn, err := pgconn.Connect(ctx, s.CaptureConn+" replication=database application_name=queuebox-capture")
	if err != nil {
		return nil, fmt.Errorf("connect the replication stream to %s: %w", s.DisplayURL, err)
	}
	return conn, nil
}

// queryRows runs the statement text, rendered for s, as one simple query
// and returns its text rows.
func queryRows(ctx context.Context, conn *pgconn.PgConn, text string, s capture.Settings) ([][]string, error) {
	sql, err := replicationQuery(text, s)
	if err != nil {
		return nil, err
	}
	results, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, r := range results {
		for _, row := range r.Rows {
			cols := make([]string, len(row))
			for i, c := range row {
				cols[i] = string(c)
			}
			rows = append(rows, cols)
		}
	}
	return rows, nil
}

// checkPublication returns a fault when the publication is absent or does
// not hold the outbox table.
func checkPublication(ctx context.Context, conn *pgconn.PgConn, s capture.Settings) error {
	rows, err := queryRows(ctx, conn, publicationFindSQL, s)
	if err != nil {
		return fmt.Errorf("read the publication: %w", err)
	}
	if len(rows) == 0 {
		return &capture.Fault{Kind: capture.FaultPublicationMissing, Detail: fmt.Sprintf(
			"the publication %s does not exist in database %s", quote(s.Publication), quote(s.Database))}
	}
	rows, err = queryRows(ctx, conn, publicationTableFindSQL, s)
	if err != nil {
		return fmt.Errorf("read the publication tables: %w", err)
	}
	if len(rows) == 0 {
		return &capture.Fault{Kind: capture.FaultPublicationMissing, Detail: fmt.Sprintf(
			"the publication %s does not publish the outbox table %s.%s", quote(s.Publication), s.Schema, s.Table)}
	}
	return nil
}

// slotInfo says whether the slot exists in this database; a slot of that
// name in another database, or of another plugin, is an error.
func slotInfo(ctx context.Context, conn *pgconn.PgConn, s capture.Settings) (bool, error) {
	rows, err := queryRows(ctx, conn, slotFindSQL, s)
	if err != nil {
		return false, fmt.Errorf("read the replication slot: %w", err)
	}
	if len(rows) == 0 {
		return false, nil
	}
	if rows[0][0] != s.Database || rows[0][1] != "pgoutput" {
		return false, fmt.Errorf("the replication slot %s belongs to database %s with plugin %s, not to %s with pgoutput; choose another outbox.capture.slot",
			quote(s.Slot), quote(rows[0][0]), quote(rows[0][1]), quote(s.Database))
	}
	return true, nil
}

// createSlot creates the slot (never temporary: QueueBox never drops it)
// and returns its consistent point.
func createSlot(ctx context.Context, conn *pgconn.PgConn, slot string) (pglogrepl.LSN, error) {
	res, err := pglogrepl.CreateReplicationSlot(ctx, conn, slot, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Mode: pglogrepl.LogicalReplication, SnapshotAction: "NOEXPORT_SNAPSHOT"})
	if err != nil {
		return 0, fmt.Errorf("create the replication slot %s: %w", quote(slot), err)
	}
	lsn, err := pglogrepl.ParseLSN(res.ConsistentPoint)
	if err != nil {
		return 0, fmt.Errorf("create the replication slot %s: %w", quote(slot), err)
	}
	return lsn, nil
}

// events receive what the stream sees. They run on the stream goroutine.
type events struct {
	// inserted is called once per committed transaction that inserted
	// into the outbox table, with its transaction id and commit time. The
	// commit may not be visible to other sessions yet.
	inserted func(xid uint32, commit time.Time)
	// positions reports the confirmed position and the server's WAL end
	// after each standby status.
	positions func(confirmed, serverEnd pglogrepl.LSN)
	// persist records a position before the server is told of it.
	persist func(pglogrepl.LSN) error
	// streaming is called once the stream started.
	streaming func()
}

// stream decodes pgoutput from start until ctx ends (nil) or the stream
// fails. Only inserts into the outbox table wake; updates, deletes and
// other tables are skipped.
type stream struct {
	conn      *pgconn.PgConn
	s         capture.Settings
	ev        events
	ours      map[uint32]bool
	inTx      bool
	txInserts bool
	xid       uint32
	processed pglogrepl.LSN
	confirmed pglogrepl.LSN
	serverEnd pglogrepl.LSN
}

func runStream(ctx context.Context, conn *pgconn.PgConn, s capture.Settings, start pglogrepl.LSN, ev events) error {
	err := pglogrepl.StartReplication(ctx, conn, s.Slot, start, pglogrepl.StartReplicationOptions{
		Mode:       pglogrepl.LogicalReplication,
		PluginArgs: []string{"proto_version '1'", "publication_names " + literal(s.Publication)},
	})
	if err != nil {
		return fmt.Errorf("start replication on slot %s: %w", quote(s.Slot), err)
	}
	if ev.streaming != nil {
		ev.streaming()
	}
	st := &stream{conn: conn, s: s, ev: ev, ours: map[uint32]bool{}, processed: start, confirmed: start}
	return st.loop(ctx)
}

func (st *stream) loop(ctx context.Context) error {
	next := time.Now()
	for {
		if !time.Now().Before(next) {
			if err := st.status(ctx); err != nil {
				return err
			}
			next = time.Now().Add(statusInterval)
		}
		rctx, cancel := context.WithDeadline(ctx, next)
		msg, err := st.conn.ReceiveMessage(rctx)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if pgconn.Timeout(err) {
				continue
			}
			return fmt.Errorf("receive from the replication stream: %w", err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("replication stream: %w", pgconn.ErrorResponseToPgError(m))
		case *pgproto3.CopyData:
			reply, err := st.copyData(m.Data)
			if err != nil {
				return err
			}
			if reply {
				next = time.Now()
			}
		}
	}
}

// copyData handles one message; reply says the server asked for status.
func (st *stream) copyData(data []byte) (reply bool, err error) {
	if len(data) == 0 {
		return false, nil
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		k, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return false, fmt.Errorf("parse a keepalive: %w", err)
		}
		st.serverEnd = max(st.serverEnd, k.ServerWALEnd)
		// Between transactions, nothing before the server's end is ours
		// to handle: confirming it lets the slot follow other tables' WAL.
		if !st.inTx {
			st.processed = max(st.processed, k.ServerWALEnd)
		}
		return k.ReplyRequested, nil
	case pglogrepl.XLogDataByteID:
		x, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return false, fmt.Errorf("parse WAL data: %w", err)
		}
		st.serverEnd = max(st.serverEnd, x.ServerWALEnd)
		return false, st.logical(x.WALData)
	}
	return false, nil
}

func (st *stream) logical(wal []byte) error {
	msg, err := pglogrepl.Parse(wal)
	if err != nil {
		return fmt.Errorf("decode pgoutput: %w", err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		st.ours[m.RelationID] = m.Namespace == st.s.Schema && m.RelationName == st.s.Table
	case *pglogrepl.BeginMessage:
		st.inTx, st.txInserts, st.xid = true, false, m.Xid
	case *pglogrepl.InsertMessage:
		if st.ours[m.RelationID] {
			st.txInserts = true
		}
	case *pglogrepl.CommitMessage:
		st.inTx = false
		if st.txInserts && st.ev.inserted != nil {
			// Once per transaction; the notifier waits until the
			// commit is visible to a claim.
			st.ev.inserted(st.xid, m.CommitTime)
		}
		st.processed = max(st.processed, m.TransactionEndLSN)
	}
	return nil
}

// status records the processed position, then tells the server, asking
// for a reply so the server's WAL end (the lag) stays current.
func (st *stream) status(ctx context.Context) error {
	if st.processed > st.confirmed && st.ev.persist != nil {
		if err := st.ev.persist(st.processed); err != nil {
			return err
		}
	}
	err := pglogrepl.SendStandbyStatusUpdate(ctx, st.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: st.processed, ReplyRequested: true})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("send standby status: %w", err)
	}
	st.confirmed = st.processed
	if st.ev.positions != nil {
		st.ev.positions(st.confirmed, st.serverEnd)
	}
	return nil
}
