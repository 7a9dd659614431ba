-- The visitor-days of several visits of one closed day of one website (docs/big-sites.md):
-- the day numbers (visit_rows.visitor) that have more than one visit row that day. A query
-- that counts visitors needs them for its whole range, and grouping a month of a big website's
-- rows for them cost a second a query; a closed day (no flush writes it any more) keeps them
-- here, written by the first query that needs them, derived from visit_rows alone (delete the
-- rows and the next query writes them again). They go with the day's rows (FACTS_RETENTION,
-- a deletion of days, the website).
CREATE TABLE visit_row_repeats (
    website_id bigint    NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    day        date      NOT NULL,
    visitors   integer[] NOT NULL,
    PRIMARY KEY (website_id, day)
);
