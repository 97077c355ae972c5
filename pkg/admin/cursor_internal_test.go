package admin

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

func rawCursor(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

// A cursor whose shape is not the table's is a 400 naming the parameter:
// an outbox cursor on the inbox list used to reach the store with an
// empty row id and answer 500.
func TestDecodeCursorChecksTheShapeOfTheTable(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 9, 24, 8, 0, 0, 0, time.UTC)
	inbox := encodeCursor(queuebox.Cursor{CreatedAt: at, ID: "00000000-0000-0000-0000-00000000000a"})
	outbox := encodeCursor(queuebox.Cursor{Sequence: 5, ID: "00000000-0000-0000-0000-00000000000b"})
	tests := []struct {
		name   string
		text   string
		table  queuebox.Table
		wantOK bool
	}{
		{"outbox cursor on the outbox", outbox, queuebox.TableOutbox, true},
		{"inbox cursor on the inbox", inbox, queuebox.TableInbox, true},
		{"outbox cursor on the inbox", outbox, queuebox.TableInbox, false},
		{"inbox cursor on the outbox", inbox, queuebox.TableOutbox, false},
		{"sequence and time", rawCursor(`{"s":5,"t":"2026-09-24T08:00:00Z","i":"00000000-0000-0000-0000-00000000000a"}`), queuebox.TableInbox, false},
		{"time without id", rawCursor(`{"t":"2026-09-24T08:00:00Z"}`), queuebox.TableInbox, false},
		{"id that is no uuid", rawCursor(`{"t":"2026-09-24T08:00:00Z","i":"x"}`), queuebox.TableInbox, false},
		{"outbox cursor of before lanes, no id", rawCursor(`{"s":5}`), queuebox.TableOutbox, true},
		{"outbox id that is no uuid", rawCursor(`{"s":5,"i":"x"}`), queuebox.TableOutbox, false},
		{"negative sequence", rawCursor(`{"s":-5}`), queuebox.TableOutbox, false},
		{"unknown field", rawCursor(`{"s":5,"x":1}`), queuebox.TableOutbox, false},
		{"trailing value", rawCursor(`{"s":5}{"s":6}`), queuebox.TableOutbox, false},
		{"not base64", "!!", queuebox.TableOutbox, false},
		{"empty object", rawCursor(`{}`), queuebox.TableOutbox, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := decodeCursor(tt.text, tt.table)
			if tt.wantOK {
				require.NoError(t, err)
				return
			}
			var invalid invalidRequest
			require.True(t, errors.As(err, &invalid), "%v", err)
			require.Contains(t, err.Error(), "cursor: not a cursor of a previous "+string(tt.table)+" page")
		})
	}
}

// FuzzDecodeCursor: any text either fails as a 400 naming the parameter
// or gives a cursor of the table's shape that encodes and decodes to
// itself.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(rawCursor(`{"s":5}`), true)
	f.Add(rawCursor(`{"t":"2026-09-24T08:00:00Z","i":"00000000-0000-0000-0000-00000000000a"}`), false)
	f.Add("eyJzIjo1fQ", false)
	f.Add("", true)
	f.Fuzz(func(t *testing.T, text string, outbox bool) {
		table := queuebox.TableInbox
		if outbox {
			table = queuebox.TableOutbox
		}
		cur, err := decodeCursor(text, table)
		if err != nil {
			var invalid invalidRequest
			if !errors.As(err, &invalid) {
				t.Fatalf("%q: %v is not a 400", text, err)
			}
			return
		}
		if !cursorFits(cur, table) {
			t.Fatalf("%q decoded to %+v, not a %s cursor", text, cur, table)
		}
		again, err := decodeCursor(encodeCursor(cur), table)
		if err != nil || !again.CreatedAt.Equal(cur.CreatedAt) || again.Sequence != cur.Sequence || again.ID != cur.ID {
			t.Fatalf("%+v did not survive encoding: %+v, %v", cur, again, err)
		}
	})
}
