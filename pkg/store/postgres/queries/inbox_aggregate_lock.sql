-- Takes the lock of each aggregate of the rows about to be stored ($1,
-- one entry per row, NULL where a row has none) until the transaction
-- ends; the insert that follows in the same transaction stamps its rows'
-- created_at after the locks are granted (inbox_insert.sql). So the rows
-- of one aggregate commit in the order of their created_at, whichever
-- source, replica or connection stores them: a row that took its
-- created_at before another row of its aggregate has committed before
-- that row's insert could stamp it. The relay forwards an aggregate in
-- (created_at, id) order and probes a hinted aggregate from its last
-- head (package lanehint); without these locks a row of a slow
-- transaction could commit below that head, and the relay would forward
-- the rows stored after it first. The locks are taken in the order of
-- their hashes, so inserts with overlapping aggregates wait for each
-- other in one order and never in a cycle; every insert takes them
-- before its key locks (inbox_key_lock.sql) and its inserts. Two
-- aggregates that share a hash only wait for each other. The lock space
-- (the first key) keeps them apart from QueueBox's other advisory locks.
SELECT pg_advisory_xact_lock(hashtext('queuebox.inbox.aggregate'), a.h)
FROM (
    SELECT DISTINCT hashtext(u.aggregate_id) AS h
    FROM unnest($1::text[]) AS u(aggregate_id)
    WHERE u.aggregate_id IS NOT NULL
    ORDER BY 1
) AS a
