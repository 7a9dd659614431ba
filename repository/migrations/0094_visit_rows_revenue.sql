-- The visit rows that carry revenue, by website and day (docs/properties.md, "Storage"): the
-- goals' revenue reads only them, where it read every row of the range (a month of a website
-- of 100,000 visits a day is 3 M rows, of which few carry revenue). Partial, so rows without
-- revenue have no entry and their updates stay HOT.
CREATE INDEX visit_rows_revenue ON visit_rows (website_id, day) WHERE revenue_names IS NOT NULL;
