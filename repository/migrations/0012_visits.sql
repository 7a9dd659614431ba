-- Visitors, visits and realtime (docs/visits.md). See docs/visits.md for what each
-- table holds, who writes it and who reads it.

-- The salt of each calendar day (in TZ) under which visitor keys are computed. Shared by every
-- node so that they agree on a visitor; created a day ahead; deleted once the day after it has
-- ended, after which no stored data can be tied back to an address. UNLOGGED: no WAL, replica or
-- base backup ever holds a salt.
CREATE UNLOGGED TABLE visitor_salts (
    day  date PRIMARY KEY,
    salt bytea NOT NULL CHECK (octet_length(salt) = 32)
);

-- Day membership of visitor keys: which keys a website has seen on a day, so that a visitor is
-- counted once per website and day across nodes and restarts. key is the keyed hash of section
-- 8 (never the address or user agent), useless once the day's salt is gone; rows are deleted
-- with their salt. visited: the key started a visit on that day (it was counted in `visitor`).
-- hours: bit h is set when the key sent a hit in hour h (0..23, TZ) of that day (it was
-- counted in `visitor_hour` for h).
CREATE UNLOGGED TABLE visitor_days (
    website_id bigint NOT NULL,
    day        date NOT NULL,
    key        bytea NOT NULL CHECK (octet_length(key) = 16),
    visited    boolean NOT NULL DEFAULT false,
    hours      integer NOT NULL DEFAULT 0,
    PRIMARY KEY (website_id, day, key)
);

-- Pageviews per website and minute, for the realtime view; rows older than 30 minutes are
-- deleted.
CREATE UNLOGGED TABLE realtime_minutes (
    website_id bigint NOT NULL,
    minute     timestamptz NOT NULL CHECK (date_trunc('minute', minute) = minute),
    pageviews  bigint NOT NULL CHECK (pageviews > 0),
    PRIMARY KEY (website_id, minute)
);

-- The latest pageviews of each website, for the signed-in owner's realtime view: the page path
-- without its query string and visit-level values, no key and no address. At most the last 25
-- per website and nothing older than 30 minutes are kept.
CREATE UNLOGGED TABLE realtime_recent (
    id         bigserial PRIMARY KEY,
    website_id bigint NOT NULL,
    at         timestamptz NOT NULL,
    page       text NOT NULL,
    referrer   text NOT NULL,
    country    text NOT NULL,
    browser    text NOT NULL,
    device     text NOT NULL
);
CREATE INDEX realtime_recent_website_at ON realtime_recent (website_id, at DESC);

-- Current visitors, per node: the distinct visitor keys with a hit in the last 5 minutes that
-- each node holds, written at each of its flushes; a count older than 10 s is ignored.
CREATE UNLOGGED TABLE realtime_visitors (
    node       text NOT NULL,
    website_id bigint NOT NULL,
    visitors   integer NOT NULL CHECK (visitors >= 0),
    flushed_at timestamptz NOT NULL,
    PRIMARY KEY (node, website_id)
);

-- The first day whose visit-level statistics (visitor, visit, landing_page, ..., city) were
-- counted by visits (section 8) rather than per pageview from another site. Existing websites
-- change over on the day after the upgrade (the upgrade's own day is mixed, so it is counted as
-- before); websites created later count by visits from their first day.
ALTER TABLE websites ADD COLUMN visits_from date NOT NULL DEFAULT current_date;
UPDATE websites SET visits_from = current_date + 1;

-- Before the changeover a day's visits are what its `visitor` counted (section 3).
INSERT INTO stats (website_id, name, date, value, count)
SELECT website_id, 'visit', date, value, count FROM stats WHERE name = 'visitor'
ON CONFLICT DO NOTHING;
INSERT INTO stats_weekly (website_id, name, week, value, count)
SELECT website_id, 'visit', week, value, count FROM stats_weekly WHERE name = 'visitor'
ON CONFLICT DO NOTHING;
INSERT INTO stats_monthly (website_id, name, month, value, count)
SELECT website_id, 'visit', month, value, count FROM stats_monthly WHERE name = 'visitor'
ON CONFLICT DO NOTHING;
INSERT INTO stats_value_counts (website_id, name, date, value_count)
SELECT website_id, 'visit', date, value_count FROM stats_value_counts WHERE name = 'visitor'
ON CONFLICT DO NOTHING;

-- Days whose numbers were imported (section 11) rather than collected: source says from where.
-- Filters do not cover them; days imported from phpanalytics have no bounce rate or duration.
CREATE TABLE imported_days (
    website_id bigint NOT NULL,
    day        date NOT NULL,
    source     text NOT NULL CHECK (source IN ('phpanalytics', 'plausible')),
    PRIMARY KEY (website_id, day)
);
