-- The last installation check of each website (the verify button, pages/guide.go), so that
-- its answer is a page that can be reloaded and shared (POST, then 303 to GET). One row a
-- website, replaced by its next check; the answer shows for a day (siteCheckShown) and rows
-- older than that are deleted by the next check of any website. It holds what the check
-- found on the website's own home page and when: nothing of the user who ran it.
CREATE TABLE site_checks (
    website_id bigint      PRIMARY KEY REFERENCES websites (id) ON DELETE CASCADE,
    checked_at timestamptz NOT NULL,
    found      boolean     NOT NULL,
    message    text        NOT NULL
);
