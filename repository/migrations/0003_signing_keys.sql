-- Random keys the service signs with (password grants of the stats pages, unsubscribe links of
-- the e-mail reports): one per purpose, made by whichever node needs it first, so that every
-- node and every restart agrees without configuration. Rotating one is deleting its row.
CREATE TABLE signing_keys (
    purpose    text PRIMARY KEY,
    key        bytea NOT NULL CHECK (octet_length(key) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
