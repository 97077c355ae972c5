-- Returns push rows whose relay lease expired to pending. Pull rows are
-- left to the pull claim, which takes over expired leases itself.
UPDATE {{.I.Table}}
SET {{.I.State}} = 'pending',
    {{.I.LeaseExpiresAt}} = NULL
WHERE {{.I.State}} = 'processing'
  AND {{.I.Consumption}} = 'push'
  AND {{.I.LeaseExpiresAt}} < now()
