-- Retention per website (docs/retention.md): keep the website's visit rows retention_days days
-- (today included), fewer than FACTS_RETENTION; NULL keeps them as long as FACTS_RETENTION
-- says. The daily counters are kept for ever either way. The bounds are the service's
-- (MinRetentionDays, FACTS_RETENTION's most); the website rules check the node's own.
ALTER TABLE websites
    ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 32 AND 3660);

-- The ranges of a website's stats that its owner deleted ("delete a range", "reset all"), for
-- the dashboard's note on a range that holds one. from_day NULL: every day up to to_day (a
-- reset of all stats, to_day being the website's today then).
CREATE TABLE stats_resets (
    website_id bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    id         bigserial   NOT NULL,
    from_day   date,
    to_day     date        NOT NULL,
    reset_at   timestamptz NOT NULL,
    PRIMARY KEY (website_id, id),
    CHECK (from_day IS NULL OR from_day <= to_day)
);
