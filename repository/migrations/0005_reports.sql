-- One row per e-mail report: an owner (user_id) and a period (kind and first day). The primary
-- key is the "exactly once": however many nodes run, a report exists once, and whichever node
-- claims it (status 'sending', a random claim id, a lease) is the only one that sends it until
-- the lease runs out. A failure puts it back to 'pending' with a later next_attempt_at; nothing
-- is ever deleted, so a report that keeps failing stays visible (attempts, last_error).
CREATE TABLE report_deliveries (
    user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    period          text NOT NULL CHECK (period IN ('month', 'week')),
    period_start    date NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'skipped')),
    due_at          timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    claim_id        uuid,
    lease_until     timestamptz,
    last_error      text,
    sent_at         timestamptz,
    PRIMARY KEY (user_id, period, period_start),
    CHECK (status <> 'sending' OR (claim_id IS NOT NULL AND lease_until IS NOT NULL))
);

-- The claim query and the oldest-unsent gauge read only the unfinished rows.
CREATE INDEX report_deliveries_unsent ON report_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'sending');
