-- Whether change data capture is enabled on the current database.
SELECT CAST(is_cdc_enabled AS INT) FROM sys.databases WHERE name = DB_NAME();
