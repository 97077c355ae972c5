-- Returns push rows whose relay lease expired to pending, counting an
-- attempt, or marks them dead once that attempt reaches @p2
-- (inbox.relay.maxAttempts; 0 never); the twin of the PostgreSQL
-- inbox_relay_reclaim.sql. Pull rows are left to the pull claim. A row
-- another statement holds is skipped (READPAST).
--
-- T-SQL points: WITH (UPDLOCK, READPAST, ROWLOCK); string concatenation
-- with CONCAT; @p1 is the nullable clock.
UPDATE i
SET {{.I.State}} = CASE WHEN @p2 > 0 AND i.{{.I.Attempt}} + 1 >= @p2 THEN 'dead' ELSE 'pending' END,
    {{.I.Attempt}} = i.{{.I.Attempt}} + 1,
    {{.I.LastError}} = CASE WHEN @p2 > 0 AND i.{{.I.Attempt}} + 1 >= @p2
        THEN CONCAT(N'The relay claim of this row expired ', i.{{.I.Attempt}} + 1, N' times (inbox.relay.maxAttempts is ', @p2, N'): no relay finished it, so it no longer holds back its aggregate')
        ELSE i.{{.I.LastError}} END,
    {{.I.ClaimToken}} = CASE WHEN @p2 > 0 AND i.{{.I.Attempt}} + 1 >= @p2 THEN NULL ELSE i.{{.I.ClaimToken}} END,
    {{.I.LeaseExpiresAt}} = NULL
FROM {{.I.Table}} AS i WITH (UPDLOCK, READPAST, ROWLOCK)
WHERE i.{{.I.State}} = 'processing'
  AND i.{{.I.Consumption}} = 'push'
  AND i.{{.I.LeaseExpiresAt}} < {{template "now" "@p1"}}
