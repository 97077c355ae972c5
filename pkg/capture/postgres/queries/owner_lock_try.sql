-- Tries the session advisory lock of one identity once: $1 is the lock
-- class ("QBCX"), $2 the identity, hashed into the second key. True when
-- this session holds it now.
SELECT pg_try_advisory_lock($1::int4, hashtext($2));
