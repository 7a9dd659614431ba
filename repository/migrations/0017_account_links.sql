-- One-use links of accounts: invitations (7 days; the user is created when it is accepted),
-- set-password links an admin makes (7 days), and password resets (1 hour). Only a SHA-256 of
-- each link's random token is stored: a leaked table opens no account.
CREATE TABLE account_links (
    id          bigserial PRIMARY KEY,
    token_hash  bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    kind        text NOT NULL CHECK (kind IN ('invite', 'set_password', 'reset')),
    -- The invited address (invite) or the user's (set_password, reset).
    email       text NOT NULL,
    user_id     bigint REFERENCES users (id) ON DELETE CASCADE,
    make_admin  boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    CHECK ((kind = 'invite') = (user_id IS NULL))
);

-- The reset mails of a user in the last hour are counted here (at most 3).
CREATE INDEX account_links_user_kind ON account_links (user_id, kind, created_at);
