package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/store/postgres"
)

// The walk of the lanes finds the head of every lane, whatever the
// lanes' layout, whichever of them carry a hint and wherever the cursor
// stands: the cursor orders the lanes, the hints say where a probe
// starts, and neither may hide a lane from a claim with room for all.
// Each case draws keys with one to three destinations, a few sent rows
// before each lane's pending ones, hints at a sent row or at the head of
// a random subset of the lanes, and a cursor on a lane, on a key's mark
// before its lanes, between two lanes of a key, or at the start.
func TestLaneWalkFindsEveryHeadFromAnyCursorAndHints(t *testing.T) {
	t.Parallel()
	db, l := boundSchema(t)
	stmts := map[string]string{}
	for _, keyedFirst := range []bool{true, false} {
		s, err := postgres.RenderClaim("outbox_claim", l, keyedFirst)
		require.NoError(t, err)
		stmts[fmt.Sprintf("keyed first %v", keyedFirst)] = s
	}
	rng := rand.New(rand.NewPCG(42, 7))
	for i := range 40 {
		c := drawWalkCase(rng)
		exec(t, db, `TRUNCATE outbox`)
		heads := c.insert(t, db)
		for name, stmt := range stmts {
			got := claimIDsRolledBack(t, db, stmt, c.args())
			require.ElementsMatch(t, heads, got, "case %d (%s): %s", i, name, c)
		}
	}
}

// walkCase is one drawn layout: lanes (key, destination) with sent and
// pending rows, the hinted lanes and the cursor.
type walkCase struct {
	lanes          [][2]string
	sent, pending  []int
	hinted         []bool
	hintAtSent     []bool
	cursorK, cursD string
	// filled by insert: the hints' sequences
	hk, hd []string
	hs     []int64
}

func drawWalkCase(rng *rand.Rand) *walkCase {
	c := &walkCase{}
	keys := 1 + rng.IntN(4)
	for k := range keys {
		for d := range 1 + rng.IntN(3) {
			c.lanes = append(c.lanes, [2]string{fmt.Sprintf("k-%d", k), fmt.Sprintf("d-%d", d*2)})
			c.sent = append(c.sent, rng.IntN(3))
			c.pending = append(c.pending, 1+rng.IntN(3))
			c.hinted = append(c.hinted, rng.IntN(2) == 0)
			c.hintAtSent = append(c.hintAtSent, rng.IntN(2) == 0)
		}
	}
	lane := c.lanes[rng.IntN(len(c.lanes))]
	switch rng.IntN(4) {
	case 0: // at the start
	case 1:
		c.cursorK, c.cursD = lane[0], lane[1]
	case 2: // the mark of a key, before its lanes
		c.cursorK = lane[0]
	case 3: // between two destinations of a key (d-1 sorts between d-0 and d-2)
		c.cursorK, c.cursD = lane[0], "d-1"
	}
	return c
}

// insert writes the case's rows, one lane after another in turn as
// several writers leave them (each lane's sent rows first), and returns
// the ids of the lanes' heads; it sets the hints.
func (c *walkCase) insert(t *testing.T, db *postgres.DB) []string {
	t.Helper()
	seqs := make([][]int64, len(c.lanes))
	var heads []string
	for left := true; left; {
		left = false
		for i, lane := range c.lanes {
			n := len(seqs[i])
			if n == c.sent[i]+c.pending[i] {
				continue
			}
			left = true
			state := "pending"
			if n < c.sent[i] {
				state = "sent"
			}
			var id string
			var seq int64
			require.NoError(t, db.Pool.QueryRow(context.Background(), `INSERT INTO outbox (topic, key, payload, destination, state)
				VALUES ('t', $1, '{}', $2, $3) RETURNING id::text, sequence`, lane[0], lane[1], state).Scan(&id, &seq))
			if n == c.sent[i] {
				heads = append(heads, id)
			}
			seqs[i] = append(seqs[i], seq)
		}
	}
	for i, lane := range c.lanes {
		if !c.hinted[i] {
			continue
		}
		place := seqs[i][c.sent[i]] // the head
		if c.hintAtSent[i] && c.sent[i] > 0 {
			place = seqs[i][0]
		}
		c.hk, c.hd, c.hs = append(c.hk, lane[0]), append(c.hd, lane[1]), append(c.hs, place)
	}
	exec(t, db, `ANALYZE outbox`)
	return heads
}

func (c *walkCase) args() []any {
	var hk, hd any = c.hk, c.hd
	var hs any = c.hs
	if len(c.hk) == 0 {
		hk, hd, hs = nil, nil, nil
	}
	return []any{100, c.cursorK, 60_000, nil, c.cursD, nil, hk, hd, hs, int64(0), nil}
}

func (c *walkCase) String() string {
	return fmt.Sprintf("lanes %v sent %v pending %v hinted %v at sent %v cursor (%q, %q)",
		c.lanes, c.sent, c.pending, c.hinted, c.hintAtSent, c.cursorK, c.cursD)
}

// claimIDsRolledBack runs a claim in a transaction begun as the store
// begins it, returns the ids it claimed and rolls it back.
func claimIDsRolledBack(t *testing.T, db *postgres.DB, stmt string, args []any) []string {
	t.Helper()
	var ids []string
	inRolledBackTx(t, db, postgres.ClaimBegin, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, stmt, args...)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
			vals, err := row.Values()
			if err != nil {
				return "", err
			}
			return vals[0].(string), nil
		})
		return err
	})
	return ids
}
