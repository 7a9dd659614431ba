-- What each collecting node may still write into the visit rows (docs/big-sites.md, "Closed
-- days"): written by its flushes, in the transaction of the rows they carry. oldest is the
-- earliest day (in its website's zone) of the node's open visits, NULL when none is open;
-- flushed_at is the node's clock at that flush. After it, the node writes only rows of oldest
-- or later, or of a day that starts after flushed_at, so a day before every live node's bound
-- gets no more rows: it is closed, and the column store and the kept values may take it. A
-- node that stops deletes its row; a row older than a day is ignored (a node that died).
-- No website_id: a reference table, like websites (docs/scaling.md).
CREATE TABLE node_open_days (
    node       text PRIMARY KEY,
    oldest     date,
    flushed_at timestamptz NOT NULL
);
