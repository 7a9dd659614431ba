-- Segments: a saved set of filters of a website, in the query API's filter form (a JSON
-- array, checked by package query before it is stored), the owner's own (user_id) or the
-- website's for everyone (user_id NULL). Only the storage: the shared links below name one.
-- Keys include website_id, as every table of a website's data (docs/scaling.md).
CREATE TABLE segments (
    website_id bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    id         bigserial   NOT NULL,
    user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
    name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    filters    jsonb       NOT NULL CHECK (jsonb_typeof(filters) = 'array'),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (website_id, id)
);

-- Shared links (docs/teams.md): /share/{domain}?auth=TOKEN shows the website's dashboard
-- read-only. Only the SHA-256 of the random token is stored; an optional password (argon2id,
-- set only when the link is made) and an optional segment the viewer cannot remove. Deleting
-- the segment deletes its links, so no link ever shows more than it was made for. A link is
-- found by its website (the address names the domain) and its token's hash, so that a token
-- of another website finds nothing.
CREATE TABLE shared_links (
    website_id    bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    id            bigserial   NOT NULL,
    token_hash    bytea       NOT NULL CHECK (octet_length(token_hash) = 32),
    name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    password_hash text,
    segment_id    bigint,
    created_by    bigint      REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (website_id, id),
    UNIQUE (website_id, token_hash),
    FOREIGN KEY (website_id, segment_id) REFERENCES segments (website_id, id) ON DELETE CASCADE
);
