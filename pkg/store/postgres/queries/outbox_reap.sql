-- Returns processing rows whose lease expired to pending. The next claim
-- takes them under a new token; the old owner's fence then fails.
UPDATE {{.O.Table}}
SET {{.O.State}} = 'pending',
    {{.O.LeaseExpiresAt}} = NULL,
    {{.O.UpdatedAt}} = now()
WHERE {{.O.State}} = 'processing'
  AND {{.O.LeaseExpiresAt}} < now()
