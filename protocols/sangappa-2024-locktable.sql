-- slicelab: the lock-table workload of protocols/sangappa-2024-locktable.json.
-- Every client takes the same table lock in SHARE mode in a short transaction.
-- SHARE is too strong for PostgreSQL's per-backend fast-path locks, so every
-- LOCK TABLE goes through the shared lock table: all clients contend for one
-- lock-manager partition (an LWLock), the kind of short critical section the
-- time-slice extension is meant to protect. SHARE locks do not conflict with
-- each other, so nobody waits for a transaction, only for the lock table.
BEGIN;
LOCK TABLE slicelab_locktable IN SHARE MODE;
SELECT 1;
END;
