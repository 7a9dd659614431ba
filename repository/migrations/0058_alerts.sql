-- Traffic alerts (docs/alerts.md): per website and user, a spike alert (current visitors at or
-- above a threshold) and a drop alert (visitors of the last 24 hours under one), mailed to
-- addresses each confirmed by a link first.

-- An alert: last_alert_at is the start of its last alert's window (none again within 12 hours
-- of a spike's, 24 of a drop's); nodes take a window by moving it with a conditional update, so
-- one of them mails it.
CREATE TABLE traffic_alerts (
    website_id    bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind          text        NOT NULL CHECK (kind IN ('spike', 'drop')),
    threshold     integer     NOT NULL CHECK (threshold > 0),
    created_at    timestamptz NOT NULL,
    last_alert_at timestamptz,
    PRIMARY KEY (website_id, user_id, kind)
);

-- The addresses a user's alerts of a website go to (lower case); confirmed_at NULL until the
-- link mailed to it is opened and confirmed.
CREATE TABLE alert_addresses (
    website_id   bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email        text        NOT NULL,
    created_at   timestamptz NOT NULL,
    confirmed_at timestamptz,
    PRIMARY KEY (website_id, user_id, email)
);

-- One message to one address: a confirmation ('confirm', window_at the address's created_at)
-- or an alert of a window. Claimed as the e-mail reports are (status 'sending', a claim id, a
-- lease), retried with backoff; removing the address removes its messages not sent.
CREATE TABLE alert_deliveries (
    website_id      bigint      NOT NULL,
    user_id         bigint      NOT NULL,
    email           text        NOT NULL,
    kind            text        NOT NULL CHECK (kind IN ('confirm', 'spike', 'drop')),
    window_at       timestamptz NOT NULL,
    measured        bigint      NOT NULL DEFAULT 0, -- the visitors that crossed the threshold
    threshold       integer     NOT NULL DEFAULT 0,
    status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'skipped')),
    next_attempt_at timestamptz NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    claim_id        uuid,
    lease_until     timestamptz,
    last_error      text,
    sent_at         timestamptz,
    PRIMARY KEY (website_id, user_id, email, kind, window_at),
    FOREIGN KEY (website_id, user_id, email) REFERENCES alert_addresses ON DELETE CASCADE,
    CHECK (status <> 'sending' OR (claim_id IS NOT NULL AND lease_until IS NOT NULL))
);

CREATE INDEX alert_deliveries_unsent ON alert_deliveries (next_attempt_at) WHERE status IN ('pending', 'sending');
