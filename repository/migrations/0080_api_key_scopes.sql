-- What an API key may do (docs/plausible-v1.md, Keys): 'stats:read' reads only (every GET,
-- the stats and the query API), 'sites:provision' also changes websites, goals and funnels.
-- Every key made before keeps every right it had.
ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'sites:provision'
    CHECK (scope IN ('stats:read', 'sites:provision'));
