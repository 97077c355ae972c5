-- Serializes relay claims across replicas: without it two claims could
-- each see no processing row of an aggregate and both take one. @p1 is
-- queuebox_inbox_claim_ and the table name; inbox_relay_claim runs after
-- it in the same transaction, whose commit releases it before the
-- forward. T-SQL points: sp_getapplock, owner Transaction, 10 s.
{{template "claim_lock" "@p1"}}
