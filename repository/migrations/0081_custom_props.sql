-- The custom property keys declared for a website (Plausible's "custom properties" of a site,
-- the Sites API's /api/v1/sites/custom-props: docs/plausible-sites.md). A declaration is a
-- name only: collection keeps every property whether declared or not.
CREATE TABLE website_custom_props (
    website_id bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    property   text        NOT NULL CHECK (char_length(property) BETWEEN 1 AND 300),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (website_id, property)
);
