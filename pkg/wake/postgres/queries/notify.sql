-- Sends one empty notification on channel $1. pg_notify takes the channel
-- as a parameter, so no SQL is built from text.
SELECT pg_notify($1, '');
