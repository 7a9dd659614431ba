-- One-use links that cannot outlive the reasons to trust them. An invitation or a set-password
-- link is an admin's act: it records who made it (created_by), and it is voided when that admin
-- is unmade or removed; /admin/users lists the pending links with their maker. Reset links are
-- asked for by the user's own address and have no maker. used_at is set when a link is used or
-- voided (by a new password or address, an accepted invitation, a revocation); a voided link
-- answers as an expired one.
ALTER TABLE account_links ADD COLUMN created_by bigint REFERENCES users (id) ON DELETE SET NULL;

-- Links made before this migration have no recorded maker, so the rule above could not hold for
-- them: the pending ones are voided (an admin makes them again from /admin/users).
UPDATE account_links SET used_at = now()
WHERE used_at IS NULL AND kind IN ('invite', 'set_password');

-- The voids: an admin's pending links, the invitations of an address (compared without regard
-- to case), and the list of pending links.
CREATE INDEX account_links_pending_by ON account_links (created_by) WHERE used_at IS NULL;
CREATE INDEX account_links_pending_email ON account_links (lower(email)) WHERE used_at IS NULL;
CREATE INDEX account_links_pending_expiry ON account_links (expires_at) WHERE used_at IS NULL;
