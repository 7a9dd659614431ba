-- Each website's own time zone (IANA name). NULL in timezone means "the service's TZ": the
-- websites that existed before keep counting days as they did, and a website created without a
-- zone follows TZ too. A change of zone is not applied at once: the new zone is kept in
-- timezone_next and takes effect at timezone_from, the start (in the new zone) of its first
-- date after the day of the change has ended in the old zone, so no day is counted in two
-- zones. Once timezone_from has passed, the next change folds timezone_next into timezone.
ALTER TABLE websites
    ADD COLUMN timezone text,
    ADD COLUMN timezone_next text,
    ADD COLUMN timezone_from timestamptz,
    ADD CONSTRAINT websites_timezone_change CHECK ((timezone_next IS NULL) = (timezone_from IS NULL));
