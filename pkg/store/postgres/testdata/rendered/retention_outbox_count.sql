-- Deletes up to $3 rows of state $1 beyond the newest $2 of that state.
DELETE FROM "qb_outbox"
WHERE "ob_id" IN (
    SELECT "ob_id" FROM "qb_outbox"
    WHERE "ob_state" = $1
    ORDER BY "ob_updatedat" DESC, "ob_id" DESC
    OFFSET $2
    LIMIT $3)
