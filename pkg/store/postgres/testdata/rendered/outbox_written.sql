-- Finds the outcomes that an earlier try of the same write committed
-- although its answer never arrived (the session ended after the commit).
-- The fence of a second try then fails on those rows, and they would be
-- taken for claims another replica won. The outcome write keeps the claim
-- token of a sent, retried or deferred row, so such a row that still
-- carries the outcome's token and shows the state (and, for a retry, the
-- reason) that the outcome sets was written by it. A deferral keeps
-- last_error, so its state alone confirms it. A dead mark clears the
-- token and the lease (a final row holds no claim), so a dead row with no
-- token and the outcome's reason confirms it: another owner could only
-- have written the same final state.
SELECT o."ob_id"::text
FROM "qb_outbox" o
JOIN unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS d(id, token, outcome, error)
  ON o."ob_id" = d.id
WHERE (   (d.outcome = 'sent' AND o."ob_state" = 'sent' AND o."ob_claimtoken" = d.token)
       OR (d.outcome = 'dead' AND o."ob_state" = 'dead' AND o."ob_claimtoken" IS NULL
           AND o."ob_lasterror" IS NOT DISTINCT FROM d.error)
       OR (d.outcome = 'retry' AND o."ob_state" = 'pending' AND o."ob_claimtoken" = d.token
           AND o."ob_lasterror" IS NOT DISTINCT FROM d.error)
       OR (d.outcome = 'defer' AND o."ob_state" = 'pending' AND o."ob_claimtoken" = d.token))
