-- The stats pages: owners sign in, sessions, and password grants of privacy-2 websites.

-- An owner signs in with an e-mail and a password set by `analytics user password`; without one
-- the user cannot sign in (API keys still work).
ALTER TABLE users ADD COLUMN password_hash text;

-- A signed-in browser. Only a SHA-256 of the cookie's random token is stored: a leaked table
-- signs no one in.
CREATE TABLE sessions (
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- Moves on every change of a website's password or privacy. A password grant (the signed cookie
-- of a browser that entered the password) names the version it was made under, so any such
-- change voids every grant at once, even a change and its undo.
ALTER TABLE websites ADD COLUMN access_version bigint NOT NULL DEFAULT 1;
