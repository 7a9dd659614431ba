-- Custom properties and revenue (docs/properties.md), kept with the visit's row for filters so
-- that property_filter and the goals' revenue read the rows they already read.
--
-- props: one element per property a hit carried, 'KEY' || chr(31) || 'VALUE' (a key holds no
-- chr(31): the collector writes it as a space), in the order they came; a visit keeps at most
-- 64 distinct pairs. revenue_*: one element each per event that carried revenue, aligned: the
-- event's name as sent, the currency (three capitals) and the amount, exact. NULL when none,
-- as most visits have: an empty array costs 13 bytes a column and row, NULL a bit.
ALTER TABLE visit_rows
    ADD COLUMN props              text[],
    ADD COLUMN revenue_names      text[],
    ADD COLUMN revenue_currencies text[],
    ADD COLUMN revenue_amounts    numeric[];

-- The keys a website's hits carried on a day, with how many distinct values each holds, and
-- those values: what the flush reads to keep a day within 300 keys and MAX_VALUES_PER_DAY
-- values a key (later ones are written as '(other)'). Deleted with the day's visit rows
-- (FACTS_RETENTION). Keyed by website first, like every table of a website's data.
CREATE TABLE property_keys (
    website_id  bigint  NOT NULL,
    day         date    NOT NULL,
    key         text    NOT NULL,
    value_count integer NOT NULL CHECK (value_count >= 0),
    PRIMARY KEY (website_id, day, key)
);

CREATE TABLE property_values (
    website_id bigint NOT NULL,
    day        date   NOT NULL,
    key        text   NOT NULL,
    value      text   NOT NULL,
    PRIMARY KEY (website_id, day, key, value)
);
