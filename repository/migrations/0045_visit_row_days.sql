-- What each website's visit rows took a day (docs/filters.md, "What one website may cost a
-- day"): the bytes the flushes wrote into them, counted by the flush in its transaction, so
-- that a website's rows of a day stay within VISIT_ROW_BYTES_PER_DAY however many nodes write
-- them. Deleted with the day's visit rows (FACTS_RETENTION) and with the website.
CREATE TABLE visit_row_days (
    website_id bigint NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    day        date   NOT NULL,
    bytes      bigint NOT NULL CHECK (bytes >= 0),
    PRIMARY KEY (website_id, day)
);
