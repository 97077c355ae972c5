-- Whether the publication exists. It runs on the replication connection,
-- which speaks only the simple query protocol: values are quoted literals.
SELECT pubname FROM pg_publication WHERE pubname = {{literal .Publication}};
