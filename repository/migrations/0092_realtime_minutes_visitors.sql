-- Today's graph by the minute (docs/dashboard.md): each minute of a website now also counts
-- the visitors with a hit in it and the visits that started in it, and minutes are kept for
-- nine days (counters.MinutesKept), so that Today can be drawn by the minute and compared with
-- the same day a week before. A minute may have visitors and no pageview (an event).
ALTER TABLE realtime_minutes
    ADD COLUMN visitors bigint NOT NULL DEFAULT 0 CHECK (visitors >= 0),
    ADD COLUMN visits   bigint NOT NULL DEFAULT 0 CHECK (visits >= 0),
    DROP CONSTRAINT realtime_minutes_pageviews_check,
    ADD CONSTRAINT realtime_minutes_pageviews_check CHECK (pageviews >= 0),
    ADD CONSTRAINT realtime_minutes_counted CHECK (pageviews > 0 OR visitors > 0);
