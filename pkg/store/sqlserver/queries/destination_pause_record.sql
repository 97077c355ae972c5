-- Records one deliver replica's pause of a destination (@p1 destination,
-- @p2 replica, @p3 reason, @p4 detail or NULL) lasting @p5 ms from now,
-- in place of the replica's earlier pause of it, and deletes the pauses
-- that have ended; the twin of the PostgreSQL
-- destination_pause_record.sql.
--
-- T-SQL points: MERGE WITH (HOLDLOCK) in place of INSERT ... ON
-- CONFLICT: the key range lock keeps two writers of one key from both
-- inserting. The delete is a statement of its own in the same batch,
-- before the MERGE, and spares the row the MERGE replaces. The end
-- through DATEADD (the "after" partial). @p6 is the nullable clock.
DELETE FROM {{.Pauses}}
WHERE until_at <= {{template "now" "@p6"}}
  AND NOT (destination = @p1 AND replica = @p2);
MERGE {{.Pauses}} WITH (HOLDLOCK) AS p
USING (SELECT @p1 AS destination, @p2 AS replica) AS s
ON p.destination = s.destination AND p.replica = s.replica
WHEN MATCHED THEN
    UPDATE SET reason = @p3, detail = @p4, until_at = {{template "after" args "Ms" "@p5" "Now" "@p6"}},
        recorded_at = {{template "now" "@p6"}}
WHEN NOT MATCHED THEN
    INSERT (destination, replica, reason, detail, until_at, recorded_at)
    VALUES (@p1, @p2, @p3, @p4, {{template "after" args "Ms" "@p5" "Now" "@p6"}}, {{template "now" "@p6"}});
