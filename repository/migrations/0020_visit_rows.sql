-- Filters (docs/filters.md): one row per visit, written by the same flush
-- as the counters, in the same transaction. A row holds the visit's values, never a visitor key,
-- an address or a user agent: `visitor` is section 9's day number (32 bits of the visitor key of
-- the visit's day, which cannot be recomputed once that day's salt is deleted) and times are
-- truncated to the hour. Keyed by website first (a distributed PostgreSQL could shard on it) and
-- partitioned by day, so that FACTS_RETENTION drops whole partitions and a closed day can be
-- rewritten in key order (CLUSTER), each website's rows together.
CREATE TABLE visit_rows (
    website_id        bigint   NOT NULL,
    day               date     NOT NULL, -- the visit's day in TZ: the day its counters count on
    visitor           integer  NOT NULL, -- the day number: the same for a visitor's visits of a day
    id                bigint   NOT NULL, -- random, 0 <= id < 2^63: names the row for later flushes
    hour              smallint NOT NULL CHECK (hour BETWEEN 0 AND 23), -- the hour (TZ) it started
    pageviews         integer  NOT NULL DEFAULT 0 CHECK (pageviews >= 0),
    seconds           integer  NOT NULL DEFAULT 0 CHECK (seconds >= 0),
    bounce            boolean  NOT NULL DEFAULT false,
    -- The visit-level values exactly as the counters count them ('' for none).
    referrer          text     NOT NULL DEFAULT '',
    search_engine     text     NOT NULL DEFAULT '',
    social_network    text     NOT NULL DEFAULT '',
    campaign          text     NOT NULL DEFAULT '',
    browser           text     NOT NULL DEFAULT '',
    operating_system  text     NOT NULL DEFAULT '',
    device            text     NOT NULL DEFAULT '',
    language          text     NOT NULL DEFAULT '',
    screen_resolution text     NOT NULL DEFAULT '',
    continent         text     NOT NULL DEFAULT '',
    country           text     NOT NULL DEFAULT '',
    city              text     NOT NULL DEFAULT '',
    landing_page      text     NOT NULL DEFAULT '',
    exit_page         text     NOT NULL DEFAULT '',
    -- One element per pageview (its page value) and per event ("name:value:unit"), in order.
    pages             text[]   NOT NULL DEFAULT '{}',
    events            text[]   NOT NULL DEFAULT '{}',
    PRIMARY KEY (website_id, day, visitor, id)
) PARTITION BY RANGE (day);

-- The partitions that exist (one a day, visit_rows_YYYYMMDD), made ahead by the job "keep visit
-- row partitions", and whether each was rewritten in key order once its day was over.
CREATE TABLE visit_row_partitions (
    day        date PRIMARY KEY,
    clustered  boolean NOT NULL DEFAULT false
);

-- The first day whose visits have rows: the day after the upgrade for existing websites (the
-- upgrade's own day is partial), the first day of websites created later. Filtered numbers
-- start there (meta.filtered_from), or at the oldest partition kept.
ALTER TABLE websites ADD COLUMN filters_from date NOT NULL DEFAULT current_date;
UPDATE websites SET filters_from = current_date + 1;
