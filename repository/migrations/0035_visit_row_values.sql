-- The distinct values of one column of visit_rows (or of its pages, or its event names) on one
-- day of one website, for the query API's matches filters (docs/query.md): their patterns are
-- matched in Go against the values of the range, and reading a few rows a day from here is
-- cheaper than reading every visit of the range. A day's values are written when a query
-- first needs them, once no flush writes that day any more; they hold values only, as the daily
-- counters do (values, never a visitor), and go once the day's rows are gone (FACTS_RETENTION).
CREATE TABLE visit_row_values (
    website_id bigint NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    name       text   NOT NULL, -- the query API's dimension, e.g. event:page
    day        date   NOT NULL,
    vals       text[] NOT NULL,
    PRIMARY KEY (website_id, name, day)
);
