-- Each flush of the ingest counters claims its batch id here in the same statement that adds
-- its counts. A flush retried after an unknown outcome (the connection died around COMMIT)
-- finds its id taken and adds nothing: every counted event is counted exactly once.
CREATE TABLE ingest_batches (
    id         uuid PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ingest_batches_created_at ON ingest_batches (created_at);
