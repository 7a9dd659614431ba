-- Accounts in the browser (docs/decisions.md, Accounts): admins, e-mail addresses compared without
-- regard to case, and API keys with a name and the time they were last used.

-- Admins manage users at /admin/users. The first user is one (on an install that has users
-- already, the oldest); others are made admin by `analytics user create --admin` or by an admin.
ALTER TABLE users ADD COLUMN is_admin boolean NOT NULL DEFAULT false;
UPDATE users SET is_admin = true WHERE id = (SELECT min(id) FROM users);

-- E-mail addresses compare case-insensitively from now on. Accounts that already differ only
-- by case (Owner@Example.com and owner@example.com, made by the CLI, which compared exactly)
-- are kept, each with its websites and keys: the oldest of each group owns the address, the
-- others are marked case_duplicate and sign in by their exact spelling only (sign-in picks the
-- exact match first). No new address may equal another one but for case. Changing the e-mail
-- of a marked account to a free address clears the mark.
ALTER TABLE users ADD COLUMN case_duplicate boolean NOT NULL DEFAULT false;
UPDATE users u SET case_duplicate = true
WHERE EXISTS (SELECT 1 FROM users o WHERE lower(o.email) = lower(u.email) AND o.id < u.id);
CREATE UNIQUE INDEX users_email_folded ON users (lower(email)) WHERE NOT case_duplicate;

-- A key's name is the owner's note of what uses it; last_used_at is written at most once a
-- minute per key, in batches, off the API's request path.
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '' CHECK (length(name) <= 100);
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
CREATE INDEX api_keys_user_id ON api_keys (user_id, id);
