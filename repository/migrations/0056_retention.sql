-- Retention per website (docs/retention.md): keep the website's visit rows retention_days days
-- (today included), fewer than FACTS_RETENTION; NULL keeps them as long as FACTS_RETENTION
-- says. The daily counters are kept for ever either way. The bounds are the service's
-- (MinRetentionDays, FACTS_RETENTION's most); the website rules check the node's own.
ALTER TABLE websites
    ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 32 AND 3660);
