-- Members of a website other than its owner (docs/teams.md): a viewer reads the stats, an
-- editor also changes the settings, goals, funnels, segments and shared links, an admin also
-- invites, changes roles and removes members. The owner stays websites.user_id; handing a
-- website over moves user_id and makes the old owner an admin here, in one transaction.
CREATE TABLE website_members (
    website_id bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text        NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (website_id, user_id)
);
-- A member's home page lists the websites shared with them.
CREATE INDEX website_members_user ON website_members (user_id);

-- An invitation to a website is a one-use link as the others are (SHA-256 of a random token,
-- 7 days): for the website (member_of) and role named, to the address invited. account_links
-- stays a table of accounts, not of a website's data (no website_id column: docs/scaling.md),
-- whose rows may name a website as users' rows own them. An existing user accepts it
-- signed in as that address; for a new address, accepting it creates the account with a
-- password. It cannot be used once its maker (created_by) may no longer invite to the website,
-- or is gone.
ALTER TABLE account_links DROP CONSTRAINT account_links_kind_check;
ALTER TABLE account_links ADD CONSTRAINT account_links_kind_check
    CHECK (kind IN ('invite', 'set_password', 'reset', 'member'));
ALTER TABLE account_links DROP CONSTRAINT account_links_check;
ALTER TABLE account_links ADD COLUMN member_of bigint REFERENCES websites (id) ON DELETE CASCADE;
ALTER TABLE account_links ADD COLUMN role text CHECK (role IN ('viewer', 'editor', 'admin'));
ALTER TABLE account_links ADD CONSTRAINT account_links_check CHECK (
    (kind IN ('invite', 'member')) = (user_id IS NULL)
    AND (kind = 'member') = (member_of IS NOT NULL AND role IS NOT NULL));
CREATE INDEX account_links_pending_member_of ON account_links (member_of) WHERE used_at IS NULL;
