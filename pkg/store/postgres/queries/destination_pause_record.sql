-- Records one deliver replica's pause of a destination ($1 destination,
-- $2 replica, $3 reason, $4 detail or NULL) lasting $5 ms from now, in
-- place of the replica's earlier pause of it, and deletes the pauses that
-- have ended (of replicas that died or moved on), so the table holds
-- about one row per paused destination and live replica. The delete
-- spares the row the insert replaces: one statement may not change a
-- row twice. $6 is the nullable clock.
WITH ended AS (
    DELETE FROM {{.Pauses}}
    WHERE until_at <= {{template "now" "$6"}}
      AND NOT (destination = $1 AND replica = $2)
)
INSERT INTO {{.Pauses}} (destination, replica, reason, detail, until_at, recorded_at)
VALUES ($1, $2, $3, $4, {{template "now" "$6"}} + $5 * interval '1 millisecond', {{template "now" "$6"}})
ON CONFLICT (destination, replica) DO UPDATE
SET reason = EXCLUDED.reason, detail = EXCLUDED.detail, until_at = EXCLUDED.until_at,
    recorded_at = EXCLUDED.recorded_at
