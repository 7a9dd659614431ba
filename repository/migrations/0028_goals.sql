-- Event names as sent (`Outbound Link: Click`), one per event of the visit, aligned with
-- events (whose "name:value:unit" writes a ':' of the name as a space): event goals compare
-- these. Rows written before this migration have none; their event goals compare the name
-- part of events instead (docs/goals.md).
ALTER TABLE visit_rows ADD COLUMN event_names text[] NOT NULL DEFAULT '{}';

-- Goals: what a website exists for (a signup, a download). A goal is a definition only; its
-- conversions are counted from visit_rows when they are read (docs/goals.md), so a goal made
-- today counts the visits of the days that still have rows. Keyed by website first, like every
-- table of a website's data; at most 200 a website (checked under a lock of the website's row
-- when one is added).
CREATE TABLE goals (
    website_id   bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    id           bigserial   NOT NULL,
    kind         text        NOT NULL CHECK (kind IN ('pageview', 'event')),
    page         text        CHECK (char_length(page) BETWEEN 1 AND 255),  -- the path pattern
    event        text        CHECK (char_length(event) BETWEEN 1 AND 64),  -- the name as sent
    display_name text        NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 120),
    currency     text        CHECK (currency ~ '^[A-Z]{3}$'),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (website_id, id),
    UNIQUE (website_id, display_name),
    CHECK ((kind = 'pageview') = (page IS NOT NULL)),
    CHECK ((kind = 'event') = (event IS NOT NULL)),
    CHECK (kind = 'event' OR currency IS NULL)
);
