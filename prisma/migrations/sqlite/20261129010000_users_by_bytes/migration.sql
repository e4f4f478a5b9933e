-- Nothing to do: SQLite's User primary key already sorts userIds by their bytes (BINARY), which is
-- what a search of userIds by prefix reads (PostgreSQL gets an index for it in this migration).
SELECT 1;
