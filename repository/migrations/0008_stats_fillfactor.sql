-- Every flush adds to the rows of the current day, week and month, once a second. With full
-- pages each such UPDATE moved its row to another page and added an entry to the primary key:
-- 34% of the updates were HOT (heap-only) in `make bench-ingest`, the tables and their indexes
-- grew ten times their live size between autovacuums, and the flush took ~540 ms of a core
-- for 14,000 counters. Leaving 30% of each page free lets an update stay on its page (93%
-- HOT, dead versions pruned in place): ~350 ms. Existing pages keep their fill until they are
-- rewritten (VACUUM FULL or pg_repack, at the operator's choice); new pages get the new fill.
ALTER TABLE stats SET (fillfactor = 70);
ALTER TABLE stats_weekly SET (fillfactor = 70);
ALTER TABLE stats_monthly SET (fillfactor = 70);
