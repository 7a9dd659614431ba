-- The account page lists a user's sessions: an id to sign one out by (never the token), the
-- device its browser named at sign-in ("Firefox on Linux"; the user agent itself is not
-- stored) and when it was last seen (written at most once a minute).
ALTER TABLE sessions ADD COLUMN id bigserial UNIQUE;
ALTER TABLE sessions ADD COLUMN device text NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz;
UPDATE sessions SET last_seen_at = created_at;
ALTER TABLE sessions ALTER COLUMN last_seen_at SET NOT NULL;
