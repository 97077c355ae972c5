-- Serializes relay claims across replicas: without it two claims could
-- each see no processing row of an aggregate and both take one. A
-- transaction lock keyed on the inbox table name ($1 is
-- queuebox_inbox_claim_ and the table name): inbox_relay_claim runs after
-- it in the same transaction, and the commit of the claim releases it,
-- before the forward.
SELECT pg_advisory_xact_lock(hashtext($1))
