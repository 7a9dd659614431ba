-- The weekly and monthly rollups are written for ended periods only. Until now every flush
-- added each counter to its day's, week's and month's rows: three upserts where one is read at
-- once, two thirds of the flush's PostgreSQL time (make bench-ingest: ~350 ms of a core a
-- second for 14,000 counters, ~155 ms for the daily rows alone). Ranges that end today never
-- read the current week or month from a rollup (it is not whole inside them), so nothing needs
-- those rows before the period ends.
--
-- The invariant: for every week up to weeks_through and every month up to months_through, the
-- rollup rows equal the sums of the daily rows. Reads use a rollup only up to these dates. A
-- flush adds to the rollups only the counters of periods up to them (a late flush after a
-- period ended), holding this row FOR KEY SHARE; Repository.RollUp takes it FOR UPDATE, writes
-- the rollups of the periods that ended since from the daily rows, and moves the dates on.
--
-- Until now the rollups were whole for every period: all up to last week and last month count
-- as rolled up. The current ones are rebuilt from the days when they end.
CREATE TABLE rollup_state (
    id             boolean PRIMARY KEY DEFAULT true CHECK (id),
    weeks_through  date NOT NULL CHECK (extract(isodow FROM weeks_through) = 1),
    months_through date NOT NULL CHECK (extract(day FROM months_through) = 1)
);

INSERT INTO rollup_state (weeks_through, months_through)
VALUES (date_trunc('week', current_date)::date - 7, (date_trunc('month', current_date) - interval '1 month')::date);
