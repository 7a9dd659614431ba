-- Annotations (docs/segments.md): a note pinned to a day of a website's graph, 1..300
-- characters, the maker's own (user_id) or the website's for everyone (user_id NULL), as
-- segments (0061). Keyed by website as every table of a website's data (docs/scaling.md).
CREATE TABLE annotations (
    website_id bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    id         bigserial   NOT NULL,
    user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
    day        date        NOT NULL,
    note       text        NOT NULL CHECK (char_length(note) BETWEEN 1 AND 300),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (website_id, id)
);
-- The graph reads a range's annotations.
CREATE INDEX annotations_day ON annotations (website_id, day);
