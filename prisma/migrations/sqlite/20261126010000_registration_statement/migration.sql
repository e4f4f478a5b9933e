-- Nothing to do on SQLite: PostgreSQL stores a registration through a function of this name
-- (one round trip); SQLite runs the same steps as a unit on its writer thread, in process.
SELECT 1;
