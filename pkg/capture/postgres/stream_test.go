package postgres

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/capture"
)

// testSettings are the settings of a default PostgreSQL capture.
func testSettings() capture.Settings {
	return capture.Settings{Identity: "queuebox", Slot: "queuebox_outbox", Publication: "queuebox_outbox",
		Schema: "public", Table: "outbox", Host: "db.internal", Port: 5432, Database: "queuebox", StateDirectory: "/state"}
}

// pgoutput builds the protocol 1 messages the stream decodes.
type pgoutput struct{ b []byte }

func (p *pgoutput) u8(v byte) *pgoutput    { p.b = append(p.b, v); return p }
func (p *pgoutput) u16(v uint16) *pgoutput { p.b = binary.BigEndian.AppendUint16(p.b, v); return p }
func (p *pgoutput) u32(v uint32) *pgoutput { p.b = binary.BigEndian.AppendUint32(p.b, v); return p }
func (p *pgoutput) u64(v uint64) *pgoutput { p.b = binary.BigEndian.AppendUint64(p.b, v); return p }
func (p *pgoutput) str(s string) *pgoutput { p.b = append(append(p.b, s...), 0); return p }

func relation(id uint32, ns, name string) []byte {
	return (&pgoutput{}).u8('R').u32(id).str(ns).str(name).u8('d').u16(1).u8(1).str("id").u32(2950).u32(0xffffffff).b
}
func begin(xid uint32) []byte { return (&pgoutput{}).u8('B').u64(100).u64(0).u32(xid).b }
func commit(end uint64) []byte {
	return (&pgoutput{}).u8('C').u8(0).u64(end - 8).u64(end).u64(0).b
}
func tuple(kind byte, id uint32) []byte {
	return (&pgoutput{}).u8(kind).u32(id).u8('N').u16(1).u8('n').b
}
func remove(id uint32) []byte {
	return (&pgoutput{}).u8('D').u32(id).u8('K').u16(1).u8('n').b
}
func update(id uint32) []byte {
	return (&pgoutput{}).u8('U').u32(id).u8('N').u16(1).u8('n').b
}

func TestStreamWakesOnOutboxInsertsOnly(t *testing.T) {
	t.Parallel()
	var woke []uint32
	st := &stream{s: testSettings(), ours: map[uint32]bool{},
		ev: events{inserted: func(xid uint32, _ time.Time) { woke = append(woke, xid) }}}
	feed := func(msgs ...[]byte) {
		for _, m := range msgs {
			require.NoError(t, st.logical(m))
		}
	}
	feed(relation(1, "public", "outbox"), relation(2, "public", "orders"), relation(3, "other", "outbox"))

	feed(begin(7), tuple('I', 1), tuple('I', 1), tuple('I', 1), commit(1000))
	require.Equal(t, []uint32{7}, woke, "one wake-up per transaction, however many rows, with its xid")
	require.EqualValues(t, 1000, st.processed)

	feed(begin(8), update(1), remove(1), commit(2000))
	require.Equal(t, []uint32{7}, woke, "updates and deletes (QueueBox's own state changes) wake nothing")
	feed(begin(9), tuple('I', 2), tuple('I', 3), commit(3000))
	require.Equal(t, []uint32{7}, woke, "inserts into other tables wake nothing")
	require.EqualValues(t, 3000, st.processed, "the position still advances")

	feed(begin(10), tuple('I', 2), tuple('I', 1), commit(4000))
	require.Equal(t, []uint32{7, 10}, woke)
}

func TestKeepaliveAdvancesOnlyBetweenTransactions(t *testing.T) {
	t.Parallel()
	st := &stream{s: testSettings(), ours: map[uint32]bool{}}
	keepalive := func(end uint64) []byte { return (&pgoutput{}).u8('k').u64(end).u64(0).u8(0).b }
	_, err := st.copyData(keepalive(500))
	require.NoError(t, err)
	require.EqualValues(t, 500, st.processed)
	require.NoError(t, st.logical(begin(7)))
	_, err = st.copyData(keepalive(900))
	require.NoError(t, err)
	require.EqualValues(t, 500, st.processed, "inside a transaction the position waits for its commit")
	require.EqualValues(t, 900, st.serverEnd)
}
