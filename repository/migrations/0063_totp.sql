-- Two-factor sign-in with TOTP (RFC 6238; docs/teams.md). totp_secret is set once the first
-- code confirmed it; totp_pending is the secret shown on the setup page until then. A code is
-- good once: totp_step is the last time step a code was accepted for, and only a later step
-- is accepted after it.
ALTER TABLE users ADD COLUMN totp_secret bytea;
ALTER TABLE users ADD COLUMN totp_pending bytea;
ALTER TABLE users ADD COLUMN totp_step bigint NOT NULL DEFAULT 0;

-- Ten one-use recovery codes per user, as SHA-256 (each is 80 random bits); new ones replace
-- every old one.
CREATE TABLE recovery_codes (
    user_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash bytea  NOT NULL CHECK (octet_length(code_hash) = 32),
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- Settings of the whole service that admins change on /admin/users.
CREATE TABLE service_settings (
    name  text PRIMARY KEY,
    value text NOT NULL
);
