-- Serializes outbox claims across replicas (03_Claims_and_leases.md: the
-- SQL Server outbox poller takes the exclusive application lock
-- queuebox_outbox_claim_<table>). @p1 is that resource name. It runs in
-- the claim's transaction, before outbox_claim, and the claim's commit
-- releases it. T-SQL points: sp_getapplock, owner Transaction, 10 s.
{{template "claim_lock" "@p1"}}
