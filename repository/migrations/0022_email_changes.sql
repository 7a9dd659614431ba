-- E-mail changes waiting for their proof: with mail on, a new address is taken only when the
-- link mailed to it is opened (24 hours, one use). Only a SHA-256 of the link's random token
-- is stored: a leaked table moves no account.
CREATE TABLE email_changes (
    id          bigserial PRIMARY KEY,
    token_hash  bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email       text NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);

CREATE INDEX email_changes_user ON email_changes (user_id);
